// Ops of SPEC section 6 composed of other runtime ops (so they run on every device their
// parts run on): the scans, logsumexp, var / std / norm, masked_fill, lerp, gelu and
// softplus, with
// LibTorch 1.13's dtypes and edge cases.
#include "internal.hpp"

#include <limits>

namespace vmap {
namespace {

using detail::fail;
using detail::Scalar;

// The number of elements each result element reduces over (every dim when `dims` is empty).
int64_t reduced_count(const char* op, const Tensor& self, detail::IntList dims) {
  if (dims.empty()) return self.numel();
  int64_t count = 1;
  for (int64_t dim : dims) count *= self.size(detail::wrap_dim(op, dim, self.dim()));
  return count;
}

// Size-1 dims `dims` (every dim when empty) of a keepdim result removed: summing a size-1
// dim is exact, and reuses sum's dim checks.
Tensor drop_kept_dims(const Tensor& kept, detail::IntList dims) { return kept.sum(dims, false); }

void check_floating(const char* op, const Tensor& self) {
  if (!detail::is_floating(detail::impl_of(self, op).dtype))
    fail(op, "only supports floating point dtypes, got ", self.dtype());
}

// out[..., k, ...] = out[..., k-1, ...] (+ or *) self[..., k, ...] along dim; integer and
// bool inputs accumulate in int64 (LibTorch's cumsum / cumprod).
Tensor scan(const char* op, const Tensor& self, int64_t dim, bool product) {
  const detail::OpName op_name(op);  // Note [The op the user called]
  const Dtype dtype = detail::is_floating(detail::impl_of(self, op).dtype) ? self.dtype() : kInt64;
  Tensor out = empty_like(self, dtype);
  out.copy_(self);
  if (self.dim() == 0) {
    detail::wrap_dim(op, dim, 0);
    return out;
  }
  const int64_t along = detail::wrap_dim(op, dim, self.dim());
  for (int64_t k = 1; k < out.size(along); ++k) {
    const Tensor slot = out.select(along, k);
    if (product) slot *= out.select(along, k - 1);
    else slot += out.select(along, k - 1);
  }
  return out;
}

}  // namespace

Tensor cumsum(const Tensor& self, int64_t dim) { return scan("cumsum", self, dim, false); }
Tensor cumprod(const Tensor& self, int64_t dim) { return scan("cumprod", self, dim, true); }

Tensor logsumexp(const Tensor& self, detail::IntList dims, bool keepdim) {
  const detail::OpName op_name("logsumexp");  // Note [The op the user called]
  const Tensor x = detail::is_floating(detail::impl_of(self, "logsumexp").dtype)
                       ? self
                       : self.to(kFloat32);
  for (int64_t dim : dims) detail::wrap_dim("logsumexp", dim, x.dim());  // not amax's error
  // Shifted by the maximum, except where it is infinite (all -inf, or an inf present).
  const Tensor maximum = amax(x, dims, true);
  const Tensor shift =
      where(abs(maximum) == std::numeric_limits<double>::infinity(), 0, maximum);
  const Tensor kept = log(sum(exp(x - shift), dims, true)) + shift;
  return keepdim ? kept : drop_kept_dims(kept, dims);
}

Tensor var(const Tensor& self, detail::IntList dims, bool unbiased, bool keepdim) {
  const detail::OpName op_name("var");  // Note [The op the user called]
  check_floating("var", self);
  const Tensor centred = self - self.mean(dims, true);
  const int64_t count = reduced_count("var", self, dims);
  const double divisor = std::max<int64_t>(count - (unbiased ? 1 : 0), 0);
  return (centred * centred).sum(dims, keepdim) / divisor;
}
Tensor var(const Tensor& self, bool unbiased) { return var(self, {}, unbiased, false); }
Tensor std(const Tensor& self, detail::IntList dims, bool unbiased, bool keepdim) {
  const detail::OpName op_name("std");  // Note [The op the user called]
  check_floating("std", self);
  return sqrt(var(self, dims, unbiased, keepdim));
}
Tensor std(const Tensor& self, bool unbiased) { return std(self, {}, unbiased, false); }

// The p-norm: p = 2 (default), 1, inf (the largest magnitude), 0 (the count of nonzeros)
// or any other p, sum(|x|^p)^(1/p).
Tensor norm(const Tensor& self, Scalar p, detail::IntList dims, bool keepdim) {
  const detail::OpName op_name("norm");  // Note [The op the user called]
  check_floating("norm", self);
  const double order = p.to_double();
  const Tensor magnitude = abs(self);
  if (order == std::numeric_limits<double>::infinity()) return amax(magnitude, dims, keepdim);
  if (order == -std::numeric_limits<double>::infinity()) return amin(magnitude, dims, keepdim);
  if (order == 0) return (magnitude != 0).to(self.dtype()).sum(dims, keepdim);
  if (order == 1) return magnitude.sum(dims, keepdim);
  if (order == 2) return sqrt((magnitude * magnitude).sum(dims, keepdim));
  return pow(pow(magnitude, order).sum(dims, keepdim), 1.0 / order);
}
Tensor norm(const Tensor& self, Scalar p) { return norm(self, p, {}, false); }

Tensor masked_fill(const Tensor& self, const Tensor& mask, Scalar value) {
  const detail::OpName op_name("masked_fill");  // Note [The op the user called]
  if (detail::impl_of(mask, "masked_fill").dtype != kBool)
    fail("masked_fill", "only supports boolean masks, but got mask with dtype ", mask.dtype());
  if (!detail::broadcastable_to(mask.sizes(), self.sizes()))
    fail("masked_fill", "the mask of shape ", detail::shape_str(mask.sizes()),
         " cannot be broadcast to the tensor of shape ", detail::shape_str(self.sizes()));
  detail::check_convertible("masked_fill", value, self.dtype());
  return where(mask, detail::scalar_tensor(value, self.dtype()), self);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const detail::OpName op_name("masked_fill");  // Note [The op the user called]
  if (value.dim() != 0)
    fail("masked_fill", "only supports a 0-dimensional value tensor, but got tensor with ",
         value.dim(), " dimension(s)");
  if (detail::impl_of(mask, "masked_fill").dtype != kBool)
    fail("masked_fill", "only supports boolean masks, but got mask with dtype ", mask.dtype());
  if (!detail::broadcastable_to(mask.sizes(), self.sizes()))
    fail("masked_fill", "the mask of shape ", detail::shape_str(mask.sizes()),
         " cannot be broadcast to the tensor of shape ", detail::shape_str(self.sizes()));
  return where(mask, value.to(self.dtype()), self);
}

// start + weight * (end - start), as LibTorch's lerp for |weight| < 0.5, and
// end - (end - start) * (1 - weight) otherwise (exact at weight 1).
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  const detail::OpName op_name("lerp");  // Note [The op the user called]
  check_floating("lerp", start);
  const Tensor difference = end - start;
  return where(abs(weight) < 0.5, start + weight * difference,
               end - difference * (1 - weight));
}
Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight) {
  const detail::OpName op_name("lerp");  // Note [The op the user called]
  detail::check_convertible("lerp", weight, start.dtype());
  return lerp(start, end, detail::scalar_tensor(weight, start.dtype()));
}

namespace {
void check_rounding_mode(std::string_view rounding_mode) {
  if (rounding_mode != "trunc" && rounding_mode != "floor")
    fail("div", "expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
         rounding_mode, "'");
}

}  // namespace

// LibTorch's div_trunc: trunc(a / b) on floating types, integer division toward zero
// (floor_divide, one up where the remainder is nonzero and the signs differ) on integers.
// floor_divide raises on bool and on an integer zero divisor, as LibTorch does.
Tensor div(const Tensor& self, const Tensor& other,
           std::optional<std::string_view> rounding_mode) {
  const detail::OpName op_name("div");  // Note [The op the user called]
  if (!rounding_mode) return div(self, other);
  check_rounding_mode(*rounding_mode);
  const Tensor floored = floor_divide(self, other);
  if (*rounding_mode == "floor") return floored;
  if (detail::is_floating(floored.dtype())) return trunc(div(self, other));
  const Tensor signs_differ = (self < 0) != (other < 0);
  return where(logical_and(remainder(self, other) != 0, signs_differ), floored + 1, floored);
}
// The number takes part in promotion as a wrapped number (floor_divide's); then it is a
// tensor of the result's dtype.
Tensor div(const Tensor& self, Scalar other, std::optional<std::string_view> rounding_mode) {
  const detail::OpName op_name("div");  // Note [The op the user called]
  if (!rounding_mode) return div(self, other);
  check_rounding_mode(*rounding_mode);
  const Tensor floored = floor_divide(self, other);
  return div(self, detail::scalar_tensor(other, floored.dtype()), rounding_mode);
}

// LibTorch's formulas (aten/src/ATen/native/cpu/Activation.cpp), in the input's dtype.
Tensor gelu(const Tensor& self, std::string_view approximate) {
  const detail::OpName op_name("gelu");  // Note [The op the user called]
  if (approximate != "none" && approximate != "tanh")
    fail("gelu", "approximate argument must be either none or tanh, got \"", approximate, "\"");
  check_floating("gelu", self);
  if (approximate == "none") return self * 0.5 * (1 + erf(self * M_SQRT1_2));
  const double sqrt_2_over_pi = M_SQRT2 * M_2_SQRTPI * 0.5;
  const Tensor inner = sqrt_2_over_pi * (self + 0.044715 * self * self * self);
  return 0.5 * self * (1 + tanh(inner));
}

Tensor softplus(const Tensor& self, Scalar beta, Scalar threshold) {
  const detail::OpName op_name("softplus");  // Note [The op the user called]
  check_floating("softplus", self);
  const Tensor scaled = self * beta;
  return where(scaled > threshold, self, log1p(exp(scaled)) / beta);
}

Tensor Tensor::div(const Tensor& other, std::optional<std::string_view> rounding_mode) const {
  return vmap::div(*this, other, rounding_mode);
}
Tensor Tensor::div(Scalar other, std::optional<std::string_view> rounding_mode) const {
  return vmap::div(*this, other, rounding_mode);
}
Tensor Tensor::cumsum(int64_t dim) const { return vmap::cumsum(*this, dim); }
Tensor Tensor::cumprod(int64_t dim) const { return vmap::cumprod(*this, dim); }
Tensor Tensor::logsumexp(IntList dims, bool keepdim) const {
  return vmap::logsumexp(*this, dims, keepdim);
}
Tensor Tensor::var(IntList dims, bool unbiased, bool keepdim) const {
  return vmap::var(*this, dims, unbiased, keepdim);
}
Tensor Tensor::var(bool unbiased) const { return vmap::var(*this, unbiased); }
Tensor Tensor::std(IntList dims, bool unbiased, bool keepdim) const {
  return vmap::std(*this, dims, unbiased, keepdim);
}
Tensor Tensor::std(bool unbiased) const { return vmap::std(*this, unbiased); }
Tensor Tensor::norm(Scalar p, IntList dims, bool keepdim) const {
  return vmap::norm(*this, p, dims, keepdim);
}
Tensor Tensor::norm(Scalar p) const { return vmap::norm(*this, p); }
Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const {
  return vmap::masked_fill(*this, mask, value);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return vmap::masked_fill(*this, mask, value);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  return vmap::lerp(*this, end, weight);
}
Tensor Tensor::lerp(const Tensor& end, Scalar weight) const { return vmap::lerp(*this, end, weight); }

}  // namespace vmap
