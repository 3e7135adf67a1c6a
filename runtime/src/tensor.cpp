// Tensor internals: geometry, allocation, validation helpers, and the Tensor members that
// are properties rather than ops.
#include "internal.hpp"
#include "../cuda/device_ops.hpp"

#include <algorithm>
#include <cstdint>

namespace vmap {
namespace detail {

std::atomic<int64_t> op_counter{0};
int64_t op_count() { return op_counter.load(std::memory_order_relaxed); }

void Dims::assign(IntList list) {
  if (list.size() > max_dims) fail("tensor", "at most ", max_dims, " dims are supported, got ", list.size());
  std::copy(list.begin(), list.end(), values_.begin());
  size_ = static_cast<uint8_t>(list.size());
}
void Dims::push_back(int64_t value) {
  if (size_ == max_dims) fail("tensor", "at most ", max_dims, " dims are supported");
  values_[size_++] = value;
}
void Dims::resize(size_t size, int64_t value) {
  if (size > max_dims) fail("tensor", "at most ", max_dims, " dims are supported, got ", size);
  for (size_t i = size_; i < size; ++i) values_[i] = value;
  size_ = static_cast<uint8_t>(size);
}
void Dims::insert(size_t position, int64_t value) {
  push_back(0);
  std::copy_backward(values_.begin() + position, values_.begin() + size_ - 1,
                     values_.begin() + size_);
  values_[position] = value;
}
void Dims::erase(size_t position) {
  std::copy(values_.begin() + position + 1, values_.begin() + size_, values_.begin() + position);
  --size_;
}

void TensorImpl::refresh() {
  numel = 1;
  for (int64_t size : sizes) numel *= size;
  contiguous = true;
  if (numel == 0) return;
  int64_t expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) {
      contiguous = false;
      return;
    }
    expected *= sizes[d];
  }
}

void fail_undefined(const char* op) { fail(op, "undefined tensor"); }

Dims contiguous_strides(IntList sizes) {
  Dims strides;
  strides.resize(sizes.size());
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

int64_t checked_numel(const char* op, IntList sizes) {
  if (sizes.size() > max_dims)
    fail(op, "at most ", max_dims, " dims are supported, got ", sizes.size());
  int64_t numel = 1;
  for (int64_t size : sizes) {
    if (size < 0) fail(op, "negative dimension ", size, " in shape ", shape_str(sizes));
    if (__builtin_mul_overflow(numel, size, &numel) || numel > (int64_t{1} << 48))
      fail(op, "shape ", shape_str(sizes), " is too large");
  }
  return numel;
}

namespace {
std::shared_ptr<TensorImpl> new_impl(std::shared_ptr<Storage> storage, IntList sizes,
                                     int64_t offset, Dtype dtype) {
  note_op();
  auto impl = std::allocate_shared<TensorImpl>(PoolAllocator<TensorImpl>());
  impl->storage = std::move(storage);
  impl->sizes.assign(sizes);
  impl->offset = offset;
  impl->dtype = dtype;
  return impl;
}
}  // namespace

Tensor make_tensor(std::shared_ptr<Storage> storage, IntList sizes, IntList strides,
                   int64_t offset, Dtype dtype) {
  auto impl = new_impl(std::move(storage), sizes, offset, dtype);
  impl->strides.assign(strides);
  impl->refresh();
  return Tensor(std::move(impl));
}

// The hot path of every op's result: numel is known and the layout contiguous (no refresh).
Tensor empty_tensor(IntList sizes, Dtype dtype, Device device, const char* op) {
  const int64_t numel = checked_numel(op, sizes);
  const auto nbytes = static_cast<size_t>(numel * element_size(dtype));  // numel <= 2^48
  auto impl = new_impl(allocate_storage(nbytes, device, op), sizes, 0, dtype);
  impl->strides = contiguous_strides(sizes);
  impl->numel = numel;
  impl->contiguous = true;
  return Tensor(std::move(impl));
}

namespace {
thread_local const Tensor* result_destination = nullptr;
}  // namespace

ResultInto::ResultInto(const Tensor& destination) : outer_(result_destination) {
  result_destination = &destination;
}
ResultInto::~ResultInto() { result_destination = outer_; }

Tensor result_tensor(const char* op, IntList sizes, Dtype dtype, Device device,
                     std::initializer_list<const Tensor*> reads) {
  if (const Tensor* into = result_destination) {
    const TensorImpl& impl = impl_of(*into);
    const auto read = [into](const Tensor* input) { return input && overlaps(*into, *input); };
    if (impl.contiguous && impl.dtype == dtype && impl.device() == device &&
        IntList(impl.sizes) == sizes && std::ranges::none_of(reads, read)) {
      result_destination = nullptr;  // the first fitting op only
      note_op();
      return *into;
    }
  }
  return empty_tensor(sizes, dtype, device, op);
}

Tensor make_view(const Tensor& base, IntList sizes, IntList strides, int64_t offset) {
  const TensorImpl& impl = impl_of(base);
  return make_tensor(impl.storage, sizes, strides, offset, impl.dtype);
}

Tensor scalar_tensor(Scalar value, Dtype dtype, Device device) {
  Tensor result = empty_tensor({}, dtype, device);
  visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    *result.unsafe_impl()->data_as<T>() = value.to<T>();
  });
  return result;
}

void check_convertible(const char* op, Scalar value, Dtype dtype) {
  visit_dtype(dtype, [&]<class T>(std::type_identity<T>) { (void)value.checked_to<T>(op); });
}

bool conversion_can_overflow(Dtype from, Dtype to) {
  return (is_floating(from) && is_integral(to)) || (from == kFloat64 && to == kFloat32) ||
         (from == kInt64 && to == kInt32);
}

void check_items_convertible(const char* op, const Tensor& values, Dtype dtype) {
  const Dtype from = values.dtype();
  if (!conversion_can_overflow(from, dtype)) return;
  const Tensor host = values.to(kCPU).contiguous();
  visit_dtype(from, [&]<class From>(std::type_identity<From>) {
    const From* data = host.data_ptr<From>();
    for (int64_t k = 0; k < host.numel(); ++k) check_convertible(op, Scalar(data[k]), dtype);
  });
}

int64_t wrap_dim(const char* op, int64_t dim, int64_t rank) {
  const int64_t range = std::max<int64_t>(rank, 1);
  if (dim < -range || dim >= range)
    fail(op, "dimension out of range (expected to be in range of [", -range, ", ", range - 1,
         "], but got ", dim, ")");
  return dim < 0 ? dim + range : dim;
}

Dims broadcast_shapes(const char* op, IntList a, IntList b) {
  Dims result;
  const size_t rank = std::max(a.size(), b.size());
  result.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t size_a = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t size_b = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (size_a != size_b && size_a != 1 && size_b != 1)
      fail(op, "the size of tensor a (", size_a, ") must match the size of tensor b (", size_b,
           ") at non-singleton dimension ", rank - 1 - i, "; shapes ", shape_str(a), " and ",
           shape_str(b));
    result[rank - 1 - i] = size_a == 1 ? size_b : size_a;
  }
  checked_numel(op, result);  // two expanded views can broadcast to more than int64 elements
  return result;
}

bool broadcastable_to(IntList sizes, IntList target) {
  if (sizes.size() > target.size()) return false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t size = sizes[sizes.size() - 1 - i];
    if (size != 1 && size != target[target.size() - 1 - i]) return false;
  }
  return true;
}

void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  if (a.device() != b.device())
    fail(op, "expected all tensors on the same device, got ", a.device(), " and ", b.device());
}

void fail_not_cpu(const char* op) { fail(op, "CUDA tensors are not supported by the CPU backend"); }

void check_writable(const char* op, const Tensor& tensor) {
  const TensorImpl& impl = impl_of(tensor, op);
  for (size_t d = 0; d < impl.sizes.size(); ++d)
    if (impl.strides[d] == 0 && impl.sizes[d] > 1)
      fail(op, "unsupported operation: more than one element of the written-to tensor (shape ",
           shape_str(impl.sizes), ") refers to a single memory location");
}

bool overlaps(const Tensor& a, const Tensor& b) {
  const TensorImpl& x = impl_of(a);
  const TensorImpl& y = impl_of(b);
  // By address, not by storage: two from_blob tensors over one buffer (or from_dlpack of a
  // tensor's own memory) share bytes through storages of their own.
  if (x.numel == 0 || y.numel == 0 || x.device() != y.device()) return false;
  auto extent = [](const TensorImpl& impl) {
    const auto first = reinterpret_cast<std::uintptr_t>(impl.data());
    int64_t last = 0;
    for (size_t d = 0; d < impl.sizes.size(); ++d) last += (impl.sizes[d] - 1) * impl.strides[d];
    return std::pair{first, first + static_cast<std::uintptr_t>((last + 1) *
                                                                 element_size(impl.dtype))};
  };
  const auto [x_begin, x_end] = extent(x);
  const auto [y_begin, y_end] = extent(y);
  return x_begin < y_end && y_begin < x_end;
}

void fail_data_ptr(Dtype actual, Dtype requested) {
  fail("data_ptr", "expected scalar type ", actual, " but requested ", requested);
}

}  // namespace detail

using detail::impl_of;

Tensor::Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}

Tensor& Tensor::operator=(const Tensor& src) && {
  copy_(src);
  return *this;
}
Tensor& Tensor::operator=(Tensor&& src) && {
  copy_(src);
  return *this;
}
Tensor& Tensor::operator=(Scalar value) && {
  fill_(value);
  return *this;
}

int64_t Tensor::dim() const { return static_cast<int64_t>(impl_of(*this, "dim").sizes.size()); }
int64_t Tensor::size(int64_t dim) const {
  const auto& impl = impl_of(*this, "size");
  return impl.sizes[detail::wrap_dim("size", dim, static_cast<int64_t>(impl.sizes.size()))];
}
detail::IntList Tensor::sizes() const { return impl_of(*this, "sizes").sizes; }
int64_t Tensor::stride(int64_t dim) const {
  const auto& impl = impl_of(*this, "stride");
  return impl.strides[detail::wrap_dim("stride", dim, static_cast<int64_t>(impl.sizes.size()))];
}
detail::IntList Tensor::strides() const { return impl_of(*this, "strides").strides; }
int64_t Tensor::storage_offset() const { return impl_of(*this, "storage_offset").offset; }
int64_t Tensor::numel() const { return impl_of(*this, "numel").numel; }
int64_t Tensor::element_size() const { return detail::element_size(dtype()); }
Dtype Tensor::dtype() const { return impl_of(*this, "dtype").dtype; }
Device Tensor::device() const { return impl_of(*this, "device").device(); }
TensorOptions Tensor::options() const { return TensorOptions(dtype()).device(device()); }
bool Tensor::is_contiguous() const { return impl_of(*this, "is_contiguous").contiguous; }
void* Tensor::raw_data() const { return impl_of(*this, "data_ptr").data(); }

Tensor Tensor::contiguous() const {
  return impl_of(*this, "contiguous").contiguous ? *this : clone();
}

Tensor Tensor::clone() const {
  const auto& impl = impl_of(*this, "clone");
  Tensor result = detail::empty_tensor(impl.sizes, impl.dtype, impl.device());
  result.copy_(*this);
  return result;
}

Tensor Tensor::to(Device device) const {
  if (impl_of(*this, "to").device() == device) return *this;
  return detail::to_device(*this, device);
}

detail::Scalar Tensor::item() const {
  const auto& impl = impl_of(*this, "item");
  if (impl.numel != 1)
    detail::fail("item", "a Tensor with ", impl.numel, " elements cannot be converted to Scalar");
  if (impl.device() != kCPU) return to(kCPU).item();
  return detail::visit_dtype(impl.dtype, [&]<class T>(std::type_identity<T>) {
    return detail::Scalar(*impl.data_as<T>());
  });
}

}  // namespace vmap
