// What a scalar kernel reads and writes of one example's tensors: vb::Elements and
// vb::WritableElements (Note [Element reads] and Note [Element stores] in fused_scalar.hpp),
// Tensor's operator[], item<T>() and element assignment on the tensor's own data, dtype and
// strides, with its bounds, conversions and errors.
#pragma once

#include <vmap/batched.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace vmap::batched {

namespace detail {
[[noreturn]] void fail_element_select_0dim();
[[noreturn]] void fail_element_index(int64_t index, int64_t size);
[[noreturn]] void fail_element_item(int64_t numel);
// The element type of the dtype that holds a C++ scalar of type T (cpp_dtype's).
template <class T>
using HeldAs = std::conditional_t<
    std::is_same_v<T, bool>, bool,
    std::conditional_t<std::is_floating_point_v<T>,
                       std::conditional_t<(sizeof(T) <= 4), float, double>,
                       std::conditional_t<(sizeof(T) <= 4 && std::is_signed_v<T>), int32_t,
                                          int64_t>>>;
}  // namespace detail

// One example's view of a tensor a scalar kernel reads element by element (Note [Element
// reads]): Tensor's operator[] and item<T>() on the tensor's own data, dtype and strides.
class Elements {
 public:
  Elements(const char* data, Dtype dtype, int64_t dims, const int64_t* sizes,
           const int64_t* byte_strides)
      : data_(data), dtype_(dtype), dims_(dims), sizes_(sizes), strides_(byte_strides) {}

  // select(0, index), as Tensor::operator[](int64_t).
  Elements operator[](int64_t index) const {
    // An index in [0, size): one unsigned compare in the kernel's loop.
    if (dims_ == 0 || static_cast<uint64_t>(index) >= static_cast<uint64_t>(sizes_[0]))
        [[unlikely]]
      index = checked_index(index);
    return Elements(data_ + index * strides_[0], dtype_, dims_ - 1, sizes_ + 1, strides_ + 1);
  }
  // Tensor::item<T>(): the one element, converted through vmap's Scalar, checked, as
  // item<T>() does.
  template <vmap::detail::Arithmetic T>
  T item() const {
    // The element read as the type it has (a float tensor's item<float>()): one compare and
    // a load in the kernel's loop, the dispatch below only for the other dtypes.
    if constexpr (std::is_same_v<T, detail::HeldAs<T>>)
      if (dims_ == 0 && dtype_ == detail::cpp_dtype<T>()) [[likely]]
        return converted<T, T>();
    return dispatched<T>();
  }

  const char* data() const { return data_; }
  Dtype dtype() const { return dtype_; }
  int64_t dim() const { return dims_; }
  const int64_t* sizes() const { return sizes_; }
  const int64_t* byte_strides() const { return strides_; }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d = 0; d < dims_; ++d) n *= sizes_[d];
    return n;
  }

 private:
  // A negative index from the end, else the error Tensor::operator[] raises.
  int64_t checked_index(int64_t index) const {
    if (dims_ == 0) detail::fail_element_select_0dim();
    const int64_t size = sizes_[0];
    if (index < -size || index >= size) detail::fail_element_index(index, size);
    return index + size;
  }
  template <class T>
  T dispatched() const {
    if (dims_ != 0 && numel() != 1) detail::fail_element_item(numel());
    switch (dtype_) {
      case Dtype::Float32: return converted<float, T>();
      case Dtype::Float64: return converted<double, T>();
      case Dtype::Int32: return converted<int32_t, T>();
      case Dtype::Int64: return converted<int64_t, T>();
      case Dtype::Bool: return converted<bool, T>();
    }
    __builtin_unreachable();
  }
  template <class Held, class T>
  T converted() const {
    Held value;
    std::memcpy(&value, data_, sizeof(Held));
    if constexpr (std::is_same_v<Held, T>)
      return value;  // what the conversion gives: itself
    else
      return vmap::detail::Scalar(value).template checked_to<T>("item");
  }

  const char* data_;
  Dtype dtype_;
  int64_t dims_;
  const int64_t* sizes_;
  const int64_t* strides_;  // in bytes
};

// One example's own slot of a tensor a scalar kernel stores into (Note [Element stores]):
// Elements whose `e[k] = v` writes as Tensor's `t[k] = v` does, fill_ of a number (converted,
// checked, as fill_ converts it) or copy_ of an element, and throws the same vmap::Error for
// an index out of range. The tool passes one only for a slot no other example writes.
class WritableElements : public Elements {
 public:
  // A view of a writable tensor's elements (the kernel's operand, a slot of the output).
  explicit WritableElements(const Elements& e) : Elements(e) {}

  WritableElements operator[](int64_t index) const {
    return WritableElements(Elements::operator[](index));
  }
  template <vmap::detail::Arithmetic T>
  const WritableElements& operator=(T value) const {
    // A float stored into a float tensor: one compare and a store in the kernel's loop.
    if constexpr (std::is_same_v<T, detail::HeldAs<T>>)
      if (dim() == 0 && dtype() == detail::cpp_dtype<T>()) [[likely]] {
        std::memcpy(written(), &value, sizeof value);
        return *this;
      }
    put(vmap::detail::Scalar(value), /*checked=*/true);
    return *this;
  }
  // `out[i][k] = input[i][j]`: copy_ of the element (a gather's store).
  const WritableElements& operator=(const Elements& from) const {
    // One element of the same dtype (a gather): a copy of its bytes, inline.
    switch (dim() == 0 && from.dim() == 0 && dtype() == from.dtype()
                ? vmap::detail::element_size(dtype())
                : 0) {
      case 1: std::memcpy(written(), from.data(), 1); break;
      case 4: std::memcpy(written(), from.data(), 4); break;
      case 8: std::memcpy(written(), from.data(), 8); break;
      default: copy(from);
    }
    return *this;
  }
  const WritableElements& operator=(const WritableElements& from) const {
    return *this = static_cast<const Elements&>(from);
  }

 private:
  // The tool makes a WritableElements only of the tensor the loop as written stores into.
  char* written() const { return const_cast<char*>(data()); }
  // Each element `value`, converted as fill_ converts a number (checked: a value the dtype
  // cannot hold raises) or as copy_ converts an element (a plain conversion).
  void put(vmap::detail::Scalar value, bool checked) const;
  void copy(const Elements& from) const;
};

}  // namespace vmap::batched
