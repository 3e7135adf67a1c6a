// The per-example side of a scalar kernel on a device (Note [Scalar kernels on a device] in
// fused_scalar.hpp): how one thread finds its example's operands and stores its result. This
// file is compiled twice: by NVRTC, as the head of every device program vb::fused_scalar
// builds (rules/CMakeLists.txt embeds its text), and into the host, where it is the kernels'
// host form, which a backend without a device compiler runs (the emulated device of the
// tests). So it includes nothing and uses no library: NVRTC has no standard headers.
#pragma once

#ifdef __CUDACC_RTC__
#define VMAP_KERNEL_FN __device__ inline
#ifndef VMAP_KERNEL_STD_FROM_LIBCUXX  // a fused kernel's program has libcu++'s (fused_device.hpp)
// What the user's kernel code may name (the types and <cmath> of fuse_scalar.cpp's regions).
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef unsigned long size_t;
typedef long ptrdiff_t;
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::size_t; using ::ptrdiff_t;
using ::abs; using ::fabs; using ::sqrt; using ::cbrt; using ::exp; using ::exp2; using ::expm1;
using ::log; using ::log2; using ::log10; using ::log1p; using ::pow; using ::sin; using ::cos;
using ::tan; using ::asin; using ::acos; using ::atan; using ::atan2; using ::sinh; using ::cosh;
using ::tanh; using ::asinh; using ::acosh; using ::atanh; using ::floor; using ::ceil;
using ::round; using ::trunc; using ::fmod; using ::remainder; using ::fmax; using ::fmin;
using ::hypot; using ::erf; using ::erfc; using ::copysign; using ::isnan; using ::isinf;
using ::isfinite; using ::signbit; using ::lgamma; using ::tgamma; using ::rint;
using ::nearbyint; using ::fdim; using ::fma;
template <class T>
__device__ constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }
template <class T>
__device__ constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
}  // namespace std
#endif
#else
#include <cstdint>
#include <cstring>
#include <type_traits>
#define VMAP_KERNEL_FN inline
#endif

namespace vmap_kernel {

// As many as a kernel's layout may have: active levels (nested vmaps), parameters, and dims
// of a tensor read element by element. vb::fused_scalar runs a kernel over more on the CPU.
inline constexpr int kMaxLevels = 6;
inline constexpr int kMaxParameters = 12;
inline constexpr int kMaxDims = 6;

// vmap::Dtype's values (static_assert in fused_scalar.hpp).
enum DtypeCode : int { float32 = 0, float64 = 1, int32 = 2, int64 = 3, boolean = 4 };

// Why an example stopped (Args::error): the CPU path then runs the kernel again and throws
// the error the loop as written raises, with its message.
enum Failure : int { none = 0, select_0dim = 1, index_out_of_range = 2, item_of_many = 3,
                     conversion_overflow = 4 };

// A per-example C++ scalar or a tensor read element by element, over the active levels:
// example p's first element is at base + sum(index[l] * level_strides[l]) (bytes).
struct Operand {
  const char* base;
  int64_t level_strides[kMaxLevels];
  // A tensor read element by element: its dtype and one example's dims.
  int dtype;
  int dims;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];  // bytes
};

// The kernel's one parameter (by value).
struct Args {
  int64_t count;  // examples: the product of sizes
  int levels;
  int64_t sizes[kMaxLevels];
  const bool* active;  // [count], the live mask; null when none is live
  char* out;           // [count] of the result's held type
  int* error;          // one Failure, written by the examples that stop
  Operand operands[kMaxParameters];
  alignas(8) unsigned char numbers[kMaxParameters][8];  // numbers, as the parameter's type
};

// A fused kernel's argument block (Note [Fused kernels on a device] in fused.hpp): the layout
// of rules/src/fused.cpp (FusedLayout), merged dims, the level dims first, each operand's
// element strides over them. fused_device.hpp walks it.
struct FusedArgs {
  static constexpr int kMaxDims = 8;       // rules/src/fused.cpp's kFusedMaxDims
  static constexpr int kMaxOperands = 16;  // and kFusedMaxOperands
  int64_t count;          // positions (a store) or examples (a sum)
  int64_t example_count;  // elements of one example (a sum)
  int rank;               // merged dims
  int example_rank;       // how many of them (the last) are example dims
  int64_t dims[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];
  const void* base[kMaxOperands];  // of the element type
  void* out;
  int mean;  // a sum divides by example_count
  int tile;  // a block is a tile x tile square of the last two level dims (0: a row)
  int chunk;  // a sum's block stages its operands' cells, chunk elements at a time (0: not)
  alignas(8) unsigned char numbers[kMaxOperands][8];  // the numbers, as their C++ types
};

VMAP_KERNEL_FN void copy_bytes(void* to, const void* from, int n) {
  for (int k = 0; k < n; ++k) static_cast<char*>(to)[k] = static_cast<const char*>(from)[k];
}

VMAP_KERNEL_FN void fail(int* error, Failure failure) {
  // Any one failure will do: the CPU path finds the first.
  if (*error == none) *error = failure;
}

// One example's view of a tensor read element by element (vmap::batched::Elements's
// operator[] and item<T>(), with failures reported instead of thrown).
class Elements {
 public:
  VMAP_KERNEL_FN Elements(const char* data, int dtype, int dims, const int64_t* sizes,
                          const int64_t* strides, int* error)
      : data_(data), dtype_(dtype), dims_(dims), sizes_(sizes), strides_(strides),
        error_(error) {}

  VMAP_KERNEL_FN Elements operator[](int64_t index) const {
    if (dims_ == 0) {
      fail(error_, select_0dim);
      return *this;
    }
    const int64_t size = sizes_[0];
    if (index < -size || index >= size) {
      fail(error_, index_out_of_range);
      index = 0;
    }
    if (index < 0) index += size;
    return Elements(data_ + index * strides_[0], dtype_, dims_ - 1, sizes_ + 1, strides_ + 1,
                    error_);
  }

  template <class T>
  VMAP_KERNEL_FN T item() const {
    int64_t numel = 1;
    for (int d = 0; d < dims_; ++d) numel *= sizes_[d];
    if (numel != 1) {
      fail(error_, item_of_many);
      return T();
    }
    switch (dtype_) {
      case float32: return converted<float, T>();
      case float64: return converted<double, T>();
      case int32: return converted<int32_t, T>();
      case int64: return converted<int64_t, T>();
      default: return converted<bool, T>();
    }
  }

 private:
  template <class Held, class T>
  VMAP_KERNEL_FN T converted() const {
    Held value;
    copy_bytes(&value, data_, sizeof(Held));
    if (!fits<T>(value)) fail(error_, conversion_overflow);
    return static_cast<T>(value);
  }
  // Scalar::checked_to's test (runtime/include/vmap/types.hpp): whether T holds the value.
  template <class T, class Held>
  VMAP_KERNEL_FN static bool fits(Held value) {
    if (T(2) == T(1)) return true;  // bool takes any value
    const bool held_floating = Held(0.5) != Held(0);
    if (T(0.5) != T(0)) {  // floating: only a finite double out of float's range overflows
      if (!held_floating || sizeof(T) >= sizeof(Held)) return true;
      const double v = static_cast<double>(value);
      return !(v - v == 0.0) || (v >= -3.4028234663852886e38 && v <= 3.4028234663852886e38);
    }
    const bool t_signed = T(-1) < T(0);
    const int bits = 8 * static_cast<int>(sizeof(T)) - (t_signed ? 1 : 0);
    double above = 1.0;  // 2^bits, exact
    for (int k = 0; k < bits; ++k) above *= 2.0;
    if (held_floating) {  // in range once truncated toward zero; NaN compares false
      const double v = static_cast<double>(value);
      return t_signed ? (v >= -above && v < above) : (v > -1.0 && v < above);
    }
    if (bits >= 63) return true;  // every int64 fits (c10 wraps a negative into uint64)
    const int64_t v = static_cast<int64_t>(value);
    const int64_t limit = static_cast<int64_t>(above);
    if (t_signed) return v >= -limit && v < limit;
    const uint64_t magnitude = v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : uint64_t(v);
    return magnitude < static_cast<uint64_t>(limit);
  }

  const char* data_;
  int dtype_;
  int dims_;
  const int64_t* sizes_;
  const int64_t* strides_;
  int* error_;
};

// Example p's position over the active levels.
struct Example {
  int64_t index[kMaxLevels];
  int levels;

  VMAP_KERNEL_FN Example(const Args& args, int64_t p) : levels(args.levels) {
    for (int l = args.levels; l-- > 0;) {
      index[l] = p % args.sizes[l];
      p /= args.sizes[l];
    }
  }
  VMAP_KERNEL_FN const char* at(const Operand& operand) const {
    const char* data = operand.base;
    for (int l = 0; l < levels; ++l) data += index[l] * operand.level_strides[l];
    return data;
  }
};

// How parameter I is read: a per-example C++ scalar held as Held, a number, or a tensor read
// element by element.
template <int I, class Held, class P>
struct FromOperand {
  VMAP_KERNEL_FN static P read(const Args& args, const Example& at) {
    Held held;
    copy_bytes(&held, at.at(args.operands[I]), sizeof held);
    return static_cast<P>(held);
  }
};
template <int I, class P>
struct FromNumber {
  VMAP_KERNEL_FN static P read(const Args& args, const Example&) {
    P value;
    copy_bytes(&value, args.numbers[I], sizeof value);
    return value;
  }
};
template <int I>
struct FromElements {
  VMAP_KERNEL_FN static Elements read(const Args& args, const Example& at) {
    const Operand& operand = args.operands[I];
    return Elements(at.at(operand), operand.dtype, operand.dims, operand.sizes,
                    operand.strides, args.error);
  }
};

// Example p: the kernel's result, converted to Held, into out[p] (zero where the live mask
// leaves the example out: it does not run).
template <class Held, class... Read, class Body>
VMAP_KERNEL_FN void run_example(const Args& args, int64_t p, const Body& body) {
  Held* out = reinterpret_cast<Held*>(args.out);
  if (args.active && !args.active[p]) {
    out[p] = Held();
    return;
  }
  const Example at(args, p);
  out[p] = static_cast<Held>(body(Read::read(args, at)...));
}

#ifndef __CUDACC_RTC__
// The spelling of T in a device program (host side).
template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, char>) return "char";
  else if constexpr (std::is_same_v<T, signed char>) return "signed char";
  else if constexpr (std::is_same_v<T, unsigned char>) return "unsigned char";
  else if constexpr (std::is_same_v<T, short>) return "short";
  else if constexpr (std::is_same_v<T, unsigned short>) return "unsigned short";
  else if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, unsigned>) return "unsigned int";
  else if constexpr (std::is_same_v<T, long>) return "long";
  else if constexpr (std::is_same_v<T, unsigned long>) return "unsigned long";
  else if constexpr (std::is_same_v<T, long long>) return "long long";
  else if constexpr (std::is_same_v<T, unsigned long long>) return "unsigned long long";
  else return nullptr;  // no device spelling: the kernel runs on the CPU
}
#endif

}  // namespace vmap_kernel
