// Highway kernels for the built-in binary ops and the unary float math on contiguous runs,
// compiled once per target (SSE4, AVX2, AVX-512, ...) and picked at run time for the CPU.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>
#include <hwy/contrib/math/math-inl.h>

#include "internal.hpp"
#include <vmap/detail/scalar_functors.hpp>

#include <limits>

HWY_BEFORE_NAMESPACE();
namespace vmap::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Each kernel's scalar operator() (the tail without masked loads) is its op's functor, so
// integer lanes wrap as functors::Add does on every other path.
struct AddKernel : scalar_functors::Add {
  template <class V> V vec(V a, V b) const { return hn::Add(a, b); }
};
struct SubKernel : scalar_functors::Sub {
  template <class V> V vec(V a, V b) const { return hn::Sub(a, b); }
};
struct MulKernel : scalar_functors::Mul {
  template <class V> V vec(V a, V b) const { return hn::Mul(a, b); }
};
struct DivKernel : scalar_functors::Div {
  template <class V> V vec(V a, V b) const { return hn::Div(a, b); }
};
// maximum/minimum propagate NaN (as torch); for integers IsNaN is never true.
template <bool is_max>
struct ExtremumKernel : std::conditional_t<is_max, scalar_functors::Maximum, scalar_functors::Minimum> {
  template <class V> V vec(V a, V b) const {
    const V best = is_max ? hn::Max(a, b) : hn::Min(a, b);
    if constexpr (hwy::IsFloat<hn::TFromV<V>>())
      return hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, best));
    else
      return best;
  }
};
using MaxKernel = ExtremumKernel<true>;
using MinKernel = ExtremumKernel<false>;

// The comparisons of the pointwise op list, a Functor##Kernel each (the kernels below are
// generated from the list), for compare_run. `vec` gives a mask, false for NaN but in !=;
// where `negated<V>`, it is the mask of the opposite comparison, and compare_run stores its
// bools flipped (once per vector of bytes: a Not per mask, one per vector of T, made the
// int64 `j >= i` take 1.25x as long). C++'s != holds for NaN but Highway's Ne (ordered) does
// not, so != is the negation of ==; integer vectors have no Ge/Le here, so those are the
// negations of < and >.
template <class V>
constexpr bool is_float_vector = hwy::IsFloat<hn::TFromV<V>>();
struct Unnegated {
  template <class V> static constexpr bool negated = false;
};
struct EqKernel : scalar_functors::Eq, Unnegated {
  template <class V> auto vec(V a, V b) const { return hn::Eq(a, b); }
};
struct NeKernel : scalar_functors::Ne {
  template <class V> static constexpr bool negated = true;
  template <class V> auto vec(V a, V b) const { return hn::Eq(a, b); }
};
struct LtKernel : scalar_functors::Lt, Unnegated {
  template <class V> auto vec(V a, V b) const { return hn::Lt(a, b); }
};
struct GtKernel : scalar_functors::Gt, Unnegated {
  template <class V> auto vec(V a, V b) const { return hn::Gt(a, b); }
};
struct LeKernel : scalar_functors::Le {
  template <class V> static constexpr bool negated = !is_float_vector<V>;
  template <class V> auto vec(V a, V b) const {
    if constexpr (negated<V>) return hn::Gt(a, b);
    else return hn::Le(a, b);
  }
};
struct GeKernel : scalar_functors::Ge {
  template <class V> static constexpr bool negated = !is_float_vector<V>;
  template <class V> auto vec(V a, V b) const {
    if constexpr (negated<V>) return hn::Lt(a, b);
    else return hn::Ge(a, b);
  }
};
// Bools are bytes 0 or 1: `and` and `or` of the bytes are the logical ops.
struct LogicalAndKernel : scalar_functors::LogicalAnd {
  template <class V> V vec(V a, V b) const { return hn::And(a, b); }
};
struct LogicalOrKernel : scalar_functors::LogicalOr {
  template <class V> V vec(V a, V b) const { return hn::Or(a, b); }
};

// Stores a kernel's result for the first `count` lanes (comparisons go to compare_run).
template <class D, class V, class Out>
void store_result(D d, V result, Out* HWY_RESTRICT out, size_t count) {
  if (count == hn::Lanes(d)) hn::StoreU(result, d, out);
  else hn::BlendedStore(result, hn::FirstN(d, count), d, out);
}

// out[k] = a[k] op b[k] over one run, a and b advancing (a_moves, b_moves) or staying on one
// element. The tail is one masked vector where masked loads cannot fault (AVX-512), so short
// runs (a broadcast over inner runs of 10) stay vectorised.
template <class T, class Out, class Kernel, bool a_moves, bool b_moves>
void binary_run(Out* HWY_RESTRICT out, const T* a, const T* b, int64_t count) {
  const hn::ScalableTag<T> d;
  const Kernel kernel;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto a_fixed = hn::Set(d, a[0]), b_fixed = hn::Set(d, b[0]);
  int64_t k = 0;
  for (; k + lanes <= count; k += lanes) {
    const auto x = a_moves ? hn::LoadU(d, a + k) : a_fixed;
    const auto y = b_moves ? hn::LoadU(d, b + k) : b_fixed;
    store_result(d, kernel.vec(x, y), out + k, static_cast<size_t>(lanes));
  }
#if !HWY_MEM_OPS_MIGHT_FAULT
  if (k < count) {
    const auto mask = hn::FirstN(d, static_cast<size_t>(count - k));
    const auto x = a_moves ? hn::MaskedLoad(mask, d, a + k) : a_fixed;
    const auto y = b_moves ? hn::MaskedLoad(mask, d, b + k) : b_fixed;
    store_result(d, kernel.vec(x, y), out + k, static_cast<size_t>(count - k));
    return;
  }
#endif
  for (; k < count; ++k) out[k] = kernel(a[a_moves ? k : 0], b[b_moves ? k : 0]);
}

// Note [Bools from comparison masks]
// A comparison of vectors of T gives a mask, and its bools are one byte per lane: a vector
// of T holds sizeof(T) times as many lanes as it has bytes of bools. Stored a vector at a
// time, that is a 4- or 8-byte store per 64-bit-lane vector (the triangular mask's int64
// `j >= i` was store-bound on those, 1.6x the plain loop), and narrowing the lanes takes a
// chain of shuffles. So compare_run compares sizeof(T) vectors, gathers their masks' bits
// into one word (lane i of vector g at bit g * lanes + i), makes that a mask of bytes and
// stores it as 0/1 bytes (flipped for a negated kernel): one full-width store, as the plain
// loop's vectorised code does.
// On AVX-512 the bits move between mask registers and one register of the core, and the
// bytes are one zero-masking move. The bits of a vector of bytes fit one uint64_t on x86 and
// NEON (vectors of up to 64 bytes; wider targets take the scalar loop), little-endian.

// The bits of a mask, lane i at bit i (StoreMaskBits writes them little-endian).
template <class D, class M>
uint64_t mask_bits(D d, M mask) {
  uint64_t bits = 0;
  hn::StoreMaskBits(d, mask, reinterpret_cast<uint8_t*>(&bits));
  return bits;
}

// out[k] = a[k] op b[k] as bools over one run (Note [Bools from comparison masks]).
template <class T, class Kernel, bool a_moves, bool b_moves>
void compare_run(bool* HWY_RESTRICT out, const T* a, const T* b, int64_t count) {
  const Kernel kernel;
  int64_t k = 0;
#if HWY_TARGET != HWY_SCALAR && HWY_MAX_BYTES <= 64  // else the scalar loop below
  const hn::ScalableTag<T> d;
  const hn::Repartition<uint8_t, decltype(d)> d8;  // the bools of sizeof(T) vectors of d
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t group = static_cast<int64_t>(hn::Lanes(d8));  // lanes * sizeof(T)
  const auto a_fixed = hn::Set(d, a[0]), b_fixed = hn::Set(d, b[0]);
  const auto one = hn::Set(d8, uint8_t{1});
  auto* HWY_RESTRICT bytes = reinterpret_cast<uint8_t*>(out);
  const auto bools_of = [&](uint64_t bits) {
    const auto set = hn::LoadMaskBits(d8, reinterpret_cast<const uint8_t*>(&bits));
    if constexpr (Kernel::template negated<hn::Vec<decltype(d)>>)
      return hn::IfThenZeroElse(set, one);
    else
      return hn::IfThenElseZero(set, one);
  };
  for (; k + group <= count; k += group) {
    uint64_t bits = 0;
    for (size_t g = 0; g < sizeof(T); ++g) {
      const int64_t at = k + static_cast<int64_t>(g) * lanes;
      const auto x = a_moves ? hn::LoadU(d, a + at) : a_fixed;
      const auto y = b_moves ? hn::LoadU(d, b + at) : b_fixed;
      bits |= mask_bits(d, kernel.vec(x, y)) << (g * static_cast<size_t>(lanes));
    }
    hn::StoreU(bools_of(bits), d8, bytes + k);
  }
  // The rest, fewer than `group`: its whole vectors and, where masked loads cannot fault,
  // the partial one, through a buffer.
  uint64_t bits = 0;
  int64_t done = k;
  for (size_t g = 0; done + lanes <= count; ++g, done += lanes) {
    const auto x = a_moves ? hn::LoadU(d, a + done) : a_fixed;
    const auto y = b_moves ? hn::LoadU(d, b + done) : b_fixed;
    bits |= mask_bits(d, kernel.vec(x, y)) << (g * static_cast<size_t>(lanes));
  }
#if !HWY_MEM_OPS_MIGHT_FAULT
  if (done < count) {
    const auto in_run = hn::FirstN(d, static_cast<size_t>(count - done));
    const auto x = a_moves ? hn::MaskedLoad(in_run, d, a + done) : a_fixed;
    const auto y = b_moves ? hn::MaskedLoad(in_run, d, b + done) : b_fixed;
    bits |= mask_bits(d, kernel.vec(x, y)) << (done - k);
    done = count;
  }
#endif
  if (done > k) {
    HWY_ALIGN uint8_t buffer[HWY_MAX_BYTES];
    hn::Store(bools_of(bits), d8, buffer);
    std::memcpy(bytes + k, buffer, static_cast<size_t>(done - k));
    k = done;
  }
#endif
  for (; k < count; ++k) out[k] = kernel(a[a_moves ? k : 0], b[b_moves ? k : 0]);
}

// `rows` runs, run r starting row_strides[0/1/2] * r bytes after out / a / b; a and b step
// 1 or 0 (not both 0) along a run.
template <class T, class Out, class Kernel, bool a_moves, bool b_moves>
void binary_rows(void* out, const void* a, const void* b, int64_t count,
                 const int64_t* row_strides, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    Out* run_out = reinterpret_cast<Out*>(static_cast<char*>(out) + r * row_strides[0]);
    const T* run_a = reinterpret_cast<const T*>(static_cast<const char*>(a) + r * row_strides[1]);
    const T* run_b = reinterpret_cast<const T*>(static_cast<const char*>(b) + r * row_strides[2]);
    if constexpr (std::is_same_v<Out, bool>)
      compare_run<T, Kernel, a_moves, b_moves>(run_out, run_a, run_b, count);
    else
      binary_run<T, Out, Kernel, a_moves, b_moves>(run_out, run_a, run_b, count);
  }
}
template <class T, class Out, class Kernel>
void binary_rows(void* out, const void* a, int64_t a_step, const void* b, int64_t b_step,
                 int64_t count, const int64_t* row_strides, int64_t rows) {
  if (a_step && b_step)
    binary_rows<T, Out, Kernel, true, true>(out, a, b, count, row_strides, rows);
  else if (a_step)
    binary_rows<T, Out, Kernel, true, false>(out, a, b, count, row_strides, rows);
  else
    binary_rows<T, Out, Kernel, false, true>(out, a, b, count, row_strides, rows);
}

#define VMAP_SIMD_KERNEL(NAME, T, OUT, KERNEL)                                                \
  void NAME(void* out, const void* a, int64_t a_step, const void* b, int64_t b_step,          \
            int64_t count, const int64_t* row_strides, int64_t rows) {                        \
    binary_rows<T, OUT, KERNEL>(out, a, a_step, b, b_step, count, row_strides, rows);         \
  }
VMAP_SIMD_KERNEL(AddF32, float, float, AddKernel)
VMAP_SIMD_KERNEL(SubF32, float, float, SubKernel)
VMAP_SIMD_KERNEL(MulF32, float, float, MulKernel)
VMAP_SIMD_KERNEL(DivF32, float, float, DivKernel)
VMAP_SIMD_KERNEL(MaxF32, float, float, MaxKernel)
VMAP_SIMD_KERNEL(MinF32, float, float, MinKernel)
VMAP_SIMD_KERNEL(AddF64, double, double, AddKernel)
VMAP_SIMD_KERNEL(SubF64, double, double, SubKernel)
VMAP_SIMD_KERNEL(MulF64, double, double, MulKernel)
VMAP_SIMD_KERNEL(DivF64, double, double, DivKernel)
VMAP_SIMD_KERNEL(MaxF64, double, double, MaxKernel)
VMAP_SIMD_KERNEL(MinF64, double, double, MinKernel)
VMAP_SIMD_KERNEL(AddI32, int32_t, int32_t, AddKernel)
VMAP_SIMD_KERNEL(SubI32, int32_t, int32_t, SubKernel)
VMAP_SIMD_KERNEL(MulI32, int32_t, int32_t, MulKernel)
VMAP_SIMD_KERNEL(MaxI32, int32_t, int32_t, MaxKernel)
VMAP_SIMD_KERNEL(MinI32, int32_t, int32_t, MinKernel)
VMAP_SIMD_KERNEL(AddI64, int64_t, int64_t, AddKernel)
VMAP_SIMD_KERNEL(SubI64, int64_t, int64_t, SubKernel)
VMAP_SIMD_KERNEL(LogicalAndB8, uint8_t, uint8_t, LogicalAndKernel)
VMAP_SIMD_KERNEL(LogicalOrB8, uint8_t, uint8_t, LogicalOrKernel)
// Each comparison of the pointwise op list, by its Functor##Kernel above, on each vector type.
#define VMAP_COMPARISON_OP(name, Functor, symbol)                \
  VMAP_SIMD_KERNEL(Functor##F32, float, bool, Functor##Kernel)   \
  VMAP_SIMD_KERNEL(Functor##F64, double, bool, Functor##Kernel)  \
  VMAP_SIMD_KERNEL(Functor##I32, int32_t, bool, Functor##Kernel) \
  VMAP_SIMD_KERNEL(Functor##I64, int64_t, bool, Functor##Kernel)
#include <vmap/detail/pointwise_ops.def>
#undef VMAP_SIMD_KERNEL

// out[k] = condition[k] ? a[k] : b[k] over `rows` runs (row_strides[0..3] bytes apart for
// out, condition, a, b), condition a run of bools, a and b advancing (step 1) or staying on
// one element (step 0): both sides are loaded and blended, so the lanes are not a branch
// each (what the engine's scalar loop compiles to).
// The lanes of `d` whose bool (one byte each, from `condition`) is true; bytes are the
// lanes of a bool where (one byte each too), 64-bit lanes widen the bytes in two steps
// (Highway promotes bytes to 32 bits at most).
template <class D>
auto lanes_set(D d, const uint8_t* condition) {
  const hn::RebindToUnsigned<D> du;
  const hn::Rebind<uint8_t, D> d8;  // one byte per lane of d
  if constexpr (sizeof(hn::TFromD<D>) == 1) {
    return hn::RebindMask(d, hn::Ne(hn::LoadU(du, condition), hn::Zero(du)));
  } else if constexpr (sizeof(hn::TFromD<D>) == 4) {
    return hn::RebindMask(d, hn::Ne(hn::PromoteTo(du, hn::LoadU(d8, condition)), hn::Zero(du)));
  } else {
    const hn::Rebind<uint32_t, D> d32;
    const auto wide = hn::PromoteTo(du, hn::PromoteTo(d32, hn::LoadU(d8, condition)));
    return hn::RebindMask(d, hn::Ne(wide, hn::Zero(du)));
  }
}

template <class T, bool a_moves, bool b_moves>
void where_rows(void* out, const bool* condition, const void* a, const void* b, int64_t count,
                const int64_t* row_strides, int64_t rows) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r) {
    T* HWY_RESTRICT o = reinterpret_cast<T*>(static_cast<char*>(out) + r * row_strides[0]);
    const auto* c = reinterpret_cast<const uint8_t*>(condition) + r * row_strides[1];
    const T* x = reinterpret_cast<const T*>(static_cast<const char*>(a) + r * row_strides[2]);
    const T* y = reinterpret_cast<const T*>(static_cast<const char*>(b) + r * row_strides[3]);
    const auto x_fixed = hn::Set(d, x[0]), y_fixed = hn::Set(d, y[0]);
    int64_t k = 0;
    for (; k + lanes <= count; k += lanes) {
      const auto picks_a = lanes_set(d, c + k);
      const auto from_a = a_moves ? hn::LoadU(d, x + k) : x_fixed;
      const auto from_b = b_moves ? hn::LoadU(d, y + k) : y_fixed;
      hn::StoreU(hn::IfThenElse(picks_a, from_a, from_b), d, o + k);
    }
    for (; k < count; ++k)
      o[k] = scalar_functors::Where{}(c[k] != 0, x[a_moves ? k : 0], y[b_moves ? k : 0]);
  }
}
template <class T>
void where_dispatch(void* out, const bool* condition, const void* a, int64_t a_step,
                    const void* b, int64_t b_step, int64_t count, const int64_t* row_strides,
                    int64_t rows) {
  if (a_step && b_step) where_rows<T, true, true>(out, condition, a, b, count, row_strides, rows);
  else if (a_step) where_rows<T, true, false>(out, condition, a, b, count, row_strides, rows);
  else if (b_step) where_rows<T, false, true>(out, condition, a, b, count, row_strides, rows);
  else where_rows<T, false, false>(out, condition, a, b, count, row_strides, rows);
}
#define VMAP_WHERE_KERNEL(SUFFIX, T)                                                         \
  void Where##SUFFIX(void* out, const bool* condition, const void* a, int64_t a_step,          \
                     const void* b, int64_t b_step, int64_t count, const int64_t* row_strides, \
                     int64_t rows) {                                                           \
    where_dispatch<T>(out, condition, a, a_step, b, b_step, count, row_strides, rows);         \
  }
VMAP_WHERE_KERNEL(F32, float)
VMAP_WHERE_KERNEL(F64, double)
VMAP_WHERE_KERNEL(I32, int32_t)
VMAP_WHERE_KERNEL(I64, int64_t)
VMAP_WHERE_KERNEL(B8, uint8_t)  // bool: its bytes blended (0 and 1 stay 0 and 1)
#undef VMAP_WHERE_KERNEL

// Unary float math: `vec` computes a vector with Highway, `accurate` says whether every lane
// lies where that is within a few ULP of the scalar reference `Scalar` (ranges measured
// against glibc: Highway's own documented ranges, narrowed where results go subnormal).
template <class T>
constexpr T largest = std::numeric_limits<T>::max();
template <class D, class V>
auto within(D d, V x, hn::TFromD<D> low, hn::TFromD<D> high) {  // false for NaN lanes
  return hn::And(hn::Ge(x, hn::Set(d, low)), hn::Le(x, hn::Set(d, high)));
}
// exp(x) is accurate for x in [lowest, highest]: its result is normal or overflows to inf.
template <class T>
constexpr T exp_lowest = std::is_same_v<T, float> ? T(-87) : T(-708);
template <class T>
constexpr T exp_highest = std::is_same_v<T, float> ? T(104) : T(706);
constexpr double trig_limit = 39000;  // Highway's sin/cos range reduction holds up to here

struct SqrtKernel {
  using Scalar = scalar_functors::Sqrt;
  template <class D, class V> static V vec(D, V x) { return hn::Sqrt(x); }
  template <class D, class V> static auto accurate(D d, V) { return hn::FirstN(d, hn::Lanes(d)); }  // IEEE, exact
};
struct ExpKernel {
  using Scalar = scalar_functors::Exp;
  template <class D, class V> static V vec(D d, V x) { return hn::Exp(d, x); }
  template <class D, class V> static auto accurate(D d, V x) {
    using T = hn::TFromD<D>;
    return within(d, x, exp_lowest<T>, exp_highest<T>);
  }
};
struct LogKernel {
  using Scalar = scalar_functors::Log;
  template <class D, class V> static V vec(D d, V x) { return hn::Log(d, x); }
  template <class D, class V> static auto accurate(D d, V x) {
    using T = hn::TFromD<D>;
    return within(d, x, std::numeric_limits<T>::denorm_min(), largest<T>);
  }
};
struct SinKernel {
  using Scalar = scalar_functors::Sin;
  template <class D, class V> static V vec(D d, V x) {  // Highway's Sin(-0) is +0
    return hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, hn::Sin(d, x));
  }
  template <class D, class V> static auto accurate(D d, V x) {
    return within(d, x, -trig_limit, trig_limit);
  }
};
struct CosKernel {
  using Scalar = scalar_functors::Cos;
  template <class D, class V> static V vec(D d, V x) { return hn::Cos(d, x); }
  template <class D, class V> static auto accurate(D d, V x) {
    return within(d, x, -trig_limit, trig_limit);
  }
};
struct TanhKernel {
  using Scalar = scalar_functors::Tanh;
  template <class D, class V> static V vec(D d, V x) { return hn::Tanh(d, x); }
  template <class D, class V> static auto accurate(D d, V x) {
    using T = hn::TFromD<D>;
    return within(d, x, -largest<T>, largest<T>);
  }
};
struct SigmoidKernel {  // 1 / (1 + exp(-x)), as the scalar reference computes it
  using Scalar = scalar_functors::Sigmoid;
  template <class D, class V> static V vec(D d, V x) {
    const V one = hn::Set(d, hn::TFromD<D>(1));
    return hn::Div(one, hn::Add(one, hn::Exp(d, hn::Neg(x))));
  }
  template <class D, class V> static auto accurate(D d, V x) {
    using T = hn::TFromD<D>;
    return within(d, x, -exp_highest<T>, -exp_lowest<T>);
  }
};

// pow's strength reductions: IEEE operations in the scalar reference's order, so exact.
struct CubeKernel {
  using Scalar = scalar_functors::Cube;
  template <class D, class V> static V vec(D, V x) { return hn::Mul(hn::Mul(x, x), x); }
  template <class D, class V> static auto accurate(D d, V) { return hn::FirstN(d, hn::Lanes(d)); }
};
struct RsqrtKernel {
  using Scalar = scalar_functors::Rsqrt;
  template <class D, class V> static V vec(D d, V x) {
    return hn::Div(hn::Set(d, hn::TFromD<D>(1)), hn::Sqrt(x));
  }
  template <class D, class V> static auto accurate(D d, V) { return hn::FirstN(d, hn::Lanes(d)); }
};
struct InverseSquareKernel {
  using Scalar = scalar_functors::InverseSquare;
  template <class D, class V> static V vec(D d, V x) {
    return hn::Div(hn::Set(d, hn::TFromD<D>(1)), hn::Mul(x, x));
  }
  template <class D, class V> static auto accurate(D d, V) { return hn::FirstN(d, hn::Lanes(d)); }
};

// Each element's result depends on its value alone, not on its neighbours or its place in
// the run, so a per-example op and its batched form agree bit for bit: lanes outside the
// kernel's accurate range take the scalar reference, and the tail is one vector padded
// with 1s (accurate for every kernel).
template <class T, class Kernel>
void unary_vector(const T* in, T* out) {  // one full vector; out may be in
  const hn::ScalableTag<T> d;
  const auto x = hn::LoadU(d, in);
  const auto accurate = Kernel::accurate(d, x);
  const auto y = Kernel::vec(d, x);
  if (hn::AllTrue(d, accurate)) return hn::StoreU(y, d, out);
  constexpr size_t max_lanes = HWY_MAX_BYTES / sizeof(T);
  HWY_ALIGN T input[max_lanes], result[max_lanes], taken[max_lanes];
  hn::Store(x, d, input);
  hn::Store(y, d, result);
  hn::Store(hn::VecFromMask(d, accurate), d, taken);  // all bits set (NaN) or 0
  const typename Kernel::Scalar scalar;
  for (size_t j = 0; j < hn::Lanes(d); ++j) out[j] = taken[j] != T(0) ? result[j] : scalar(input[j]);
}

template <class T, class Kernel>
void unary_run(T* out, const T* in, int64_t count) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t k = 0;
  for (; k + lanes <= count; k += lanes) unary_vector<T, Kernel>(in + k, out + k);
  if (k == count) return;
  HWY_ALIGN T padded[HWY_MAX_BYTES / sizeof(T)];
  std::fill(padded, padded + lanes, T(1));
  std::copy(in + k, in + count, padded);
  unary_vector<T, Kernel>(padded, padded);
  std::copy(padded, padded + (count - k), out + k);
}

template <class T>
void unary_dispatch(SimdOp op, void* out, const void* in, int64_t count) {
  T* to = static_cast<T*>(out);
  const T* from = static_cast<const T*>(in);
  switch (op) {
    case SimdOp::sqrt: return unary_run<T, SqrtKernel>(to, from, count);
    case SimdOp::exp: return unary_run<T, ExpKernel>(to, from, count);
    case SimdOp::log: return unary_run<T, LogKernel>(to, from, count);
    case SimdOp::sin: return unary_run<T, SinKernel>(to, from, count);
    case SimdOp::cos: return unary_run<T, CosKernel>(to, from, count);
    case SimdOp::tanh: return unary_run<T, TanhKernel>(to, from, count);
    case SimdOp::sigmoid: return unary_run<T, SigmoidKernel>(to, from, count);
    case SimdOp::cube: return unary_run<T, CubeKernel>(to, from, count);
    case SimdOp::rsqrt: return unary_run<T, RsqrtKernel>(to, from, count);
    case SimdOp::inverse_square: return unary_run<T, InverseSquareKernel>(to, from, count);
    default: __builtin_unreachable();  // simd_unary passes only these
  }
}
void UnaryF32(SimdOp op, void* out, const void* in, int64_t count) {
  unary_dispatch<float>(op, out, in, count);
}
void UnaryF64(SimdOp op, void* out, const void* in, int64_t count) {
  unary_dispatch<double>(op, out, in, count);
}

// out[r * count + j] = source[r * source_stride + index[r * index_stride + j]] for `rows`
// rows: one dispatch for the whole run, so a row of 32 picks costs no call of its own. Each
// row's indices are checked a vector at a time first, then picked with one load each, since
// a hardware gather is slower than that (2026-11-24, AMD EPYC, AVX-512, 1 thread, 1024 rows
// of 32 picks: the batch gather sample 0.039-0.048 ms cpu with GatherIndex, 0.032 ms with one
// load per element; BM_Gather of ops_bench.cpp 29.7 us with those loads, 22.5 us with eight
// loads before their stores; a call per row cost the sample another 0.01 ms over the plain
// loop's 0.020). An index outside [0, limit) reads the row's element 0 and makes the result
// nonzero (simd_pick's contract).
template <class T>
uint64_t pick_rows(T* out, const T* source, int64_t source_stride, const int64_t* index,
                   int64_t index_stride, int64_t rows, int64_t count, int64_t limit) {
  const hn::ScalableTag<int64_t> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(di));
  const auto zero = hn::Zero(di), bound = hn::Set(di, limit);
  uint64_t result = 0;
  for (int64_t r = 0; r < rows; ++r, out += count, source += source_stride, index += index_stride) {
    auto in_range = hn::Eq(zero, zero);
    int64_t k = 0;
    for (; k + lanes <= count; k += lanes) {
      const auto i = hn::LoadU(di, index + k);
      in_range = hn::And(in_range, hn::AndNot(hn::Lt(i, zero), hn::Lt(i, bound)));
    }
    bool all_in_range = hn::AllTrue(di, in_range);
    for (; k < count; ++k)
      all_in_range =
          all_in_range && static_cast<uint64_t>(index[k]) < static_cast<uint64_t>(limit);
    if (all_in_range) {
      // Eight loads before their stores: a store between two loads may alias the next
      // index, and its own loads then wait for it.
      for (k = 0; k + 8 <= count; k += 8) {
        T picked[8];
        for (int lane = 0; lane < 8; ++lane) picked[lane] = source[index[k + lane]];
        std::memcpy(out + k, picked, sizeof picked);
      }
      for (; k < count; ++k) out[k] = source[index[k]];
      continue;
    }
    for (k = 0; k < count; ++k) {
      const uint64_t i = static_cast<uint64_t>(index[k]);
      const uint64_t safe = i < static_cast<uint64_t>(limit) ? i : 0;
      result |= i ^ safe;
      out[k] = source[safe];
    }
  }
  return result;
}
uint64_t PickF32(void* out, const void* source, int64_t source_stride, const int64_t* index,
                 int64_t index_stride, int64_t rows, int64_t count, int64_t limit) {
  return pick_rows(static_cast<float*>(out), static_cast<const float*>(source), source_stride,
                   index, index_stride, rows, count, limit);
}
uint64_t PickF64(void* out, const void* source, int64_t source_stride, const int64_t* index,
                 int64_t index_stride, int64_t rows, int64_t count, int64_t limit) {
  return pick_rows(static_cast<double*>(out), static_cast<const double*>(source), source_stride,
                   index, index_stride, rows, count, limit);
}

}  // namespace vmap::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vmap::detail {

HWY_EXPORT(AddF32);
HWY_EXPORT(SubF32);
HWY_EXPORT(MulF32);
HWY_EXPORT(DivF32);
HWY_EXPORT(MaxF32);
HWY_EXPORT(MinF32);
HWY_EXPORT(AddF64);
HWY_EXPORT(SubF64);
HWY_EXPORT(MulF64);
HWY_EXPORT(DivF64);
HWY_EXPORT(MaxF64);
HWY_EXPORT(MinF64);
HWY_EXPORT(AddI32);
HWY_EXPORT(SubI32);
HWY_EXPORT(MulI32);
HWY_EXPORT(MaxI32);
HWY_EXPORT(MinI32);
HWY_EXPORT(AddI64);
HWY_EXPORT(SubI64);
#define VMAP_COMPARISON_OP(name, Functor, symbol) \
  HWY_EXPORT(Functor##F32);                       \
  HWY_EXPORT(Functor##F64);                       \
  HWY_EXPORT(Functor##I32);                       \
  HWY_EXPORT(Functor##I64);
#include <vmap/detail/pointwise_ops.def>
HWY_EXPORT(LogicalAndB8);
HWY_EXPORT(LogicalOrB8);
HWY_EXPORT(PickF32);
HWY_EXPORT(PickF64);
HWY_EXPORT(WhereF32);
HWY_EXPORT(WhereF64);
HWY_EXPORT(WhereI32);
HWY_EXPORT(WhereI64);
HWY_EXPORT(WhereB8);
HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryF64);

namespace {
using Kernel = void (*)(void*, const void*, int64_t, const void*, int64_t, int64_t,
                       const int64_t*, int64_t);

// The comparison kernel of `op` on `dtype`, or nullptr (not a comparison, or bool operands).
Kernel comparison_kernel(SimdOp op, Dtype dtype) {
  switch (op) {
#define VMAP_COMPARISON_OP(name, Functor, symbol)                      \
  case SimdOp::name:                                                   \
    switch (dtype) {                                                   \
      case Dtype::Float32: return HWY_DYNAMIC_DISPATCH(Functor##F32);  \
      case Dtype::Float64: return HWY_DYNAMIC_DISPATCH(Functor##F64);  \
      case Dtype::Int32: return HWY_DYNAMIC_DISPATCH(Functor##I32);    \
      case Dtype::Int64: return HWY_DYNAMIC_DISPATCH(Functor##I64);    \
      case Dtype::Bool: return nullptr;                                \
    }                                                                  \
    return nullptr;
#include <vmap/detail/pointwise_ops.def>
    default: return nullptr;
  }
}

Kernel kernel_for(SimdOp op, Dtype dtype) {
  if (const Kernel comparison = comparison_kernel(op, dtype)) return comparison;
  switch (dtype) {
    case Dtype::Float32:
      switch (op) {
        case SimdOp::add: return HWY_DYNAMIC_DISPATCH(AddF32);
        case SimdOp::sub: return HWY_DYNAMIC_DISPATCH(SubF32);
        case SimdOp::mul: return HWY_DYNAMIC_DISPATCH(MulF32);
        case SimdOp::div: return HWY_DYNAMIC_DISPATCH(DivF32);
        case SimdOp::max: return HWY_DYNAMIC_DISPATCH(MaxF32);
        case SimdOp::min: return HWY_DYNAMIC_DISPATCH(MinF32);
        default: return nullptr;
      }
    case Dtype::Float64:
      switch (op) {
        case SimdOp::add: return HWY_DYNAMIC_DISPATCH(AddF64);
        case SimdOp::sub: return HWY_DYNAMIC_DISPATCH(SubF64);
        case SimdOp::mul: return HWY_DYNAMIC_DISPATCH(MulF64);
        case SimdOp::div: return HWY_DYNAMIC_DISPATCH(DivF64);
        case SimdOp::max: return HWY_DYNAMIC_DISPATCH(MaxF64);
        case SimdOp::min: return HWY_DYNAMIC_DISPATCH(MinF64);
        default: return nullptr;
      }
    case Dtype::Int32:
      switch (op) {
        case SimdOp::add: return HWY_DYNAMIC_DISPATCH(AddI32);
        case SimdOp::sub: return HWY_DYNAMIC_DISPATCH(SubI32);
        case SimdOp::mul: return HWY_DYNAMIC_DISPATCH(MulI32);
        case SimdOp::max: return HWY_DYNAMIC_DISPATCH(MaxI32);
        case SimdOp::min: return HWY_DYNAMIC_DISPATCH(MinI32);
        default: return nullptr;
      }
    case Dtype::Int64:
      switch (op) {
        case SimdOp::add: return HWY_DYNAMIC_DISPATCH(AddI64);
        case SimdOp::sub: return HWY_DYNAMIC_DISPATCH(SubI64);
        default: return nullptr;
      }
    case Dtype::Bool:
      switch (op) {
        case SimdOp::logical_and: return HWY_DYNAMIC_DISPATCH(LogicalAndB8);
        case SimdOp::logical_or: return HWY_DYNAMIC_DISPATCH(LogicalOrB8);
        default: return nullptr;
      }
  }
  return nullptr;
}
}  // namespace

bool simd_binary(SimdOp op, Dtype dtype, void* out, const void* a, int64_t a_step,
                 const void* b, int64_t b_step, int64_t count, const int64_t* row_strides,
                 int64_t rows) {
  // Both operands broadcast: nothing to vectorise.
  if (a_step == 0 && b_step == 0) return false;
  const Kernel kernel = kernel_for(op, dtype);
  if (kernel == nullptr) return false;
  kernel(out, a, a_step, b, b_step, count, row_strides, rows);
  return true;
}

bool simd_where(Dtype dtype, void* out, const bool* condition, const void* a, int64_t a_step,
                const void* b, int64_t b_step, int64_t count, const int64_t* row_strides,
                int64_t rows) {
  using Kernel = void (*)(void*, const bool*, const void*, int64_t, const void*, int64_t, int64_t,
                         const int64_t*, int64_t);
  Kernel kernel = nullptr;
  switch (dtype) {
    case Dtype::Float32: kernel = HWY_DYNAMIC_DISPATCH(WhereF32); break;
    case Dtype::Float64: kernel = HWY_DYNAMIC_DISPATCH(WhereF64); break;
    case Dtype::Int32: kernel = HWY_DYNAMIC_DISPATCH(WhereI32); break;
    case Dtype::Int64: kernel = HWY_DYNAMIC_DISPATCH(WhereI64); break;
    case Dtype::Bool: kernel = HWY_DYNAMIC_DISPATCH(WhereB8); break;
  }
  if (kernel == nullptr) return false;
  kernel(out, condition, a, a_step, b, b_step, count, row_strides, rows);
  return true;
}

uint64_t simd_pick(Dtype dtype, void* out, const void* source, int64_t source_stride,
                   const int64_t* index, int64_t index_stride, int64_t rows, int64_t count,
                   int64_t limit) {
  const auto pick =
      dtype == Dtype::Float64 ? HWY_DYNAMIC_DISPATCH(PickF64) : HWY_DYNAMIC_DISPATCH(PickF32);
  return pick(out, source, source_stride, index, index_stride, rows, count, limit);
}

bool simd_unary(SimdOp op, Dtype dtype, void* out, const void* in, int64_t count) {
  if (op < SimdOp::sqrt) return false;
  if (dtype == Dtype::Float32) HWY_DYNAMIC_DISPATCH(UnaryF32)(op, out, in, count);
  else if (dtype == Dtype::Float64) HWY_DYNAMIC_DISPATCH(UnaryF64)(op, out, in, count);
  else return false;
  return true;
}

}  // namespace vmap::detail
#endif  // HWY_ONCE
