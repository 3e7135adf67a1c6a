// One element of a per-example tensor inside a compiled fused kernel (Note [Compiled
// fusion] in fused.hpp): the pointwise ops of the op table on C++ element types, with the
// eager ops' semantics. Each op calls the runtime's scalar functor
// (vmap/detail/scalar_functors.hpp), so its per-element result is the eager op's; these
// templates only say which type it is computed in (ATen's promotion).
#pragma once

#include <vmap/detail/scalar_functors.hpp>
#include <vmap/types.hpp>

#include <limits>
#include <type_traits>

// A type-level failure of a kernel: on the host the first element throws and the batched ops
// run the chain (Note [Compiled fusion]); a device program (Note [Fused kernels on a device]
// in fused.hpp) is only built for what its first element computed on the host, so there it
// cannot happen, and stops the kernel if it did.
#ifdef __CUDACC_RTC__
#define VMAP_ELEMENT_FAIL(message) __trap()
#else
#define VMAP_ELEMENT_FAIL(message) throw vmap::Error(message)
#endif

namespace vmap::batched {

// Every op on elements is inlined whatever its size: pow's switch of forms folds only once
// inlined into the kernel with its literal exponent, and GCC's size heuristics left it a
// call per element in a loop of four calls (not vectorised: 20x slower).
#if defined(__GNUC__) || defined(__clang__)
#define VMAP_ELEMENT_INLINE __attribute__((always_inline)) inline
#else
#define VMAP_ELEMENT_INLINE inline
#endif

template <class T>
struct Element;

namespace element_detail {
namespace functors = vmap::detail::scalar_functors;

// Note [Vector math in fused kernels]
// A kernel's exp, log, tanh... are the C library's, one call an element, and GCC does not
// vectorise a loop of such calls (each may set errno). With GCC on x86-64 glibc, a kernel
// calls the same functions declared `const` (no errno: the eager op sets none either) with
// the SIMD variants glibc's vector math library (libmvec) has, so the loop calls libmvec's
// _ZGVdN8v_expf on 8 floats at a time, as -ffast-math makes a plain loop do. A call outside a
// vectorised loop is the scalar function itself. libmvec's results are within 4 ulp of the
// scalar ones (glibc's manual), and the eager ops' are Highway's: both within SPEC's
// tolerance. The program links libmvec (vmap::rules' link interface, rules/CMakeLists.txt).
template <class F>
VMAP_ELEMENT_INLINE F vector_math(F f) {  // any other functor: itself
  return f;
}
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__CUDACC__)
#define VMAP_VECTOR_FUNCTION(name)                                                          \
  extern "C" __attribute__((simd("notinbranch"), const, nothrow)) float                   \
      vmap_vector_##name##f(float) __asm__(#name "f");                                      \
  extern "C" __attribute__((simd("notinbranch"), const, nothrow)) double                  \
      vmap_vector_##name(double) __asm__(#name);                                            \
  template <class T>                                                                        \
  VMAP_ELEMENT_INLINE T vector_##name(T x) {                                                \
    if constexpr (std::is_same_v<T, float>) return vmap_vector_##name##f(x);                \
    else return vmap_vector_##name(x);                                                      \
  }
#define VMAP_VECTOR_FUNCTOR(Name, EXPRESSION)                                               \
  struct Vector##Name {                                                                     \
    template <class T>                                                                      \
    VMAP_ELEMENT_INLINE T operator()(T x) const {                                           \
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return EXPRESSION; \
      else return functors::Name{}(x);                                                      \
    }                                                                                       \
  };                                                                                        \
  VMAP_ELEMENT_INLINE Vector##Name vector_math(functors::Name) { return {}; }
VMAP_VECTOR_FUNCTION(exp)
VMAP_VECTOR_FUNCTION(log)
VMAP_VECTOR_FUNCTION(sin)
VMAP_VECTOR_FUNCTION(cos)
VMAP_VECTOR_FUNCTION(tanh)
VMAP_VECTOR_FUNCTION(log1p)
VMAP_VECTOR_FUNCTION(expm1)
VMAP_VECTOR_FUNCTION(log2)
VMAP_VECTOR_FUNCTION(exp2)
VMAP_VECTOR_FUNCTION(erf)
VMAP_VECTOR_FUNCTION(erfc)
VMAP_VECTOR_FUNCTOR(Exp, vector_exp(x))
VMAP_VECTOR_FUNCTOR(Log, vector_log(x))
VMAP_VECTOR_FUNCTOR(Sin, vector_sin(x))
VMAP_VECTOR_FUNCTOR(Cos, vector_cos(x))
VMAP_VECTOR_FUNCTOR(Tanh, vector_tanh(x))
VMAP_VECTOR_FUNCTOR(Log1p, vector_log1p(x))
VMAP_VECTOR_FUNCTOR(Expm1, vector_expm1(x))
VMAP_VECTOR_FUNCTOR(Log2, vector_log2(x))
VMAP_VECTOR_FUNCTOR(Exp2, vector_exp2(x))
VMAP_VECTOR_FUNCTOR(Erf, vector_erf(x))
VMAP_VECTOR_FUNCTOR(Erfc, vector_erfc(x))
// The scalar functors' formulas (scalar_functors.hpp) with the vector exp.
VMAP_VECTOR_FUNCTOR(Sigmoid, T(1) / (T(1) + vector_exp(-x)))
VMAP_VECTOR_FUNCTOR(Silu, x / (T(1) + vector_exp(-x)))
#undef VMAP_VECTOR_FUNCTION
#undef VMAP_VECTOR_FUNCTOR
#endif

template <class X>
struct Traits {  // a C++ number: a wrapped number in ATen's promotion
  static constexpr bool element = false;
  using type = X;
};
template <class T>
struct Traits<Element<T>> {
  static constexpr bool element = true;
  using type = T;
};
template <class X>
concept IsElement = Traits<X>::element;
template <class X>
concept Operand = IsElement<X> || std::is_arithmetic_v<X>;
template <class A, class B>
concept ElementOperands = Operand<A> && Operand<B> && (IsElement<A> || IsElement<B>);

template <class T>
constexpr int category() {  // bool < integer < floating, as ATen orders dtype categories
  return std::is_same_v<T, bool> ? 0 : std::is_integral_v<T> ? 1 : 2;
}
template <class T>
using Raw = typename Traits<T>::type;

// Two tensors' common type (ATen's promote_types on bool, int32/64, float32/64).
template <class A, class B>
using TensorPromoted =
    std::conditional_t<(category<A>() != category<B>()),
                       std::conditional_t<(category<A>() > category<B>()), A, B>,
                       std::conditional_t<(sizeof(A) >= sizeof(B)), A, B>>;
// A tensor's type with a wrapped number: the tensor's, unless the number's category is
// higher (then the default type of that category: float32, int64).
template <class T, class Number>
using NumberPromoted =
    std::conditional_t<(category<Number>() > category<T>()),
                       std::conditional_t<category<Number>() == 2, float, int64_t>, T>;
template <class A, class B>
using Promoted = std::conditional_t<
    IsElement<A> && IsElement<B>, TensorPromoted<Raw<A>, Raw<B>>,
    std::conditional_t<IsElement<A>, NumberPromoted<Raw<A>, Raw<B>>, NumberPromoted<Raw<B>, Raw<A>>>>;
// Ops defined on floating types only (true division, sqrt, ...) compute integers in float32.
template <class T>
using Floating = std::conditional_t<std::is_floating_point_v<T>, T, float>;
// The computation type of a pointwise op list entry's domain (pointwise_ops.def).
template <class T>
using float_math = Floating<T>;
template <class T>
using same_type = T;

template <class X>
VMAP_ELEMENT_INLINE constexpr Raw<X> raw(const X& x) {
  if constexpr (IsElement<X>) return x.value;
  else return x;
}

// The functor F on operands converted to T; a type F does not take throws (the compiled
// kernel's first element is computed alone, so the fused call falls back to the batched ops,
// which raise the eager op's error).
template <class Out, class T, class F, class... X>
VMAP_ELEMENT_INLINE Element<std::conditional_t<std::is_void_v<Out>, T, Out>> apply(F f,
                                                                                 const X&... x) {
  if constexpr (!functors::accepts_type<F, T>()) {
    VMAP_ELEMENT_FAIL("fused kernel: an op is not defined for this dtype");
    return {};
  } else {
    return {vector_math(f)(static_cast<T>(raw(x))...)};
  }
}

// LibTorch's sub_check: a subtraction with a bool operand computes nothing here; it throws on
// the first element, so the batched ops run the call and raise the eager op's error.
template <class A, class B>
VMAP_ELEMENT_INLINE void check_subtraction() {
  if constexpr (std::is_same_v<Raw<A>, bool> || std::is_same_v<Raw<B>, bool>)
    VMAP_ELEMENT_FAIL("fused kernel: subtraction with a bool operand");
}

// base^exponent in the form the runtime's pow takes for a scalar exponent (power_form, Note
// [pow strength reduction]) with its functors, so bit for bit the eager result; a literal
// exponent folds at compile time.
template <class T>
VMAP_ELEMENT_INLINE Element<T> power(T base, double exponent) {
  using enum functors::PowerForm;
  const functors::Mul mul;
  const functors::PowerForm form = functors::power_form(
      exponent, std::is_floating_point_v<T>, std::numeric_limits<T>::digits);
  if (form == one) return {T(1)};
  if (form == identity) return {base};
  if (form == square) return {mul(base, base)};
  if constexpr (std::is_floating_point_v<T>) {
    switch (form) {
      case cube: return {functors::Cube{}(base)};
      case sqrt: return {functors::Sqrt{}(base)};
      case rsqrt: return {functors::Rsqrt{}(base)};
      case reciprocal: return {functors::Reciprocal{}(base)};
      case inverse_square: return {functors::InverseSquare{}(base)};
      case repeated_squaring: {
        const T positive = functors::power_by_squaring(
            base, static_cast<int64_t>(exponent < 0 ? -exponent : exponent), mul);
        return {exponent > 0 ? positive : functors::Reciprocal{}(positive)};
      }
      default: break;
    }
  }
  return {functors::Pow{}(base, static_cast<T>(exponent))};
}

}  // namespace element_detail

// T, the operands' element type, is for TYPE to name; a TYPE that does not leaves it unused,
// which must not warn in the user's -Wall build.
#define VMAP_ELEMENT_UNARY(NAME, FUNCTOR, TYPE)                                                 \
  template <element_detail::IsElement X>                                                      \
  VMAP_ELEMENT_INLINE auto NAME(const X& x) {                                                  \
    using T [[maybe_unused]] = typename element_detail::Traits<X>::type;                       \
    return element_detail::apply<void, TYPE>(element_detail::functors::FUNCTOR{}, x);          \
  }
#define VMAP_ELEMENT_BINARY(NAME, FUNCTOR, TYPE, OUT)                                           \
  template <class A, class B>                                                                  \
    requires element_detail::ElementOperands<A, B>                                             \
  VMAP_ELEMENT_INLINE auto NAME(const A& a, const B& b) {                                      \
    using T [[maybe_unused]] = element_detail::Promoted<A, B>;                                 \
    return element_detail::apply<OUT, TYPE>(element_detail::functors::FUNCTOR{}, a, b);        \
  }

// Every op of the pointwise op list (Note [Pointwise op list]), then those written out by hand
// (op_table.hpp's kWrittenOutElementOps).
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) \
  VMAP_ELEMENT_UNARY(name, Functor, element_detail::domain<T>)
#define VMAP_BINARY_OP(name, Functor, domain) \
  VMAP_ELEMENT_BINARY(name, Functor, element_detail::domain<T>, void)
#define VMAP_COMPARISON_OP(name, Functor, symbol) \
  VMAP_ELEMENT_BINARY(name, Functor, T, bool)     \
  VMAP_ELEMENT_BINARY(operator symbol, Functor, T, bool)
#include <vmap/detail/pointwise_ops.def>
VMAP_ELEMENT_UNARY(neg, Neg, T)
VMAP_ELEMENT_UNARY(abs, Abs, T)
VMAP_ELEMENT_UNARY(logical_not, LogicalNot, bool)
VMAP_ELEMENT_BINARY(mul, Mul, T, void)
VMAP_ELEMENT_BINARY(div, Div, element_detail::Floating<T>, void)
VMAP_ELEMENT_BINARY(maximum, Maximum, T, void)
VMAP_ELEMENT_BINARY(minimum, Minimum, T, void)
VMAP_ELEMENT_BINARY(logical_and, LogicalAnd, bool, bool)
VMAP_ELEMENT_BINARY(logical_or, LogicalOr, bool, bool)
VMAP_ELEMENT_BINARY(operator+, Add, T, void)
VMAP_ELEMENT_BINARY(operator*, Mul, T, void)
VMAP_ELEMENT_BINARY(operator/, Div, element_detail::Floating<T>, void)
VMAP_ELEMENT_BINARY(operator&, BitwiseAnd, T, void)
VMAP_ELEMENT_BINARY(operator|, BitwiseOr, T, void)
#undef VMAP_ELEMENT_UNARY
#undef VMAP_ELEMENT_BINARY

template <element_detail::IsElement X>
auto operator-(const X& x) {
  return neg(x);
}
template <element_detail::IsElement X>
auto operator!(const X& x) {
  return logical_not(x);
}

template <class A, class B>
  requires element_detail::ElementOperands<A, B>
VMAP_ELEMENT_INLINE auto operator-(const A& a, const B& b) {
  element_detail::check_subtraction<A, B>();
  return element_detail::apply<void, element_detail::Promoted<A, B>>(
      element_detail::functors::Sub{}, a, b);
}

// add / sub with LibTorch's alpha: a + alpha * b.
template <class A, class B, class Alpha = vmap::detail::Scalar>
  requires element_detail::ElementOperands<A, B>
auto add(const A& a, const B& b, const Alpha& alpha = 1) {
  if constexpr (element_detail::IsElement<Alpha>) {
    return a + alpha * b;  // a per-example alpha (an operand of the kernel)
  } else {
    using T = element_detail::Promoted<A, B>;
    return element_detail::apply<void, T>(element_detail::functors::AddScaled{}, a, b,
                                          vmap::detail::Scalar(alpha).to<T>());
  }
}
template <class A, class B, class Alpha = vmap::detail::Scalar>
  requires element_detail::ElementOperands<A, B>
auto sub(const A& a, const B& b, const Alpha& alpha = 1) {
  element_detail::check_subtraction<A, B>();
  if constexpr (element_detail::IsElement<Alpha>) {
    return a - alpha * b;  // a per-example alpha (an operand of the kernel)
  } else {
    using T = element_detail::Promoted<A, B>;
    return element_detail::apply<void, T>(element_detail::functors::SubScaled{}, a, b,
                                          vmap::detail::Scalar(alpha).to<T>());
  }
}

template <class A, class B>
  requires element_detail::ElementOperands<A, B>
VMAP_ELEMENT_INLINE auto pow(const A& base, const B& exponent) {
  using T = element_detail::Promoted<A, B>;
  if constexpr (std::is_arithmetic_v<B>)
    return element_detail::power<T>(static_cast<T>(base.value), static_cast<double>(exponent));
  else
    return element_detail::apply<void, T>(element_detail::functors::Pow{}, base, exponent);
}

template <element_detail::IsElement X, class Low, class High>
auto clamp(const X& x, const Low& low, const High& high) {
  using T = element_detail::Promoted<element_detail::Promoted<X, Low>, High>;
  return element_detail::apply<void, T>(element_detail::functors::Clamp{}, x, low, high);
}

template <class Condition, class A, class B>
  requires(element_detail::IsElement<Condition> || element_detail::ElementOperands<A, B>)
auto where(const Condition& condition, const A& a, const B& b) {
  using T = element_detail::Promoted<A, B>;
  return Element<T>{element_detail::raw(condition) ? static_cast<T>(element_detail::raw(a))
                                                   : static_cast<T>(element_detail::raw(b))};
}

template <class T>
struct Element {
  T value;

  // A local of a fused region (Note [Fused regions] in transform/fuse.cpp) rebound to a
  // value of another type changes its dtype, as a Tensor does; a C++ variable cannot: the
  // kernel throws on its first element and the batched ops run it (Note [Compiled fusion]).
  template <class U>
    requires(!std::is_same_v<U, T>)
  Element& operator=(const Element<U>&) {
    VMAP_ELEMENT_FAIL("fused kernel: a local would change its dtype");
  }
  // Tensor's compound assignments, on a local the region made (never another name for a
  // tensor's elements: the tool checks).
  template <class B> Element& operator+=(const B& b) { return *this = *this + b; }
  template <class B> Element& operator-=(const B& b) { return *this = *this - b; }
  template <class B> Element& operator*=(const B& b) { return *this = *this * b; }
  template <class B> Element& operator/=(const B& b) { return *this = *this / b; }

  // The members of Tensor's pointwise ops, as the free functions above.
#define VMAP_ELEMENT_MEMBER_BINARY(name)            \
  template <class B>                                \
  VMAP_ELEMENT_INLINE auto name(const B& b) const { \
    return batched::name(*this, b);                 \
  }
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) \
  VMAP_ELEMENT_INLINE auto name() const { return batched::name(*this); }
#define VMAP_BINARY_OP(name, Functor, domain) VMAP_ELEMENT_MEMBER_BINARY(name)
#include <vmap/detail/pointwise_ops.def>
  VMAP_ELEMENT_INLINE auto abs() const { return batched::abs(*this); }
  VMAP_ELEMENT_INLINE auto neg() const { return batched::neg(*this); }
  VMAP_ELEMENT_INLINE auto logical_not() const { return batched::logical_not(*this); }
  VMAP_ELEMENT_MEMBER_BINARY(pow)
  VMAP_ELEMENT_MEMBER_BINARY(mul)
  VMAP_ELEMENT_MEMBER_BINARY(div)
  VMAP_ELEMENT_MEMBER_BINARY(maximum)
  VMAP_ELEMENT_MEMBER_BINARY(minimum)
  VMAP_ELEMENT_MEMBER_BINARY(logical_and)
  VMAP_ELEMENT_MEMBER_BINARY(logical_or)
#undef VMAP_ELEMENT_MEMBER_BINARY
  template <class B, class Alpha = vmap::detail::Scalar>
  VMAP_ELEMENT_INLINE auto add(const B& b, const Alpha& alpha = 1) const {
    return batched::add(*this, b, alpha);
  }
  template <class B, class Alpha = vmap::detail::Scalar>
  VMAP_ELEMENT_INLINE auto sub(const B& b, const Alpha& alpha = 1) const {
    return batched::sub(*this, b, alpha);
  }
  template <class L, class H> VMAP_ELEMENT_INLINE auto clamp(const L& low, const H& high) const {
    return batched::clamp(*this, low, high);
  }
};

// A store of a run that updates an example's slot (Note [Slot kernels] in fused.hpp): the
// value converted to the slot's element type, as a store into a tensor converts it.
template <class T, class X>
  requires element_detail::Operand<X>
VMAP_ELEMENT_INLINE void assign(Element<T>& slot, const X& value) {
  slot.value = static_cast<T>(element_detail::raw(value));
}

}  // namespace vmap::batched
