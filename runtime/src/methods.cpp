// Tensor members that LibTorch also has as free functions: each forwards to the free one.
#include "internal.hpp"

namespace vmap {

using detail::IntList;
using detail::Scalar;

Tensor Tensor::operator[](const Tensor& index) const {
  if (index.dim() == 0) return select(0, index.item<int64_t>());
  return vmap::index_select(*this, 0, index.flatten()).view([&] {
    std::vector<int64_t> shape = index.sizes().vec();
    for (int64_t d = 1; d < dim(); ++d) shape.push_back(size(d));
    return shape;
  }());
}
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  return vmap::narrow(*this, dim, start, length);
}
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return vmap::index_select(*this, dim, index);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const { return vmap::gather(*this, dim, index); }
Tensor Tensor::unsqueeze(int64_t dim) const { return vmap::unsqueeze(*this, dim); }
Tensor Tensor::squeeze() const { return vmap::squeeze(*this); }
Tensor Tensor::squeeze(int64_t dim) const { return vmap::squeeze(*this, dim); }
Tensor Tensor::expand(IntList sizes) const { return vmap::expand(*this, sizes); }
Tensor Tensor::expand_as(const Tensor& other) const {
  return vmap::expand(*this, detail::impl_of(other, "expand_as").sizes);
}
Tensor Tensor::reshape(IntList sizes) const { return vmap::reshape(*this, sizes); }
Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const { return vmap::transpose(*this, dim0, dim1); }
Tensor Tensor::permute(IntList dims) const { return vmap::permute(*this, dims); }
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  return vmap::flatten(*this, start_dim, end_dim);
}
Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return vmap::movedim(*this, source, destination);
}
Tensor Tensor::movedim(IntList source, IntList destination) const {
  return vmap::movedim(*this, source, destination);
}
Tensor Tensor::triu(int64_t diagonal) const { return vmap::triu(*this, diagonal); }
Tensor Tensor::tril(int64_t diagonal) const { return vmap::tril(*this, diagonal); }

Tensor Tensor::sum() const { return vmap::sum(*this); }
Tensor Tensor::sum(IntList dims, bool keepdim) const { return vmap::sum(*this, dims, keepdim); }
Tensor Tensor::mean() const { return vmap::mean(*this); }
Tensor Tensor::mean(IntList dims, bool keepdim) const { return vmap::mean(*this, dims, keepdim); }
Tensor Tensor::amax(IntList dims, bool keepdim) const { return vmap::amax(*this, dims, keepdim); }
Tensor Tensor::amin(IntList dims, bool keepdim) const { return vmap::amin(*this, dims, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return vmap::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return vmap::argmin(*this, dim, keepdim);
}
Tensor Tensor::any() const { return vmap::any(*this); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return vmap::any(*this, dim, keepdim); }
Tensor Tensor::all() const { return vmap::all(*this); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return vmap::all(*this, dim, keepdim); }
Tensor Tensor::softmax(int64_t dim) const { return vmap::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const { return vmap::log_softmax(*this, dim); }

Tensor Tensor::matmul(const Tensor& other) const { return vmap::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return vmap::mm(*this, other); }
Tensor Tensor::mv(const Tensor& vec) const { return vmap::mv(*this, vec); }
Tensor Tensor::bmm(const Tensor& other) const { return vmap::bmm(*this, other); }
Tensor Tensor::dot(const Tensor& other) const { return vmap::dot(*this, other); }

#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) \
  Tensor Tensor::name() const { return vmap::name(*this); }
#define VMAP_BINARY_OP(name, Functor, domain)                                           \
  Tensor Tensor::name(const Tensor& other) const { return vmap::name(*this, other); } \
  Tensor Tensor::name(Scalar other) const { return vmap::name(*this, other); }
#include <vmap/detail/pointwise_ops.def>
Tensor Tensor::abs() const { return vmap::abs(*this); }
Tensor Tensor::neg() const { return vmap::neg(*this); }
Tensor Tensor::logical_not() const { return vmap::logical_not(*this); }
Tensor Tensor::pow(const Tensor& exponent) const { return vmap::pow(*this, exponent); }
Tensor Tensor::pow(Scalar exponent) const { return vmap::pow(*this, exponent); }
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return vmap::clamp(*this, min, max);
}
Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  return vmap::clamp(*this, min, max);
}
Tensor Tensor::add(const Tensor& other, Scalar alpha) const { return vmap::add(*this, other, alpha); }
Tensor Tensor::add(Scalar other, Scalar alpha) const { return vmap::add(*this, other, alpha); }
Tensor Tensor::sub(const Tensor& other, Scalar alpha) const { return vmap::sub(*this, other, alpha); }
Tensor Tensor::sub(Scalar other, Scalar alpha) const { return vmap::sub(*this, other, alpha); }
Tensor Tensor::mul(const Tensor& other) const { return vmap::mul(*this, other); }
Tensor Tensor::mul(Scalar other) const { return vmap::mul(*this, other); }
Tensor Tensor::div(const Tensor& other) const { return vmap::div(*this, other); }
Tensor Tensor::div(Scalar other) const { return vmap::div(*this, other); }
Tensor Tensor::maximum(const Tensor& other) const { return vmap::maximum(*this, other); }
Tensor Tensor::minimum(const Tensor& other) const { return vmap::minimum(*this, other); }
Tensor Tensor::logical_and(const Tensor& other) const { return vmap::logical_and(*this, other); }
Tensor Tensor::logical_or(const Tensor& other) const { return vmap::logical_or(*this, other); }

}  // namespace vmap
