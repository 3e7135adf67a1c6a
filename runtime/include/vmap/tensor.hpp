// vmap::Tensor and the free functions of SPEC section 4, with LibTorch's signatures and
// defaults. Members forward to the free functions of the same name.
#pragma once

#include <vmap/types.hpp>

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

namespace vmap {

class Tensor;
namespace indexing {
class TensorIndex;
}
namespace detail {
struct TensorImpl;
[[noreturn]] void fail_data_ptr(Dtype actual, Dtype requested);
// Throws as `values[k].item<T>()` (T of `dtype`) would for the first element T cannot hold:
// the batched item<T>() converts all examples' values at once and raises the same error.
void check_items_convertible(const char* op, const Tensor& values, Dtype dtype);
// Whether some value of `from` is out of `to`'s range (float to int, double to float, int64
// to int32): the conversions check_items_convertible checks.
bool conversion_can_overflow(Dtype from, Dtype to);
// Throws unless `tensor` can be read through accessor<T, dims>(): a CPU tensor of `dtype`
// with `dims` dims.
void check_accessor(const Tensor& tensor, Dtype dtype, size_t dims);
// Throws as bernoulli does unless every p is a probability (a floating tensor's elements, or
// a number, in [0, 1]); the batched bernoulli checks every example's at once.
void check_probabilities(const char* op, const Tensor& p);
void check_probabilities(const char* op, double p);
}  // namespace detail

// LibTorch's TensorAccessor: `a[i][j]` reads and writes element (i, j) of an N-d CPU tensor
// through its strides, without bounds checks (as LibTorch's). It borrows the tensor's sizes
// and strides: the tensor must outlive it (accessor() on a temporary does not compile).
template <class T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  decltype(auto) operator[](int64_t i) const {
    if constexpr (N == 1) return static_cast<T&>(data_[i * strides_[0]]);
    else return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
  }
  int64_t size(int64_t dim) const { return sizes_[dim]; }
  int64_t stride(int64_t dim) const { return strides_[dim]; }
  detail::IntList sizes() const { return {sizes_, N}; }
  detail::IntList strides() const { return {strides_, N}; }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

// A strided n-d array. Copies are shallow (they share storage, like LibTorch); `clone()` is
// deep. Assigning to an lvalue Tensor rebinds it; assigning to a temporary (`t[i] = other`,
// `t[i] = 3.0`) writes into the elements it views.
class Tensor {
  using Scalar = detail::Scalar;
  using IntList = detail::IntList;

 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl);
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  ~Tensor() = default;

  Tensor& operator=(const Tensor& other) & = default;
  Tensor& operator=(Tensor&& other) & noexcept = default;
  Tensor& operator=(const Tensor& src) &&;  // copy_(src)
  Tensor& operator=(Tensor&& src) &&;       // copy_(src)
  Tensor& operator=(Scalar value) &&;       // fill_(value)

  // --- properties
  bool defined() const { return impl_ != nullptr; }
  int64_t dim() const;
  int64_t size(int64_t dim) const;
  IntList sizes() const;
  int64_t stride(int64_t dim) const;
  IntList strides() const;
  int64_t storage_offset() const;
  int64_t numel() const;
  int64_t element_size() const;
  Dtype dtype() const;
  Dtype scalar_type() const { return dtype(); }
  Device device() const;
  TensorOptions options() const;
  bool is_contiguous() const;
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  detail::TensorImpl* unsafe_impl() const { return impl_.get(); }

  // --- conversions and element access
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor to(Dtype dtype) const;
  Tensor to(Device device) const;
  Scalar item() const;
  // Checked as LibTorch's: NaN or 3e9 as an int throws (Scalar::checked_to).
  template <detail::Arithmetic T>
  T item() const {
    return item().checked_to<T>("item");
  }
  // Checked: T must be the element type of dtype() (LibTorch throws likewise).
  template <class T>
  T* data_ptr() const {
    if (dtype() != detail::dtype_of<std::remove_const_t<T>>)
      detail::fail_data_ptr(dtype(), detail::dtype_of<std::remove_const_t<T>>);
    return static_cast<T*>(raw_data());
  }
  void* raw_data() const;  // address of the first element (storage + offset)
  // LibTorch's accessor: checked dims, dtype and device (vmap::Error naming "accessor").
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    detail::check_accessor(*this, detail::dtype_of<std::remove_const_t<T>>, N);
    return TensorAccessor<T, N>(static_cast<T*>(raw_data()), sizes().data(), strides().data());
  }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // --- views (share storage) and indexing
  Tensor operator[](int64_t index) const;  // select(0, index)
  Tensor operator[](const Tensor& index) const;  // integer tensor: index_select along dim 0
  Tensor select(int64_t dim, int64_t index) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor expand(IntList sizes) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor reshape(IntList sizes) const;
  Tensor view(IntList sizes) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor permute(IntList dims) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor movedim(IntList source, IntList destination) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor tril(int64_t diagonal = 0) const;

  // --- reductions
  Tensor sum() const;
  Tensor sum(IntList dims, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(IntList dims, bool keepdim = false) const;
  Tensor amax(IntList dims = {}, bool keepdim = false) const;
  Tensor amin(IntList dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  // scans, statistics, masking (SPEC section 6; runtime/src/ops_composite.cpp)
  Tensor cumsum(int64_t dim) const;
  Tensor cumprod(int64_t dim) const;
  Tensor logsumexp(IntList dims, bool keepdim = false) const;
  Tensor var(IntList dims, bool unbiased = true, bool keepdim = false) const;
  template <detail::DimInteger Dim>  // x.var(0): dim 0 (detail::DimInteger)
  Tensor var(Dim dim, bool unbiased = true, bool keepdim = false) const {
    return var(IntList(static_cast<int64_t>(dim)), unbiased, keepdim);
  }
  Tensor var(bool unbiased = true) const;
  Tensor std(IntList dims, bool unbiased = true, bool keepdim = false) const;
  template <detail::DimInteger Dim>
  Tensor std(Dim dim, bool unbiased = true, bool keepdim = false) const {
    return std(IntList(static_cast<int64_t>(dim)), unbiased, keepdim);
  }
  Tensor std(bool unbiased = true) const;
  Tensor norm(Scalar p, IntList dims, bool keepdim = false) const;
  Tensor norm(Scalar p = 2) const;
  Tensor masked_fill(const Tensor& mask, Scalar value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;  // value must be 0-d
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor lerp(const Tensor& end, Scalar weight) const;
  // sorting (SPEC section 6; runtime/src/ops_sort.cpp): (values, int64 indices)
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;

  // --- linear algebra
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor bmm(const Tensor& other) const;
  Tensor dot(const Tensor& other) const;

  // --- pointwise
  // the ops of the pointwise op list (Note [Pointwise op list])
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) Tensor name() const;
#define VMAP_BINARY_OP(name, Functor, domain) \
  Tensor name(const Tensor& other) const;     \
  Tensor name(Scalar other) const;
#include <vmap/detail/pointwise_ops.def>
  Tensor abs() const;
  Tensor neg() const;
  Tensor logical_not() const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(Scalar exponent) const;
  Tensor clamp(std::optional<Scalar> min = std::nullopt,
               std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {}) const;
  Tensor add(const Tensor& other, Scalar alpha = 1) const;
  Tensor add(Scalar other, Scalar alpha = 1) const;
  Tensor sub(const Tensor& other, Scalar alpha = 1) const;
  Tensor sub(Scalar other, Scalar alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(Scalar other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(Scalar other) const;
  Tensor div(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor div(Scalar other, std::optional<std::string_view> rounding_mode) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;

  // --- in place (write into the viewed elements; the result must be castable to dtype())
  Tensor& copy_(const Tensor& src) const;
  Tensor& fill_(Scalar value) const;
  Tensor& fill_(const Tensor& value) const;  // value must be 0-d
  Tensor& zero_() const;
  Tensor& operator+=(const Tensor& other) const;
  Tensor& operator+=(Scalar other) const;
  Tensor& operator-=(const Tensor& other) const;
  Tensor& operator-=(Scalar other) const;
  Tensor& operator*=(const Tensor& other) const;
  Tensor& operator*=(Scalar other) const;
  Tensor& operator/=(const Tensor& other) const;
  Tensor& operator/=(Scalar other) const;

  // --- LibTorch's multi-dim indexing (torch::indexing; vmap::indexing below): integers,
  // Slice, None, Ellipsis, and one long or bool tensor. Without a tensor index the result
  // is a view; index_put_ writes through the same positions (value broadcast to them).
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                     const Tensor& value) const;
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, Scalar value) const;
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, Scalar value) const;

 private:
  Tensor& self() const { return const_cast<Tensor&>(*this); }
  std::shared_ptr<detail::TensorImpl> impl_;
};

using TensorList = std::vector<Tensor>;

// The index kinds of Tensor::index / index_put_, as torch::indexing spells them:
//   x.index({Slice(1, None), 0, None, Ellipsis, mask})
namespace indexing {
inline constexpr std::nullopt_t None = std::nullopt;  // a new dim of size 1 (unsqueeze)
struct EllipsisIndexType {};
inline constexpr EllipsisIndexType Ellipsis;  // as many whole dims as the others leave
// [start, stop) every step-th, Python's rules: negative bounds count from the end, bounds
// past the ends are clamped; step > 0.
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start.value_or(0)),
        stop_(stop.value_or(std::numeric_limits<int64_t>::max())),
        step_(step.value_or(1)) {}
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t start_, stop_, step_;
};

class TensorIndex {
 public:
  enum class Kind : int8_t { None, Ellipsis, Integer, Slice, Tensor };
  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}
  TensorIndex(EllipsisIndexType) : kind_(Kind::Ellipsis) {}
  TensorIndex(const char* ellipsis);  // "..." as in LibTorch
  template <detail::DimInteger I>
  TensorIndex(I integer) : kind_(Kind::Integer), integer_(static_cast<int64_t>(integer)) {}
  // LibTorch's `true`/`false` indices (a new dim of size 1 or 0) are not supported: a bool
  // here is almost always a mistake for an integer.
  TensorIndex(bool) = delete;
  TensorIndex(Slice slice) : kind_(Kind::Slice), slice_(slice) {}
  TensorIndex(Tensor tensor) : kind_(Kind::Tensor), tensor_(std::move(tensor)) {}

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
  Tensor tensor_;
};
}  // namespace indexing

// --- pointwise
Tensor add(const Tensor& self, const Tensor& other, detail::Scalar alpha = 1);
Tensor add(const Tensor& self, detail::Scalar other, detail::Scalar alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, detail::Scalar alpha = 1);
Tensor sub(const Tensor& self, detail::Scalar other, detail::Scalar alpha = 1);
Tensor mul(const Tensor& self, const Tensor& other);
Tensor mul(const Tensor& self, detail::Scalar other);
Tensor div(const Tensor& self, const Tensor& other);  // true division: integers give float32
Tensor div(const Tensor& self, detail::Scalar other);
// rounding_mode "trunc" (toward zero) or "floor" (floor_divide) keeps the promoted dtype;
// std::nullopt is true division (runtime/src/ops_composite.cpp).
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode);
Tensor div(const Tensor& self, detail::Scalar other,
           std::optional<std::string_view> rounding_mode);
Tensor neg(const Tensor& self);
Tensor abs(const Tensor& self);
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) Tensor name(const Tensor& self);
#define VMAP_BINARY_OP(name, Functor, domain)          \
  Tensor name(const Tensor& self, const Tensor& other); \
  Tensor name(const Tensor& self, detail::Scalar other);
#include <vmap/detail/pointwise_ops.def>
Tensor pow(const Tensor& self, const Tensor& exponent);
Tensor pow(const Tensor& self, detail::Scalar exponent);
Tensor pow(detail::Scalar self, const Tensor& exponent);
Tensor maximum(const Tensor& self, const Tensor& other);
Tensor minimum(const Tensor& self, const Tensor& other);
Tensor clamp(const Tensor& self, std::optional<detail::Scalar> min = std::nullopt,
             std::optional<detail::Scalar> max = std::nullopt);
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min,
             const std::optional<Tensor>& max = {});
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor where(const Tensor& condition, detail::Scalar self, const Tensor& other);
Tensor where(const Tensor& condition, const Tensor& self, detail::Scalar other);
Tensor where(const Tensor& condition, detail::Scalar self, detail::Scalar other);
Tensor logical_and(const Tensor& self, const Tensor& other);
Tensor logical_or(const Tensor& self, const Tensor& other);
Tensor logical_not(const Tensor& self);

// --- reductions (runtime/src/ops_reduce.cpp)
Tensor sum(const Tensor& self);
Tensor sum(const Tensor& self, detail::IntList dims, bool keepdim = false);
Tensor mean(const Tensor& self);
Tensor mean(const Tensor& self, detail::IntList dims, bool keepdim = false);
Tensor amax(const Tensor& self, detail::IntList dims = {}, bool keepdim = false);
Tensor amin(const Tensor& self, detail::IntList dims = {}, bool keepdim = false);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
              bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
              bool keepdim = false);
Tensor any(const Tensor& self);
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor all(const Tensor& self);
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor softmax(const Tensor& self, int64_t dim);
Tensor log_softmax(const Tensor& self, int64_t dim);

// --- scans, statistics, masking (SPEC section 6; runtime/src/ops_composite.cpp)
Tensor cumsum(const Tensor& self, int64_t dim);  // integer and bool inputs give int64
Tensor cumprod(const Tensor& self, int64_t dim);
Tensor logsumexp(const Tensor& self, detail::IntList dims, bool keepdim = false);
Tensor var(const Tensor& self, detail::IntList dims, bool unbiased = true, bool keepdim = false);
template <detail::DimInteger Dim>  // var(x, 0): dim 0 (detail::DimInteger)
Tensor var(const Tensor& self, Dim dim, bool unbiased = true, bool keepdim = false) {
  return self.var(dim, unbiased, keepdim);
}
Tensor var(const Tensor& self, bool unbiased = true);
Tensor std(const Tensor& self, detail::IntList dims, bool unbiased = true, bool keepdim = false);
template <detail::DimInteger Dim>
Tensor std(const Tensor& self, Dim dim, bool unbiased = true, bool keepdim = false) {
  return self.std(dim, unbiased, keepdim);
}
Tensor std(const Tensor& self, bool unbiased = true);
Tensor norm(const Tensor& self, detail::Scalar p, detail::IntList dims, bool keepdim = false);
Tensor norm(const Tensor& self, detail::Scalar p = 2);
Tensor masked_fill(const Tensor& self, const Tensor& mask, detail::Scalar value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor lerp(const Tensor& start, const Tensor& end, detail::Scalar weight);
// --- sorting (SPEC section 6; runtime/src/ops_sort.cpp): values and int64 indices along dim,
// NaN larger than every number; ties keep their order.
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1,
                                bool largest = true, bool sorted = true);
// [..., num_classes] int64 of 0 and 1 from int64 class indices; -1 infers max + 1.
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);
// Activations with parameters (LibTorch: free functions only; floating inputs).
// approximate: "none" (x * Phi(x), by erf) or "tanh" (the tanh approximation).
Tensor gelu(const Tensor& self, std::string_view approximate = "none");
// log(1 + exp(beta * x)) / beta, x itself where beta * x > threshold.
Tensor softplus(const Tensor& self, detail::Scalar beta = 1, detail::Scalar threshold = 20);

// --- linear algebra (runtime/src/ops_linalg.cpp)
Tensor matmul(const Tensor& self, const Tensor& other);
Tensor mm(const Tensor& self, const Tensor& other);
Tensor mv(const Tensor& self, const Tensor& vec);
Tensor bmm(const Tensor& self, const Tensor& other);
Tensor dot(const Tensor& self, const Tensor& other);
Tensor linear(const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias = std::nullopt);

// --- indexing (runtime/src/ops_index.cpp)
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);

// --- shapes: views
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor squeeze(const Tensor& self);
Tensor squeeze(const Tensor& self, int64_t dim);
Tensor expand(const Tensor& self, detail::IntList sizes);
Tensor reshape(const Tensor& self, detail::IntList sizes);
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& self, detail::IntList dims);
Tensor movedim(const Tensor& self, int64_t source, int64_t destination);
Tensor movedim(const Tensor& self, detail::IntList source, detail::IntList destination);
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
// --- shapes: copies (runtime/src/ops_shape.cpp)
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
Tensor tril(const Tensor& self, int64_t diagonal = 0);

// --- factories. Default dtype float32; `full` and `arange` infer it from the numbers.
Tensor zeros(detail::IntList sizes, TensorOptions options = {});
Tensor ones(detail::IntList sizes, TensorOptions options = {});
Tensor full(detail::IntList sizes, detail::Scalar value, TensorOptions options = {});
Tensor empty(detail::IntList sizes, TensorOptions options = {});
Tensor zeros_like(const Tensor& self, TensorOptions options = {});
Tensor ones_like(const Tensor& self, TensorOptions options = {});
Tensor full_like(const Tensor& self, detail::Scalar value, TensorOptions options = {});
Tensor empty_like(const Tensor& self, TensorOptions options = {});
Tensor arange(detail::Scalar end, TensorOptions options = {});
Tensor arange(detail::Scalar start, detail::Scalar end, TensorOptions options = {});
Tensor arange(detail::Scalar start, detail::Scalar end, detail::Scalar step,
              TensorOptions options = {});
Tensor rand(detail::IntList sizes, TensorOptions options = {});
Tensor randn(detail::IntList sizes, TensorOptions options = {});
Tensor randint(int64_t high, detail::IntList sizes, TensorOptions options = kInt64);
Tensor randint(int64_t low, int64_t high, detail::IntList sizes, TensorOptions options = kInt64);
// self's shape (and dtype, device unless given): uniform on [0, 1) / standard normal.
Tensor rand_like(const Tensor& self, TensorOptions options = {});
Tensor randn_like(const Tensor& self, TensorOptions options = {});
// 1 with probability p (each element of p, in [0, 1]), else 0; p's shape and dtype.
Tensor bernoulli(const Tensor& p);
Tensor bernoulli(const Tensor& self, double p);  // self's shape and dtype
// Does not own `data`; the caller keeps it alive while the tensor (or a view of it) lives.
Tensor from_blob(void* data, detail::IntList sizes, TensorOptions options = {});
void manual_seed(uint64_t seed);

namespace detail {
// A nested braced list of numbers (LibTorch's TensorDataContainer): `tensor({{1, 2}, {3, 4}})`.
// Integer literals give int64, floating ones float32, bools bool (as LibTorch's C++ API).
class TensorData {
 public:
  template <Arithmetic T>
  TensorData(T value) : dtype_(dtype_of_literal<T>()), values_{Scalar(value)} {}
  TensorData(std::initializer_list<TensorData> nested);
  template <Arithmetic T>
  TensorData(const std::vector<T>& values)
      : sizes_{static_cast<int64_t>(values.size())}, dtype_(dtype_of_literal<T>()) {
    values_.assign(values.begin(), values.end());
  }

  const std::vector<int64_t>& sizes() const { return sizes_; }
  Dtype dtype() const { return dtype_; }
  const std::vector<Scalar>& values() const { return values_; }

 private:
  template <class T>
  static constexpr Dtype dtype_of_literal() {
    if constexpr (std::is_same_v<T, bool>) return kBool;
    else if constexpr (std::is_integral_v<T>) return kInt64;
    else return kFloat32;
  }
  std::vector<int64_t> sizes_;
  Dtype dtype_ = kFloat32;
  std::vector<Scalar> values_;
};
}  // namespace detail

Tensor tensor(detail::TensorData data, TensorOptions options = {});

// --- checks
bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);
bool equal(const Tensor& self, const Tensor& other);
// LibTorch 1.13's at::print format, e.g. " 1  2\n 3  4\n[ CPULongType{2,2} ]".
std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

// --- operators
Tensor operator-(const Tensor& self);
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, detail::Scalar b);
Tensor operator+(detail::Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, detail::Scalar b);
Tensor operator-(detail::Scalar a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, detail::Scalar b);
Tensor operator*(detail::Scalar a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, detail::Scalar b);
Tensor operator/(detail::Scalar a, const Tensor& b);
// remainder (the sign of the divisor); a number on the left takes the tensor's dtype first,
// as LibTorch's empty_like(b).fill_(a).remainder_(b).
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, detail::Scalar b);
Tensor operator%(detail::Scalar a, const Tensor& b);
// the comparisons of the pointwise op list
#define VMAP_COMPARISON_OP(name, Functor, symbol)              \
  Tensor operator symbol(const Tensor& a, const Tensor& b);    \
  Tensor operator symbol(const Tensor& a, detail::Scalar b);   \
  Tensor operator symbol(detail::Scalar a, const Tensor& b);
#include <vmap/detail/pointwise_ops.def>
// Bool tensors: logical and/or; integer tensors: bitwise (as LibTorch).
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator!(const Tensor& self);  // logical_not

namespace detail {
// Number of tensors made (op results and views) plus in-place ops run, since start: the
// batching-rule tests check that a batched call costs O(1) of these, whatever the batch.
int64_t op_count();
// C++ scalar semantics for batched code: integer division truncates toward zero (and `/` on
// floats is true division), remainder has the sign of the dividend.
Tensor div_trunc(const Tensor& a, const Tensor& b);
Tensor remainder_trunc(const Tensor& a, const Tensor& b);
// Whether a and b view overlapping bytes of one storage (rewritten code checks outputs vs
// inputs at run time with this, and falls back to the per-example loop when true).
bool overlaps(const Tensor& a, const Tensor& b);

// Note [Batched index_select]
// x[b].index_select(dim - 1, index[b]) for every example b of a batch-first `x` [B, ...]
// and `index` [B, k] (int64 or int32), as one indexed copy: the batching rule of
// index_select when both are batched. No expanded index, and an out-of-range index raises
// index_select's own message with the example's dim (what the per-example loop raises).
Tensor index_select_each(const Tensor& x, int64_t dim, const Tensor& index);

// Note [Results into a destination]
// While a ResultInto lives, the first op on this thread whose result has the destination's
// sizes, dtype and device (a contiguous tensor) computes it into the destination and returns
// the destination instead of a new tensor: a pointwise op (its caller makes sure that the
// destination overlaps none of its inputs), and the products (matmul, mm, bmm, linear) and
// gathers (gather, index_select), which check that it overlaps none of what they read. The
// fused evaluation (rules/src/batched/batched_fused.cpp) wraps the last op of a block in one, and a
// deferred non-pointwise call its whole call (Note [Deferred results] there), so the result
// lands in the user's `out` as hand-written `*_out` calls do, without a temporary and a
// copy. Only a hint: the caller copies a result that is not the destination (an op may
// return an input, or make its result some other way; an inner op of a composite one may
// take the destination first, as scratch).
class ResultInto {
 public:
  explicit ResultInto(const Tensor& destination);
  ~ResultInto();
  ResultInto(const ResultInto&) = delete;
  ResultInto& operator=(const ResultInto&) = delete;

 private:
  const Tensor* outer_;
};
}  // namespace detail

}  // namespace vmap
