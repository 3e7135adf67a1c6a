// Value types of the runtime's signatures: dtypes, devices, options, the error type, and the
// helper types `detail::Scalar` / `detail::IntList` that LibTorch calls Scalar / IntArrayRef.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <cmath>
#ifndef __CUDACC_RTC__  // host only: not in device programs (Note [Device programs of fused kernels])
#include <iosfwd>
#endif
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace vmap {

enum class Dtype : int8_t { Float32, Float64, Int32, Int64, Bool };
inline constexpr Dtype kFloat32 = Dtype::Float32;
inline constexpr Dtype kFloat64 = Dtype::Float64;
inline constexpr Dtype kInt32 = Dtype::Int32;
inline constexpr Dtype kInt64 = Dtype::Int64;
inline constexpr Dtype kBool = Dtype::Bool;
inline constexpr Dtype kFloat = kFloat32;
inline constexpr Dtype kDouble = kFloat64;
inline constexpr Dtype kInt = kInt32;
inline constexpr Dtype kLong = kInt64;
// LibTorch's short spellings (torch::kF32 ...).
inline constexpr Dtype kF32 = kFloat32;
inline constexpr Dtype kF64 = kFloat64;
inline constexpr Dtype kI32 = kInt32;
inline constexpr Dtype kI64 = kInt64;

enum class Device : int8_t { CPU, CUDA };
inline constexpr Device kCPU = Device::CPU;
inline constexpr Device kCUDA = Device::CUDA;

#ifndef __CUDACC_RTC__  // host only: not in device programs (Note [Device programs of fused kernels])
// Prints like LibTorch: "Float", "Double", "Int", "Long", "Bool"; "cpu", "cuda".
std::ostream& operator<<(std::ostream& out, Dtype dtype);
std::ostream& operator<<(std::ostream& out, Device device);
#endif

// Unset fields mean "the default" (float32 on the CPU) or, for *_like, "as the input".
class TensorOptions {
 public:
  constexpr TensorOptions() = default;
  constexpr TensorOptions(Dtype dtype) : dtype_(dtype) {}
  constexpr TensorOptions(Device device) : device_(device) {}

  constexpr TensorOptions dtype(Dtype dtype) const {
    TensorOptions options = *this;
    options.dtype_ = dtype;
    return options;
  }
  constexpr TensorOptions device(Device device) const {
    TensorOptions options = *this;
    options.device_ = device;
    return options;
  }
  constexpr std::optional<Dtype> dtype_opt() const { return dtype_; }
  constexpr std::optional<Device> device_opt() const { return device_; }
  constexpr Dtype dtype_or(Dtype fallback) const { return dtype_.value_or(fallback); }
  constexpr Device device_or(Device fallback) const { return device_.value_or(fallback); }

 private:
  std::optional<Dtype> dtype_;
  std::optional<Device> device_;
};

#ifndef __CUDACC_RTC__  // host only: not in device programs (Note [Device programs of fused kernels])
namespace detail {
// Note [Errors name the statement]
// A vmap::Error raised in a rewritten loop names the line of the user's file it came from
// ("model.cpp:42: matmul: shapes [3] and [5, 2]"), where the loop as written would stop in
// a debugger. The statement running on this thread is the one that clang-vmap's
// `vb::profile_line();` in front of each batched statement named: the mark the profiler
// times (Note [Profiled statements] in vmap/profile.hpp), from it to the next one or to the
// end of its vmap loop. parallel_for_each's items run under their caller's statement.
// Outside rewritten loops none runs, and messages are unchanged.
struct Statement {
  const char* file = nullptr;  // as the rewrite's #line directives name it; null: none
  unsigned line = 0;
};
inline thread_local Statement running_statement;
// "<file>:<line>: <message>" while a statement runs, else `message`.
std::string at_running_statement(const std::string& message);
}  // namespace detail

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message)
      : std::runtime_error(detail::at_running_statement(message)) {}
  explicit Error(const char* message) : Error(std::string(message)) {}
};
#endif

namespace detail {

template <class T>
concept Arithmetic = std::is_arithmetic_v<T>;
// An integer that is not a bool. LibTorch has var(int64_t dim) and var(bool unbiased); a C++
// `0` converts to both equally well, so the dim overloads take any such integer exactly and
// `x.var(0)` reduces dim 0 as in LibTorch, while `x.var(false)` stays the flag.
template <class T>
concept DimInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T>
struct DtypeOf;
template <> struct DtypeOf<float> { static constexpr Dtype value = kFloat32; };
template <> struct DtypeOf<double> { static constexpr Dtype value = kFloat64; };
template <> struct DtypeOf<int32_t> { static constexpr Dtype value = kInt32; };
template <> struct DtypeOf<int64_t> { static constexpr Dtype value = kInt64; };
template <> struct DtypeOf<bool> { static constexpr Dtype value = kBool; };
// The C++ type that stores elements of a dtype: dtype_of<T> and CppType<d> are inverses.
template <class T>
inline constexpr Dtype dtype_of = DtypeOf<T>::value;

constexpr int64_t element_size(Dtype dtype) {
  switch (dtype) {
    case Dtype::Float32: return 4;
    case Dtype::Float64: return 8;
    case Dtype::Int32: return 4;
    case Dtype::Int64: return 8;
    case Dtype::Bool: return 1;
  }
  return 1;
}
constexpr bool is_floating(Dtype dtype) { return dtype == kFloat32 || dtype == kFloat64; }
constexpr bool is_integral(Dtype dtype) { return dtype == kInt32 || dtype == kInt64; }

// A number passed to an op (LibTorch's Scalar): remembers whether it was a bool, an integer
// or a floating-point value, because ATen promotes them differently ("wrapped numbers").
class Scalar {
 public:
  enum class Kind : int8_t { Bool, Integral, Floating };

  constexpr Scalar() = default;
  template <Arithmetic T>
  constexpr Scalar(T value) {
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::Bool;
      integral_ = value ? 1 : 0;
    } else if constexpr (std::is_integral_v<T>) {
      kind_ = Kind::Integral;
      integral_ = static_cast<int64_t>(value);
    } else {
      kind_ = Kind::Floating;
      floating_ = static_cast<double>(value);
    }
  }

  constexpr Kind kind() const { return kind_; }
  constexpr bool is_bool() const { return kind_ == Kind::Bool; }
  constexpr bool is_integral() const { return kind_ == Kind::Integral; }
  constexpr bool is_floating() const { return kind_ == Kind::Floating; }
  // The dtype ATen gives the number as a wrapped tensor (before default-dtype mapping).
  constexpr Dtype dtype() const {
    return kind_ == Kind::Bool ? kBool : kind_ == Kind::Integral ? kInt64 : kFloat64;
  }

  template <Arithmetic T>
  constexpr T to() const {
    if (kind_ == Kind::Floating) {
      if constexpr (std::is_same_v<T, bool>) return floating_ != 0.0;
      return static_cast<T>(floating_);
    }
    if constexpr (std::is_same_v<T, bool>) return integral_ != 0;
    return static_cast<T>(integral_);
  }
  constexpr double to_double() const { return to<double>(); }
  constexpr int64_t to_int64() const { return to<int64_t>(); }
  constexpr bool to_bool() const { return to<bool>(); }
  // The value as T where LibTorch converts it checked (c10::checked_convert: item<T>(),
  // fill_, full, masked_fill, Scalar::toInt...): a value T cannot hold throws vmap::Error
  // "<op>: value cannot be converted to type int without overflow", where a plain cast
  // would wrap or be undefined behaviour. As in LibTorch, inf and NaN convert to floating
  // types (only finite values out of range overflow), and bool takes any value.
  template <Arithmetic T>
  T checked_to(const char* op) const {
    if (!fits<T>()) overflow(op, std::is_floating_point_v<T>, std::is_signed_v<T>, sizeof(T));
    return to<T>();
  }
  // LibTorch spellings, for code written against at::Scalar; checked as there.
  float toFloat() const { return checked_to<float>("toFloat"); }
  double toDouble() const { return checked_to<double>("toDouble"); }
  int toInt() const { return checked_to<int>("toInt"); }
  int64_t toLong() const { return checked_to<int64_t>("toLong"); }
  bool toBool() const { return to<bool>(); }

 private:
  template <Arithmetic T>
  bool fits() const {
    using limits = std::numeric_limits<T>;
    if constexpr (std::is_same_v<T, bool>) {
      return true;
    } else if constexpr (std::is_floating_point_v<T>) {
      return kind_ != Kind::Floating || !std::isfinite(floating_) ||
             (floating_ >= -limits::max() && floating_ <= limits::max());
    } else if (kind_ == Kind::Floating) {
      // In range once truncated toward zero (NaN compares false). The bounds are powers of
      // two, exact in double.
      const double above = static_cast<double>(limits::max() / 2 + 1) * 2.0;
      if constexpr (std::is_signed_v<T>) return floating_ >= -above && floating_ < above;
      return floating_ > -1.0 && floating_ < above;
    } else if constexpr (std::is_signed_v<T>) {
      return integral_ >= static_cast<int64_t>(limits::min()) &&
             integral_ <= static_cast<int64_t>(limits::max());
    } else {  // as c10, a negative value wraps into an unsigned type when its magnitude fits
      const uint64_t magnitude = integral_ < 0 ? uint64_t{0} - static_cast<uint64_t>(integral_)
                                               : static_cast<uint64_t>(integral_);
      return magnitude <= static_cast<uint64_t>(limits::max());
    }
  }
  [[noreturn]] void overflow(const char* op, bool floating, bool is_signed, size_t bytes) const;

  Kind kind_ = Kind::Integral;
  int64_t integral_ = 0;
  double floating_ = 0.0;
};

#ifndef __CUDACC_RTC__  // host only: not in device programs (Note [Device programs of fused kernels])
std::ostream& operator<<(std::ostream& out, const Scalar& value);
#endif

#ifndef __CUDACC_RTC__  // host only: not in device programs (Note [Device programs of fused kernels])
// A borrowed list of int64 (LibTorch's IntArrayRef): shapes, dim lists. It does not own its
// elements; like IntArrayRef it is meant for parameters, not for storing.
class IntList {
 public:
  constexpr IntList() = default;
  constexpr IntList(const int64_t& one) : data_(&one), size_(1) {}
  constexpr IntList(const int64_t* data, size_t size) : data_(data), size_(size) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"  // borrowed for the call, by design
#endif
  constexpr IntList(std::initializer_list<int64_t> list)
      : data_(list.begin()), size_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  IntList(const std::vector<int64_t>& list) : data_(list.data()), size_(list.size()) {}
  constexpr IntList(std::span<const int64_t> list) : data_(list.data()), size_(list.size()) {}

  constexpr const int64_t* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const int64_t* begin() const { return data_; }
  constexpr const int64_t* end() const { return data_ + size_; }
  constexpr int64_t operator[](size_t i) const { return data_[i]; }
  constexpr int64_t front() const { return data_[0]; }
  constexpr int64_t back() const { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return {begin(), end()}; }

  friend bool operator==(IntList a, IntList b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i)
      if (a.data_[i] != b.data_[i]) return false;
    return true;
  }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

// Prints "[2, 3]" like IntArrayRef.
std::ostream& operator<<(std::ostream& out, IntList list);

// Note [The op the user called]
// A runtime error names the op the user called ("lerp: ..."), not an op it is made of (lerp
// subtracts, so its shape errors would otherwise say "sub: ..."). An op composed of other
// ops, and the batched API around each rule call, opens an OpName for the whole call; every
// vmap::Error raised inside (detail::fail) names the outermost open one. Thread-local: an
// error raised on a worker thread names the op it failed in.
class OpName {
 public:
  explicit OpName(const char* op) noexcept : outer_(current_) {
    if (current_ == nullptr) current_ = op;
  }
  ~OpName() { current_ = outer_; }
  OpName(const OpName&) = delete;
  OpName& operator=(const OpName&) = delete;
  // The outermost open op name, or `op` when none is open.
  static const char* named(const char* op) noexcept { return current_ ? current_ : op; }

 private:
  const char* outer_;
  static inline thread_local const char* current_ = nullptr;
};

#endif
}  // namespace detail
}  // namespace vmap
