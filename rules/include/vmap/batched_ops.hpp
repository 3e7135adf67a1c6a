// The free functions, members as free functions, <cmath> functions and operators of the
// batched API on vb::Value (their definitions: rules/src/batched/batched_ops.cpp). Part of
// <vmap/batched.hpp>, which includes it where vb::Value is complete: include that header,
// not this one.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

namespace vmap::batched {

// --- free functions of SPEC section 4 on Values (the tool qualifies them as vb::name).
Value add(const Value& a, const Value& b, const Value& alpha = 1);
Value sub(const Value& a, const Value& b, const Value& alpha = 1);
Value mul(const Value& a, const Value& b);
Value div(const Value& a, const Value& b);
Value div(const Value& a, const Value& b, std::optional<std::string_view> rounding_mode);
Value pow(const Value& a, const Value& b);
Value maximum(const Value& a, const Value& b);
Value minimum(const Value& a, const Value& b);
Value logical_and(const Value& a, const Value& b);
Value logical_or(const Value& a, const Value& b);
Value logical_not(const Value& x);
Value where(const Value& condition, const Value& a, const Value& b);
Value clamp(const Value& x, const Value& min, const Value& max = Value());
Value neg(const Value& x);
Value abs(const Value& x);
// the ops of the pointwise op list; on a per-example C++ scalar the unary ones are <cmath>'s
// (std::floor(int) is double)
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) Value name(const Value& x);
#define VMAP_BINARY_OP(name, Functor, domain) Value name(const Value& a, const Value& b);
#include <vmap/detail/pointwise_ops.def>
Value sum(const Value& x);
Value sum(const Value& x, int64_t dim, bool keepdim = false);
Value sum(const Value& x, vmap::detail::IntList dims, bool keepdim = false);
Value mean(const Value& x);
Value mean(const Value& x, int64_t dim, bool keepdim = false);
Value mean(const Value& x, vmap::detail::IntList dims, bool keepdim = false);
Value amax(const Value& x, int64_t dim, bool keepdim = false);
Value amax(const Value& x, vmap::detail::IntList dims = {}, bool keepdim = false);
Value amin(const Value& x, int64_t dim, bool keepdim = false);
Value amin(const Value& x, vmap::detail::IntList dims = {}, bool keepdim = false);
Value argmax(const Value& x);
Value argmax(const Value& x, int64_t dim, bool keepdim = false);
Value argmin(const Value& x);
Value argmin(const Value& x, int64_t dim, bool keepdim = false);
Value any(const Value& x);
Value any(const Value& x, int64_t dim, bool keepdim = false);
Value all(const Value& x);
Value all(const Value& x, int64_t dim, bool keepdim = false);
Value equal(const Value& a, const Value& b);
// rtol and atol may differ per example (SPEC section 6: any argument may).
Value allclose(const Value& a, const Value& b, const Value& rtol = 1e-05,
               const Value& atol = 1e-08);
Value matmul(const Value& a, const Value& b);
Value mm(const Value& a, const Value& b);
Value mv(const Value& a, const Value& b);
Value bmm(const Value& a, const Value& b);
Value dot(const Value& a, const Value& b);
Value linear(const Value& x, const Value& weight, const Value& bias = Value());
Value gather(const Value& x, int64_t dim, const Value& index);
Value index_select(const Value& x, int64_t dim, const Value& index);
Value softmax(const Value& x, int64_t dim);
Value log_softmax(const Value& x, int64_t dim);
Value cumsum(const Value& x, int64_t dim);
Value cumprod(const Value& x, int64_t dim);
Value logsumexp(const Value& x, vmap::detail::IntList dims, bool keepdim = false);
Value var(const Value& x, vmap::detail::IntList dims, bool unbiased = true, bool keepdim = false);
Value std(const Value& x, vmap::detail::IntList dims, bool unbiased = true, bool keepdim = false);
Value norm(const Value& x, vmap::detail::Scalar p, vmap::detail::IntList dims,
           bool keepdim = false);
Value var(const Value& x, bool unbiased = true);
Value std(const Value& x, bool unbiased = true);
template <vmap::detail::DimInteger Dim>  // var(x, 0): dim 0
Value var(const Value& x, Dim dim, bool unbiased = true, bool keepdim = false) {
  return x.var(dim, unbiased, keepdim);
}
template <vmap::detail::DimInteger Dim>
Value std(const Value& x, Dim dim, bool unbiased = true, bool keepdim = false) {
  return x.std(dim, unbiased, keepdim);
}
Value norm(const Value& x, vmap::detail::Scalar p = 2);
Value masked_fill(const Value& x, const Value& mask, const Value& value);
Value lerp(const Value& start, const Value& end, const Value& weight);
std::tuple<Value, Value> sort(const Value& x, int64_t dim = -1, bool descending = false);
Value argsort(const Value& x, int64_t dim = -1, bool descending = false);
std::tuple<Value, Value> topk(const Value& x, int64_t k, int64_t dim = -1, bool largest = true,
                              bool sorted = true);
Value one_hot(const Value& x, int64_t num_classes = -1);
// approximate, beta and threshold are loop-invariant (the tool refuses per-example ones).
Value gelu(const Value& x, std::string_view approximate = "none");
Value softplus(const Value& x, vmap::detail::Scalar beta = 1, vmap::detail::Scalar threshold = 20);
Value cat(const std::vector<Value>& tensors, int64_t dim = 0);
Value stack(const std::vector<Value>& tensors, int64_t dim = 0);
Value unsqueeze(const Value& x, int64_t dim);
Value squeeze(const Value& x);
Value squeeze(const Value& x, int64_t dim);
Value expand(const Value& x, vmap::detail::IntList sizes);
Value reshape(const Value& x, vmap::detail::IntList sizes);
Value view(const Value& x, vmap::detail::IntList sizes);
Value transpose(const Value& x, int64_t dim0, int64_t dim1);
Value t(const Value& x);
Value permute(const Value& x, vmap::detail::IntList dims);
Value movedim(const Value& x, int64_t source, int64_t destination);
Value movedim(const Value& x, vmap::detail::IntList source, vmap::detail::IntList destination);
Value flatten(const Value& x, int64_t start_dim = 0, int64_t end_dim = -1);
Value narrow(const Value& x, int64_t dim, const Value& start, int64_t length);
Value triu(const Value& x, int64_t diagonal = 0);
Value tril(const Value& x, int64_t diagonal = 0);
Value zeros_like(const Value& x, TensorOptions options = {});
Value ones_like(const Value& x, TensorOptions options = {});
Value empty_like(const Value& x, TensorOptions options = {});
Value full_like(const Value& x, const Value& value, TensorOptions options = {});
Value full(vmap::detail::IntList sizes, const Value& value, TensorOptions options = {});

// Note [Per-example tensor literals]
// `tensor({lo, hi, hi - lo})` with per-example numbers: per example, the tensor vmap::tensor
// makes of the same C++ numbers: the same nesting, and the same dtype (integers int64,
// floating numbers float32, bools bool, promoted across the list; the options' dtype when
// given). A nested list of Values and C++ numbers, kept flat as vmap::detail::TensorData
// keeps its numbers.
class NestedValues {
 public:
  NestedValues(const Value& number) : numbers_{number} {}
  template <vmap::detail::Arithmetic T>
  NestedValues(T number) : numbers_{Value(number)} {}
  NestedValues(std::initializer_list<NestedValues> nested);

  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<Value>& numbers() const { return numbers_; }

 private:
  std::vector<int64_t> sizes_;
  std::vector<Value> numbers_;
};
Value tensor(NestedValues data, TensorOptions options = {});
// Members as free functions (the tool uses these when the object is unbatched).
Value contiguous(const Value& x);
Value clone(const Value& x);
Value to(const Value& x, Dtype dtype);
Value to(const Value& x, Device device);
Value select(const Value& x, int64_t dim, const Value& index);
Value copy_(const Value& destination, const Value& src);
Value fill_(const Value& destination, const Value& value);
Value zero_(const Value& destination);
int64_t dim(const Value& x);
int64_t size(const Value& x, int64_t dim);
std::vector<int64_t> sizes(const Value& x);
int64_t numel(const Value& x);
Dtype dtype(const Value& x);

// --- <cmath> on per-example C++ scalars, with C++ result types (std::sqrt(int) is
// double); on tensors the first group are the SPEC ops above.
Value fabs(const Value& x);
Value fmax(const Value& a, const Value& b);
Value fmin(const Value& a, const Value& b);
Value min(const Value& a, const Value& b);
Value max(const Value& a, const Value& b);

// --- operators (found by ADL). Between two C++-scalar Values: C++ arithmetic
// conversions (int / int truncates, comparisons give bool); otherwise LibTorch's rules
// with C++ scalars as wrapped numbers.
Value operator+(const Value& a, const Value& b);
Value operator-(const Value& a, const Value& b);
Value operator*(const Value& a, const Value& b);
Value operator/(const Value& a, const Value& b);
Value operator%(const Value& a, const Value& b);
Value operator-(const Value& x);
// the comparisons of the pointwise op list
#define VMAP_COMPARISON_OP(name, Functor, symbol) \
  Value operator symbol(const Value& a, const Value& b);
#include <vmap/detail/pointwise_ops.def>
Value operator&(const Value& a, const Value& b);
Value operator|(const Value& a, const Value& b);
Value operator!(const Value& x);
Value operator&&(const Value& a, const Value& b);
Value operator||(const Value& a, const Value& b);

}  // namespace vmap::batched
