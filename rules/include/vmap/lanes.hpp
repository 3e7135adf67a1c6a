// What a scalar kernel's lane form computes with (Note [Lane kernels] in fused_scalar.hpp):
// vb::Varying<T>, one C++ scalar per example of a block, and vb::VaryingElements, a block's
// views of a tensor read element by element. Every operator and <cmath> function is the C++
// one, applied lane by lane to the lanes' values, so each lane computes what its example's
// scalar kernel computes, with the same types and roundings; the compiler makes SIMD code of
// the loops over lanes.
#pragma once

#include <vmap/rules/op_table.hpp>
#include <vmap/scalar_elements.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace vmap::batched {

// The examples of a block: eight, the floats of an AVX2 vector.
inline constexpr int kLanes = 8;

// Thrown where a lane cannot take the lane form's path: an index out of [0, size), a read of
// an element of another dtype than the one asked for. The engine runs the block's examples
// one at a time instead, which raise the loop's own error or convert as item<T>() does.
struct LaneMiss {};
namespace detail {
[[noreturn]] void lane_miss();
}  // namespace detail

template <class T>
class Varying {
 public:
  std::array<T, kLanes> lane;

  Varying() = default;
  // The same value in every lane, converted as C++ converts it (`float t = 0;`).
  template <vmap::detail::Arithmetic U>
  Varying(U uniform) {  // NOLINT(google-explicit-constructor): C++'s implicit conversion
    for (int l = 0; l < kLanes; ++l) lane[l] = uniform;
  }
  // Each lane converted as C++ converts it (`float d = a_double;`).
  template <class U>
  Varying(const Varying<U>& from) {  // NOLINT(google-explicit-constructor)
    for (int l = 0; l < kLanes; ++l) lane[l] = from.lane[l];
  }

  Varying& operator++() {
    for (T& v : lane) ++v;
    return *this;
  }
  Varying& operator--() {
    for (T& v : lane) --v;
    return *this;
  }
  Varying operator++(int) {
    Varying before = *this;
    ++*this;
    return before;
  }
  Varying operator--(int) {
    Varying before = *this;
    --*this;
    return before;
  }
};

namespace detail {
template <class T>
inline constexpr bool kIsVarying = false;
template <class T>
inline constexpr bool kIsVarying<Varying<T>> = true;
template <class T>
concept LaneValue = kIsVarying<std::remove_cvref_t<T>> || vmap::detail::Arithmetic<T>;
// Operands of a lane operator: lane values, at least one Varying.
template <class A, class B>
concept LaneOperands = LaneValue<A> && LaneValue<B> &&
                       (kIsVarying<std::remove_cvref_t<A>> || kIsVarying<std::remove_cvref_t<B>>);

template <class T>
const T& lane_of(const Varying<T>& v, int l) {
  return v.lane[l];
}
template <vmap::detail::Arithmetic T>
const T& lane_of(const T& v, int) {
  return v;
}
// f applied lane by lane; its result type is that of f on the lanes' types.
template <class F, class... A>
auto lanewise(const F& f, const A&... a) {
  Varying<std::remove_cvref_t<decltype(f(lane_of(a, 0)...))>> result;
  for (int l = 0; l < kLanes; ++l) result.lane[l] = f(lane_of(a, l)...);
  return result;
}

// Integer division of a lane by zero, or of the least value by -1, is undefined and traps on
// x86, where the loop as written may have raised an error at an earlier example first (an
// element read out of range) and never divided: such a block runs one example at a time, in
// order, instead (LaneMiss), which raises that error or divides as written.
template <class A, class B>
void check_divisors(const A& a, const B& b) {
  using Quotient = decltype(lane_of(a, 0) / lane_of(b, 0));
  if constexpr (std::is_integral_v<Quotient>) {
    bool undefined = false;
    for (int l = 0; l < kLanes; ++l) {
      const Quotient divisor = lane_of(b, l);
      undefined |= divisor == 0;
      if constexpr (std::is_signed_v<Quotient>)
        undefined |= divisor == -1 && static_cast<Quotient>(lane_of(a, l)) ==
                                          std::numeric_limits<Quotient>::min();
    }
    if (undefined) [[unlikely]]
      lane_miss();
  }
}
}  // namespace detail

// The built-in operators, lane by lane. (One macro for the list: every operator is the same
// definition over its token; `/` and `%` check their divisors first.)
#define VMAP_LANE_BINARY(op)                                                   \
  template <class A, class B>                                                  \
    requires detail::LaneOperands<A, B>                                        \
  auto operator op(const A& a, const B& b) {                                   \
    if constexpr (#op[0] == '/' || #op[0] == '%') detail::check_divisors(a, b); \
    return detail::lanewise([](auto x, auto y) { return x op y; }, a, b);      \
  }
VMAP_LANE_BINARY(+)
VMAP_LANE_BINARY(-)
VMAP_LANE_BINARY(*)
VMAP_LANE_BINARY(<)
VMAP_LANE_BINARY(>)
VMAP_LANE_BINARY(<=)
VMAP_LANE_BINARY(>=)
VMAP_LANE_BINARY(==)
VMAP_LANE_BINARY(!=)
VMAP_LANE_BINARY(&)
VMAP_LANE_BINARY(|)
VMAP_LANE_BINARY(^)
VMAP_LANE_BINARY(<<)
VMAP_LANE_BINARY(>>)
VMAP_LANE_BINARY(/)
VMAP_LANE_BINARY(%)
#undef VMAP_LANE_BINARY

#define VMAP_LANE_COMPOUND(op)                                                 \
  template <class T, detail::LaneValue B>                                      \
  Varying<T>& operator op(Varying<T>& a, const B& b) {                         \
    if constexpr (#op[0] == '/' || #op[0] == '%') detail::check_divisors(a, b); \
    for (int l = 0; l < kLanes; ++l) a.lane[l] op detail::lane_of(b, l);       \
    return a;                                                                  \
  }
VMAP_LANE_COMPOUND(+=)
VMAP_LANE_COMPOUND(-=)
VMAP_LANE_COMPOUND(*=)
VMAP_LANE_COMPOUND(/=)
VMAP_LANE_COMPOUND(%=)
VMAP_LANE_COMPOUND(&=)
VMAP_LANE_COMPOUND(|=)
VMAP_LANE_COMPOUND(^=)
VMAP_LANE_COMPOUND(<<=)
VMAP_LANE_COMPOUND(>>=)
#undef VMAP_LANE_COMPOUND

#define VMAP_LANE_UNARY(op)                                                    \
  template <class T>                                                           \
  auto operator op(const Varying<T>& a) {                                      \
    return detail::lanewise([](auto x) { return op x; }, a);                   \
  }
VMAP_LANE_UNARY(-)
VMAP_LANE_UNARY(+)
VMAP_LANE_UNARY(~)
VMAP_LANE_UNARY(!)
#undef VMAP_LANE_UNARY

// The <cmath> functions the op table lists (kCmathFunctions), lane by lane: the tool spells a
// call of one on a Varying `vb::name(...)`. Each lane calls the C++ function the scalar code
// calls (std::name, found for the lane's types).
#define VMAP_LANE_CMATH(name)                                                  \
  template <class... A>                                                        \
    requires((detail::LaneValue<A> && ...) &&                                  \
             (detail::kIsVarying<std::remove_cvref_t<A>> || ...))              \
  auto name(const A&... a) {                                                   \
    return detail::lanewise([](auto... x) { return std::name(x...); }, a...); \
  }
VMAP_LANE_CMATH(sqrt)
VMAP_LANE_CMATH(exp)
VMAP_LANE_CMATH(log)
VMAP_LANE_CMATH(pow)
VMAP_LANE_CMATH(abs)
VMAP_LANE_CMATH(fabs)
VMAP_LANE_CMATH(sin)
VMAP_LANE_CMATH(cos)
VMAP_LANE_CMATH(tanh)
VMAP_LANE_CMATH(floor)
VMAP_LANE_CMATH(ceil)
VMAP_LANE_CMATH(fmax)
VMAP_LANE_CMATH(fmin)
VMAP_LANE_CMATH(min)
VMAP_LANE_CMATH(max)
VMAP_LANE_CMATH(erf)
VMAP_LANE_CMATH(erfc)
VMAP_LANE_CMATH(log1p)
VMAP_LANE_CMATH(expm1)
VMAP_LANE_CMATH(log2)
VMAP_LANE_CMATH(exp2)
VMAP_LANE_CMATH(trunc)
#undef VMAP_LANE_CMATH
static_assert(vmap::rules::kCmathFunctions.size() == 22,
              "every <cmath> function of the op table has its lane form above");

// An explicit conversion of a lane value (`static_cast<float>(v)`, `(int)v`, `double(v)` in
// the scalar kernel), lane by lane; of a number, the number's.
template <vmap::detail::Arithmetic T, class U>
Varying<T> lane_cast(const Varying<U>& v) {
  return detail::lanewise([](U x) { return static_cast<T>(x); }, v);
}
template <vmap::detail::Arithmetic T, vmap::detail::Arithmetic U>
T lane_cast(U v) {
  return static_cast<T>(v);
}

// A block's views of a tensor a scalar kernel reads element by element: each lane's
// vb::Elements, sharing the dims (one tensor's, at one depth), held as one address and each
// lane's offset from it in bytes, so that selecting is vector arithmetic and reading a
// gather. `e[k]` and `e.item<T>()` are Elements' on every lane; where a lane would raise or
// convert, LaneMiss.
class VaryingElements {
 public:
  VaryingElements(const char* base, const Varying<int64_t>& offsets, Dtype dtype, int64_t dims,
                  const int64_t* sizes, const int64_t* byte_strides)
      : base_(base), offsets_(offsets), dtype_(dtype), dims_(dims), sizes_(sizes),
        strides_(byte_strides) {}

  // The same index on every lane: one check.
  template <std::integral I>
  VaryingElements operator[](I index) const {
    if (dims_ == 0 || static_cast<uint64_t>(index) >= static_cast<uint64_t>(sizes_[0]))
        [[unlikely]]
      detail::lane_miss();
    return VaryingElements(base_ + static_cast<int64_t>(index) * strides_[0], offsets_, dtype_,
                           dims_ - 1, sizes_ + 1, strides_ + 1);
  }
  // Each lane's own index.
  template <std::integral I>
  VaryingElements operator[](const Varying<I>& index) const {
    // The same index on every lane (an outer level's, along a row of an inner one).
    bool same = true;
    for (int l = 1; l < kLanes; ++l) same &= index.lane[l] == index.lane[0];
    if (same) return (*this)[index.lane[0]];
    if (dims_ == 0) [[unlikely]]
      detail::lane_miss();
    const uint64_t size = static_cast<uint64_t>(sizes_[0]);
    const int64_t stride = strides_[0];
    // Separate loops, so that each is vector code.
    int64_t outside = 0;
    for (int l = 0; l < kLanes; ++l) outside |= static_cast<uint64_t>(index.lane[l]) >= size;
    if (outside) [[unlikely]]
      detail::lane_miss();
    Varying<int64_t> offsets;
    for (int l = 0; l < kLanes; ++l)
      offsets.lane[l] = offsets_.lane[l] + static_cast<int64_t>(index.lane[l]) * stride;
    return VaryingElements(base_, offsets, dtype_, dims_ - 1, sizes_ + 1, strides_ + 1);
  }
  // Each lane's one element, where the tensor holds the type asked for, or a float read as
  // double (exact, as item<double>() converts it).
  template <vmap::detail::Arithmetic T>
  Varying<T> item() const {
    if constexpr (std::is_same_v<T, detail::HeldAs<T>>)
      if (dims_ == 0 && dtype_ == detail::cpp_dtype<T>()) [[likely]]
        return read<T, T>();
    if constexpr (std::is_same_v<T, double>)
      if (dims_ == 0 && dtype_ == Dtype::Float32) return read<float, T>();
    detail::lane_miss();
  }

 private:
  template <class Held, class T>
  Varying<T> read() const {
    Varying<T> values;
    for (int l = 0; l < kLanes; ++l)
      values.lane[l] = static_cast<T>(*reinterpret_cast<const Held*>(base_ + offsets_.lane[l]));
    return values;
  }

  const char* base_;
  Varying<int64_t> offsets_;
  Dtype dtype_;
  int64_t dims_;
  const int64_t* sizes_;
  const int64_t* strides_;  // in bytes
};

// A scalar kernel's lane form, as the tool passes it to vb::fused_scalar.
template <class Lambda>
struct OverLanes {
  Lambda kernel;
};
template <class Lambda>
OverLanes<Lambda> over_lanes(const Lambda& kernel) {
  return {kernel};
}

}  // namespace vmap::batched
