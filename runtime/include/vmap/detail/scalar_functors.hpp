// One scalar functor per elementwise op, compiled for the host and for the device: the CPU
// engine (runtime/src/pointwise.cpp), the compiled fused kernels (vmap/fused_element.hpp, and
// their NVRTC programs) and the CUDA backend run them, so an op's semantics are written once.
// Public (installed with the runtime's headers) because rewritten code instantiates the fused
// kernels; the dispatch from a DeviceOp to its functor is the backend's
// (runtime/cuda/device_functors.hpp). tests/cuda checks every entry against the CPU op on the
// host, and the CUDA tests again on the device.
#pragma once

#include <vmap/types.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define VMAP_HOST_DEVICE __host__ __device__
#else
#define VMAP_HOST_DEVICE
#endif

namespace vmap::detail::scalar_functors {

template <class T>
inline constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_bool = std::is_same_v<T, bool>;

template <class T>
struct Type {
  using type = T;
};

template <class T>
VMAP_HOST_DEVICE T wrapping(T a, T b, char op) {
  using U = std::make_unsigned_t<T>;
  const U x = static_cast<U>(a), y = static_cast<U>(b);
  return static_cast<T>(op == '+' ? U(x + y) : op == '-' ? U(x - y) : U(x * y));
}

// Integer division's quotient and remainder without UB: x / -1 wraps, x % -1 is 0 (the host
// refuses zero divisors first: functors with `integer_divisor` ask it to).
template <class T>
VMAP_HOST_DEVICE T quotient(T a, T b) {
  return b == T(-1) ? wrapping(T(0), a, '-') : T(a / b);
}
template <class T>
VMAP_HOST_DEVICE T modulus(T a, T b) {
  return b == T(-1) ? T(0) : T(a % b);
}

// The math library of whichever side compiles the call: CUDA's overloads on the device.
#ifdef __CUDA_ARCH__
#define VMAP_MATH(function) ::function
#else
#define VMAP_MATH(function) std::function
#endif

struct Add {
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_bool<T>) return a || b;
    else if constexpr (is_int<T>) return wrapping(a, b, '+');
    else return a + b;
  }
};
struct Sub {
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_bool<T>) return a != b;
    else if constexpr (is_int<T>) return wrapping(a, b, '-');
    else return a - b;
  }
};
struct Mul {
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_bool<T>) return a && b;
    else if constexpr (is_int<T>) return wrapping(a, b, '*');
    else return a * b;
  }
};
struct Div {  // true division: the CPU promotes to a floating type first
  template <class T> static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const { return a / b; }
};
// C++'s `/` and `%` on the batched side (pointwise.cpp's div_trunc, remainder_trunc): integers
// truncate (x / -1 wraps, x % -1 is 0; the host refuses zero divisors first), floats divide
// truly and take fmod.
struct DivTrunc {
  template <class T> static constexpr bool accepts = !is_bool<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_int<T>) return quotient(a, b);
    else return a / b;
  }
};
// add / sub with alpha: the factor comes as the third operand, x + factor * y (x - ...).
struct AddScaled {
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b, T factor) const {
    return Add{}(a, Mul{}(factor, b));
  }
};
struct SubScaled {
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b, T factor) const {
    return Sub{}(a, Mul{}(factor, b));
  }
};
struct Maximum {
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    return a != a ? a : b != b ? b : a > b ? a : b;
  }
};
struct Minimum {
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    return a != a ? a : b != b ? b : a < b ? a : b;
  }
};
struct Pow {
  template <class T> VMAP_HOST_DEVICE T operator()(T base, T exponent) const {
    if constexpr (is_bool<T>) {
      return base || !exponent;
    } else if constexpr (is_int<T>) {  // by squaring; negative exponents as torch
      if (exponent < 0) return base == 1 ? T(1) : base == -1 ? T(exponent % 2 == 0 ? 1 : -1) : T(0);
      T result = 1;
      while (exponent > 0) {
        if (exponent & 1) result = wrapping(result, base, '*');
        base = wrapping(base, base, '*');
        exponent >>= 1;
      }
      return result;
    } else {
      return VMAP_MATH(pow)(base, exponent);
    }
  }
};
struct BitwiseAnd {
  template <class T> static constexpr bool accepts = !std::is_floating_point_v<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_bool<T>) return a && b;
    else return static_cast<T>(a & b);
  }
};
struct BitwiseOr {
  template <class T> static constexpr bool accepts = !std::is_floating_point_v<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_bool<T>) return a || b;
    else return static_cast<T>(a | b);
  }
};

// The comparisons of the pointwise op list: `a symbol b`.
#define VMAP_COMPARISON_OP(name, Functor, symbol)                                     \
  struct Functor {                                                                    \
    template <class T> VMAP_HOST_DEVICE bool operator()(T a, T b) const { return a symbol b; } \
  };
#include <vmap/detail/pointwise_ops.def>

struct LogicalAnd {
  VMAP_HOST_DEVICE bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOr {
  VMAP_HOST_DEVICE bool operator()(bool a, bool b) const { return a || b; }
};
struct LogicalNot {
  VMAP_HOST_DEVICE bool operator()(bool a) const { return !a; }
};

struct Neg {
  template <class T> static constexpr bool accepts = !is_bool<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T x) const {
    if constexpr (is_int<T>) return wrapping(T(0), x, '-');
    else return -x;
  }
};
struct Abs {
  template <class T> VMAP_HOST_DEVICE T operator()(T x) const {
    if constexpr (is_bool<T>) return x;
    else if constexpr (is_int<T>) return x < 0 ? wrapping(T(0), x, '-') : x;
    else return VMAP_MATH(fabs)(x);
  }
};
struct Relu {  // LibTorch refuses bool inputs
  template <class T> static constexpr bool accepts = !is_bool<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T x) const {
    return !(x < T(0)) ? x : T(0);  // NaN and -0 stay (as on the CPU and in LibTorch)
  }
};
struct Sign {
  template <class T> VMAP_HOST_DEVICE T operator()(T x) const {
    if constexpr (is_bool<T>) return x;
    else return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};

// Float math: the CPU computes integer and bool inputs in float32, so only float types come.
#define VMAP_FLOAT_FUNCTOR(NAME, EXPRESSION)                                        \
  struct NAME {                                                                     \
    template <class T> static constexpr bool accepts = std::is_floating_point_v<T>; \
    template <class T> VMAP_HOST_DEVICE T operator()(T x) const { return EXPRESSION; } \
  };
VMAP_FLOAT_FUNCTOR(Sqrt, VMAP_MATH(sqrt)(x))
VMAP_FLOAT_FUNCTOR(Exp, VMAP_MATH(exp)(x))
VMAP_FLOAT_FUNCTOR(Log, VMAP_MATH(log)(x))
VMAP_FLOAT_FUNCTOR(Sin, VMAP_MATH(sin)(x))
VMAP_FLOAT_FUNCTOR(Cos, VMAP_MATH(cos)(x))
VMAP_FLOAT_FUNCTOR(Tanh, VMAP_MATH(tanh)(x))
VMAP_FLOAT_FUNCTOR(Sigmoid, T(1) / (T(1) + VMAP_MATH(exp)(-x)))
VMAP_FLOAT_FUNCTOR(Rsqrt, T(1) / VMAP_MATH(sqrt)(x))
// pow(x, 3) and pow(x, -2) as ATen computes them (Note [pow strength reduction]).
VMAP_FLOAT_FUNCTOR(Cube, x * x * x)
VMAP_FLOAT_FUNCTOR(InverseSquare, T(1) / (x * x))
VMAP_FLOAT_FUNCTOR(Reciprocal, T(1) / x)
VMAP_FLOAT_FUNCTOR(Log1p, VMAP_MATH(log1p)(x))
VMAP_FLOAT_FUNCTOR(Expm1, VMAP_MATH(expm1)(x))
VMAP_FLOAT_FUNCTOR(Log2, VMAP_MATH(log2)(x))
VMAP_FLOAT_FUNCTOR(Exp2, VMAP_MATH(exp2)(x))
VMAP_FLOAT_FUNCTOR(Erf, VMAP_MATH(erf)(x))
VMAP_FLOAT_FUNCTOR(Erfc, VMAP_MATH(erfc)(x))
VMAP_FLOAT_FUNCTOR(Silu, x / (T(1) + VMAP_MATH(exp)(-x)))  // LibTorch: floats only
VMAP_FLOAT_FUNCTOR(Frac, x - VMAP_MATH(trunc)(x))           // LibTorch: floats only
#undef VMAP_FLOAT_FUNCTOR

// Rounding: integers are already whole (LibTorch returns them unchanged); bool is refused.
// round is half to even (nearbyint under the default rounding mode), as LibTorch's.
#define VMAP_ROUNDING_FUNCTOR(NAME, FUNCTION)                                    \
  struct NAME {                                                                  \
    template <class T> static constexpr bool accepts = !is_bool<T>;              \
    template <class T> VMAP_HOST_DEVICE T operator()(T x) const {                \
      if constexpr (is_int<T>) return x;                                         \
      else return VMAP_MATH(FUNCTION)(x);                                        \
    }                                                                            \
  };
VMAP_ROUNDING_FUNCTOR(Floor, floor)
VMAP_ROUNDING_FUNCTOR(Ceil, ceil)
VMAP_ROUNDING_FUNCTOR(Round, nearbyint)
VMAP_ROUNDING_FUNCTOR(Trunc, trunc)
#undef VMAP_ROUNDING_FUNCTOR

struct Square {  // x * x; bool computes in int64 (LibTorch's pow(x, 2))
  static constexpr bool bool_computes_in_int64 = true;
  template <class T> static constexpr bool accepts = !is_bool<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T x) const { return Mul{}(x, x); }
};

// LibTorch's remainder: the result takes the divisor's sign (Python's %).
struct Remainder {
  static constexpr bool integer_divisor = true;
  template <class T> static constexpr bool accepts = !is_bool<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    T mod;
    if constexpr (is_int<T>) mod = modulus(a, b);
    else mod = VMAP_MATH(fmod)(a, b);
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) mod += b;
    return mod;
  }
};
// C's fmod: the result takes the dividend's sign.
struct Fmod {
  static constexpr bool integer_divisor = true;
  template <class T> static constexpr bool accepts = !is_bool<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_int<T>) return modulus(a, b);
    else return VMAP_MATH(fmod)(a, b);
  }
};
// LibTorch 1.13's floor_divide: the quotient rounded toward -inf (ATen's div_floor).
struct FloorDivide {
  static constexpr bool integer_divisor = true;
  template <class T> static constexpr bool accepts = !is_bool<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_int<T>) {
      const T quot = quotient(a, b);
      return ((a < T(0)) != (b < T(0))) && modulus(a, b) != T(0) ? T(quot - 1) : quot;
    } else {
      if (b == T(0)) return a / b;
      const T mod = VMAP_MATH(fmod)(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return VMAP_MATH(copysign)(T(0), a / b);
      T floored = VMAP_MATH(floor)(div);
      if (div - floored > T(0.5)) floored += T(1);
      return floored;
    }
  }
};
struct Atan2 {
  template <class T> static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const { return VMAP_MATH(atan2)(a, b); }
};
struct Hypot {  // LibTorch: floats only
  template <class T> static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const { return VMAP_MATH(hypot)(a, b); }
};
// log(exp(a) + exp(b)) without overflow; equal infinities give themselves (LibTorch's kernel,
// floats only).
struct Logaddexp {
  template <class T> static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if (VMAP_MATH(isinf)(a) && a == b) return a;
    return (a < b ? b : a) + VMAP_MATH(log1p)(VMAP_MATH(exp)(-VMAP_MATH(fabs)(a - b)));
  }
};
// clamp_min / clamp_max with one bound: NaN in either operand propagates, as LibTorch's.
struct ClampMin {
  template <class T> VMAP_HOST_DEVICE T operator()(T x, T low) const { return Maximum{}(x, low); }
};
struct ClampMax {
  template <class T> VMAP_HOST_DEVICE T operator()(T x, T high) const { return Minimum{}(x, high); }
};

struct RemainderTrunc {
  template <class T> static constexpr bool accepts = !is_bool<T>;
  template <class T> VMAP_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_int<T>) return modulus(a, b);
    else return VMAP_MATH(fmod)(a, b);
  }
};

struct Where {
  template <class T> VMAP_HOST_DEVICE T operator()(bool condition, T a, T b) const {
    return condition ? a : b;
  }
};
struct Clamp {
  template <class T> VMAP_HOST_DEVICE T operator()(T x, T low, T high) const {
    if (x != x) return x;
    const T raised = x < low ? low : x;
    return raised > high ? high : raised;
  }
};

// A constant rather than a call: device code may not call host-only constexpr functions.
template <class T>
inline constexpr T lowest_value = std::numeric_limits<T>::lowest();

// Float to integer without UB: NaN and out-of-range values give the minimum (x86, LibTorch).
template <class To>
struct Convert {
  template <class From> VMAP_HOST_DEVICE To operator()(From value) const {
    if constexpr (is_bool<To>) {
      return value != From(0);
    } else if constexpr (std::is_floating_point_v<From> && is_int<To>) {
      constexpr From lower = static_cast<From>(lowest_value<To>);
      if (!(value >= lower && value < -lower)) return lowest_value<To>;
      return static_cast<To>(value);
    } else {
      return static_cast<To>(value);
    }
  }
};

#undef VMAP_MATH

// Note [pow strength reduction] (runtime/src/pointwise.cpp): the form x^e takes for a scalar
// exponent e, decided here once for the runtime's pow on tensors and the fused kernels' pow on
// one element (vmap/fused_element.hpp), which each only apply it. `floating`: x's type is a
// floating one (integers take only the first three, then Pow's exact squaring); `digits`: its
// significand's bits (std::numeric_limits<T>::digits, 24 for float).
enum class PowerForm : uint8_t {
  one,                // e == 0: 1 (even for NaN, as std::pow)
  identity,           // e == 1: x
  square,             // e == 2: Mul(x, x)
  cube,               // e == 3: Cube
  sqrt,               // e == 0.5: Sqrt
  rsqrt,              // e == -0.5: Rsqrt, 1 / sqrt(x)
  reciprocal,         // e == -1: 1 / x
  inverse_square,     // e == -2: InverseSquare, 1 / (x * x)
  repeated_squaring,  // other integers up to max_squared_power: power_by_squaring(x, |e|), for
                      // e < 0 1 / it
  general,            // Pow(x, e)
};
// The largest |e| taken by repeated squaring. x^n by squarings and products rounds n - 1
// times, each error carried into the power: at most (n - 1) * 2^-digits relative to x^n
// exactly, so 2^(digits - 14) keeps it under 2^-14 = 6.1e-5 (SPEC's 1e-4 relative with
// std::pow's own error and the reciprocal's): 1024 for float, 2^39 for double. Past it a
// finite float result needs a base within 1e-3 of 1: std::pow.
constexpr double max_squared_power(int digits) {
  return static_cast<double>(int64_t{1} << (digits > 14 ? digits - 14 : 0));
}
constexpr PowerForm power_form(double e, bool floating, int digits) {
  if (e == 0) return PowerForm::one;
  if (e == 1) return PowerForm::identity;
  if (e == 2) return PowerForm::square;
  if (!floating) return PowerForm::general;
  if (e == 3) return PowerForm::cube;
  if (e == 0.5) return PowerForm::sqrt;
  if (e == -0.5) return PowerForm::rsqrt;
  if (e == -1) return PowerForm::reciprocal;
  if (e == -2) return PowerForm::inverse_square;
  const double most = max_squared_power(digits);
  if (e >= -most && e <= most && static_cast<int64_t>(e) == e) return PowerForm::repeated_squaring;
  return PowerForm::general;
}
// x^n for n >= 1, one multiply per step in this order, so a tensor (one multiply pass per
// step) and an element get the same bits: about log2(n) squarings and a multiply per set bit
// of n (x^32: five squarings).
template <class X, class Multiply>
X power_by_squaring(const X& x, int64_t n, Multiply multiply) {
  // Over n's bits by count, not `n >>= 1` until 0: a count the compiler knows for a literal n,
  // so an element's loop unrolls into its multiplies and the kernel's loop vectorises (the
  // shifting loop left x.pow(32) a scalar loop, 2.3x a plain one).
  const int bits = std::bit_width(static_cast<uint64_t>(n));
  X square = x;
  X result = x;
  bool started = false;
  for (int bit = 0; bit < bits; ++bit) {
    if ((n >> bit) & 1) {
      result = started ? multiply(result, square) : square;
      started = true;
    }
    if (bit + 1 < bits) square = multiply(square, square);
  }
  return result;
}

// Whether F is defined for T (functors say so with `accepts<T>`; the rest take every type).
template <class F, class T>
constexpr bool accepts_type() {
  if constexpr (requires { F::template accepts<T>; }) return F::template accepts<T>;
  return true;
}

// Calls f(Type<T>{}) with T the element type of `dtype`.
template <class F>
bool visit_type(Dtype dtype, F&& f) {
  switch (dtype) {
    case Dtype::Float32: return f(Type<float>{});
    case Dtype::Float64: return f(Type<double>{});
    case Dtype::Int32: return f(Type<int32_t>{});
    case Dtype::Int64: return f(Type<int64_t>{});
    case Dtype::Bool: return f(Type<bool>{});
  }
  return false;
}

}  // namespace vmap::detail::scalar_functors
