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

// Every function here is inlined where it is called: the lane form's code is its ISA's
// (Note [Lane kernels] in fused_scalar.hpp), whatever the compiler would choose.
#define VMAP_LANE_INLINE inline __attribute__((always_inline))

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

namespace detail {
// A Varying's lanes are an array; where T is a number of 4 or 8 bytes the operators that are
// the same operation on every lane compute on them as one vector of the compiler's (GCC's
// and clang's vector extension), loaded from and stored to the array (registers, once
// inlined), so that they are vector instructions whatever the compiler makes of a loop over
// lanes (Note [Lane kernels] in fused_scalar.hpp). No signature holds a vector: none crosses
// code compiled for two ISAs.
template <class T>
struct LaneVector {
  using type = void;
};
template <class T>
  requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool> &&
           (sizeof(T) == 4 || sizeof(T) == 8))
struct LaneVector<T> {
  typedef T type __attribute__((vector_size(kLanes * sizeof(T))));
};
template <class T>
using Vector = typename LaneVector<T>::type;
template <class T>
inline constexpr bool kVectorLanes = !std::is_void_v<Vector<T>>;
template <class T>
using LaneArray = std::array<T, kLanes>;

// (Out parameters: a vector returned by value is a note from GCC and clang on the ABI.)
template <class T>
VMAP_LANE_INLINE void load_vector(Vector<T>& v, const LaneArray<T>& lanes) {
  std::memcpy(&v, lanes.data(), sizeof v);
}
// A number on every lane. (`v - 0` is v for every number, -0.0 and NaN included; `0 + v`
// is not.)
template <vmap::detail::Arithmetic T>
VMAP_LANE_INLINE void load_vector(Vector<T>& v, T number) {
  v = number - Vector<T>{};
}
template <class T>
VMAP_LANE_INLINE void store_vector(LaneArray<T>& lanes, const Vector<T>& v) {
  std::memcpy(lanes.data(), &v, sizeof v);
}
template <class T>
VMAP_LANE_INLINE void fill_lanes(LaneArray<T>& lanes, T v) {
  if constexpr (kVectorLanes<T>) {
    Vector<T> every;
    load_vector(every, v);
    store_vector(lanes, every);
  } else {
    lanes.fill(v);
  }
}
// Whether every lane holds lane 0's value (bit for bit: for the integers here, equal).
template <class T>
VMAP_LANE_INLINE bool uniform_lanes(const LaneArray<T>& lanes) {
  LaneArray<T> first;
  fill_lanes(first, lanes[0]);
  return std::memcmp(first.data(), lanes.data(), sizeof first) == 0;
}
}  // namespace detail

template <class T>
class Varying {
 public:
  detail::LaneArray<T> lane;

  Varying() = default;
  // The same value in every lane, converted as C++ converts it (`float t = 0;`).
  template <vmap::detail::Arithmetic U>
  VMAP_LANE_INLINE Varying(U uniform) {  // NOLINT(google-explicit-constructor): C++'s conversion
    detail::fill_lanes(lane, static_cast<T>(uniform));
  }
  // Each lane converted as C++ converts it (`float d = a_double;`).
  template <class U>
  VMAP_LANE_INLINE Varying(const Varying<U>& from) {  // NOLINT(google-explicit-constructor)
    if constexpr (detail::kVectorLanes<T> && detail::kVectorLanes<U>) {
      detail::Vector<U> lanes;
      detail::load_vector(lanes, from.lane);
      detail::store_vector(lane, __builtin_convertvector(lanes, detail::Vector<T>));
    } else {
      for (int l = 0; l < kLanes; ++l) lane[l] = from.lane[l];
    }
  }

  VMAP_LANE_INLINE Varying& operator++() {
    for (int l = 0; l < kLanes; ++l) ++lane[l];
    return *this;
  }
  VMAP_LANE_INLINE Varying& operator--() {
    for (int l = 0; l < kLanes; ++l) --lane[l];
    return *this;
  }
  VMAP_LANE_INLINE Varying operator++(int) {
    Varying before = *this;
    ++*this;
    return before;
  }
  VMAP_LANE_INLINE Varying operator--(int) {
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

// Lane l's value (by value: a vector's element is no object a reference can bind to).
template <class T>
VMAP_LANE_INLINE T lane_of(const Varying<T>& v, int l) {
  return v.lane[l];
}
template <vmap::detail::Arithmetic T>
VMAP_LANE_INLINE T lane_of(const T& v, int) {
  return v;
}
// f applied lane by lane; its result type is that of f on the lanes' types.
template <class F, class... A>
VMAP_LANE_INLINE auto lanewise(const F& f, const A&... a) {
  Varying<std::remove_cvref_t<decltype(f(lane_of(a, 0)...))>> result;
  for (int l = 0; l < kLanes; ++l) result.lane[l] = f(lane_of(a, l)...);
  return result;
}

template <class T>
struct LaneType {
  using type = T;
};
template <class T>
struct LaneType<Varying<T>> {
  using type = T;
};
// Whether `a op b` on every lane is the vector extension's `op` on the lanes: both of one
// type T held as a vector (so no promotion and no conversion: a number of the same type),
// the operator one the vector extension defines as C++ does on each lane: + - * / of a
// floating type (the same IEEE operation), + - * & | ^ of an integer type of at least int's
// size (no promotion; what C++ leaves undefined, signed overflow, wraps).
template <class A, class B, char op>
inline constexpr bool kVectorOp = [] {
  using T = typename LaneType<std::remove_cvref_t<A>>::type;
  if constexpr (!std::is_same_v<T, typename LaneType<std::remove_cvref_t<B>>::type> ||
                !kVectorLanes<T>)
    return false;
  else if constexpr (std::is_floating_point_v<T>)
    return op == '+' || op == '-' || op == '*' || op == '/';
  else
    return op == '+' || op == '-' || op == '*' || op == '&' || op == '|' || op == '^';
}();
// A lane value's lanes as a vector: a Varying's own, a number's on every lane.
template <class T>
VMAP_LANE_INLINE void load_vector(Vector<T>& v, const Varying<T>& lanes) {
  load_vector(v, lanes.lane);
}

// Integer division of a lane by zero, or of the least value by -1, is undefined and traps on
// x86, where the loop as written may have raised an error at an earlier example first (an
// element read out of range) and never divided: such a block runs one example at a time, in
// order, instead (LaneMiss), which raises that error or divides as written.
template <class A, class B>
VMAP_LANE_INLINE void check_divisors(const A& a, const B& b) {
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
  VMAP_LANE_INLINE auto operator op(const A& a, const B& b) {                  \
    if constexpr (#op[0] == '/' || #op[0] == '%') detail::check_divisors(a, b); \
    if constexpr (detail::kVectorOp<A, B, #op[0]>) {                           \
      using R = decltype(detail::lane_of(a, 0) op detail::lane_of(b, 0));      \
      detail::Vector<R> x, y;                                                  \
      detail::load_vector(x, a);                                               \
      detail::load_vector(y, b);                                               \
      Varying<R> result;                                                       \
      detail::store_vector(result.lane, x op y);                               \
      return result;                                                           \
    } else {                                                                   \
      return detail::lanewise([](auto x, auto y) { return x op y; }, a, b);    \
    }                                                                          \
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
  VMAP_LANE_INLINE Varying<T>& operator op(Varying<T>& a, const B& b) {        \
    if constexpr (#op[0] == '/' || #op[0] == '%') detail::check_divisors(a, b); \
    if constexpr (detail::kVectorOp<Varying<T>, B, #op[0]>) {                  \
      detail::Vector<T> x, y;                                                  \
      detail::load_vector(x, a);                                               \
      detail::load_vector(y, b);                                               \
      x op y;                                                                  \
      detail::store_vector(a.lane, x);                                         \
    } else {                                                                   \
      for (int l = 0; l < kLanes; ++l) a.lane[l] op detail::lane_of(b, l);     \
    }                                                                          \
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
  VMAP_LANE_INLINE auto operator op(const Varying<T>& a) {                     \
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
  VMAP_LANE_INLINE auto name(const A&... a) {                                  \
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
VMAP_LANE_INLINE Varying<T> lane_cast(const Varying<U>& v) {
  return detail::lanewise([](U x) { return static_cast<T>(x); }, v);
}
template <vmap::detail::Arithmetic T, vmap::detail::Arithmetic U>
VMAP_LANE_INLINE T lane_cast(U v) {
  return static_cast<T>(v);
}

// A copy of a tensor with its dim 0 innermost (Note [Lane-major copies] in fused_scalar.hpp):
// its strides (in bytes; the sizes are the tensor's), consecutive indices of dim 0 adjacent.
struct LaneMajor {
  const char* data = nullptr;
  const int64_t* strides = nullptr;
};

// A block's views of a tensor a scalar kernel reads element by element: each lane's
// vb::Elements, sharing the dims (one tensor's, at one depth), held as one address and each
// lane's offset from it in bytes, so that selecting is vector arithmetic and reading a
// gather, or one load where the lanes' elements are one (a broadcast) or adjacent (a
// vector). `e[k]` and `e.item<T>()` are Elements' on every lane; where a lane would raise or
// convert, LaneMiss.
class VaryingElements {
 public:
  // `step`: the bytes from each lane's offset to the next lane's, where they are evenly
  // spaced, else kScattered. `lane_major`: the tensor's lane-major copy, where it has one
  // (Note [Lane-major copies]; only a view of the whole tensor, the same on every lane).
  static constexpr int64_t kScattered = std::numeric_limits<int64_t>::min();
  VMAP_LANE_INLINE VaryingElements(const char* base, const Varying<int64_t>& offsets,
                                   int64_t step, Dtype dtype,
                  int64_t dims, const int64_t* sizes, const int64_t* byte_strides,
                  LaneMajor lane_major = {})
      : base_(base), offsets_(offsets), step_(step), dtype_(dtype), dims_(dims), sizes_(sizes),
        strides_(byte_strides), lane_major_(lane_major) {}

  // The same index on every lane: one check.
  template <std::integral I>
  VMAP_LANE_INLINE VaryingElements operator[](I index) const {
    if (dims_ == 0 || static_cast<uint64_t>(index) >= static_cast<uint64_t>(sizes_[0]))
        [[unlikely]]
      detail::lane_miss();
    return VaryingElements(base_ + static_cast<int64_t>(index) * strides_[0], offsets_, step_,
                           dtype_, dims_ - 1, sizes_ + 1, strides_ + 1);
  }
  // A floating-point index, converted as Tensor::operator[](int64_t) takes it.
  template <std::floating_point F>
  VMAP_LANE_INLINE VaryingElements operator[](F index) const {
    return (*this)[static_cast<int64_t>(index)];
  }
  template <std::floating_point F>
  VMAP_LANE_INLINE VaryingElements operator[](const Varying<F>& index) const {
    return (*this)[Varying<int64_t>(index)];
  }
  // Each lane's own index.
  template <std::integral I>
  VMAP_LANE_INLINE VaryingElements operator[](const Varying<I>& index) const {
    // The same index on every lane (an outer level's, along a row of an inner one).
    if (detail::uniform_lanes(index.lane)) return (*this)[index.lane[0]];
    if (dims_ == 0) [[unlikely]]
      detail::lane_miss();
    const Varying<int64_t> at = index;  // as static_cast<int64_t> converts each
    // Outside [0, size): a negative index is a huge unsigned one.
    bool outside = false;
    for (int l = 0; l < kLanes; ++l)
      outside |= static_cast<uint64_t>(at.lane[l]) >= static_cast<uint64_t>(sizes_[0]);
    if (outside) [[unlikely]]
      detail::lane_miss();
    // index, index + 1, ...: the lanes' rows of the tensor.
    bool consecutive = true;
    for (int l = 0; l < kLanes; ++l) consecutive &= at.lane[l] == at.lane[0] + l;
    if (consecutive && lane_major_.data != nullptr) {
      const int64_t size_of = vmap::detail::element_size(dtype_);
      Varying<int64_t> adjacent;
      for (int l = 0; l < kLanes; ++l) adjacent.lane[l] = l * size_of;
      return VaryingElements(lane_major_.data + at.lane[0] * lane_major_.strides[0], adjacent,
                             size_of, dtype_, dims_ - 1, sizes_ + 1, lane_major_.strides + 1);
    }
    Varying<int64_t> offsets;
    detail::Vector<int64_t> from, rows;
    detail::load_vector(from, offsets_);
    detail::load_vector(rows, at);
    detail::store_vector(offsets.lane, from + rows * strides_[0]);
    const int64_t step =
        consecutive && step_ != kScattered ? step_ + strides_[0] : kScattered;
    return VaryingElements(base_, offsets, step, dtype_, dims_ - 1, sizes_ + 1, strides_ + 1);
  }
  // Each lane's one element, where the tensor holds the type asked for, or a float read as
  // double (exact, as item<double>() converts it).
  template <vmap::detail::Arithmetic T>
  VMAP_LANE_INLINE Varying<T> item() const {
    if constexpr (std::is_same_v<T, detail::HeldAs<T>>)
      if (dims_ == 0 && dtype_ == detail::cpp_dtype<T>()) [[likely]]
        return read<T, T>();
    if constexpr (std::is_same_v<T, double>)
      if (dims_ == 0 && dtype_ == Dtype::Float32) return read<float, T>();
    detail::lane_miss();
  }

 private:
  template <class Held, class T>
  VMAP_LANE_INLINE Varying<T> read() const {
    const char* const first = base_ + offsets_.lane[0];
    const auto element = [&](int l) {
      Held value;
      std::memcpy(&value, base_ + offsets_.lane[l], sizeof value);
      return static_cast<T>(value);
    };
    Varying<T> values;
    if constexpr (detail::kVectorLanes<T>) {
      // One vector from each path, stored once (lanes set one by one on one path, and as a
      // whole on another, would meet as eight numbers).
      detail::Vector<T> lanes;
      if (step_ == 0) {  // one element
        detail::load_vector(lanes, element(0));
      } else if (std::is_same_v<Held, T> && step_ == static_cast<int64_t>(sizeof(Held))) {
        std::memcpy(&lanes, first, sizeof lanes);  // adjacent: a vector load
      } else {
        for (int l = 0; l < kLanes; ++l) lanes[l] = element(l);
      }
      detail::store_vector(values.lane, lanes);
    } else {
      for (int l = 0; l < kLanes; ++l) values.lane[l] = element(l);
    }
    return values;
  }

  const char* base_;
  Varying<int64_t> offsets_;
  int64_t step_;
  Dtype dtype_;
  int64_t dims_;
  const int64_t* sizes_;
  const int64_t* strides_;  // in bytes
  LaneMajor lane_major_;
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

#undef VMAP_LANE_INLINE
