// The vector ISA compiled kernels' hot loops are built for (Note [Vector ISA of compiled
// kernels]): fused chains (vmap/fused.hpp) and scalar kernels (vmap/fused_scalar.hpp).
#pragma once

namespace vmap::batched::detail {

// Note [Vector ISA of compiled kernels]
// A fused kernel is compiled in the user's translation unit, with the user's flags: on
// x86-64 without -mavx2 that is SSE2, 4 floats a vector, where the runtime's Highway kernels
// (and a plain loop built with -march=native) use the machine's AVX2 or AVX-512. So each hot
// loop is a lambda the compiler must inline (VMAP_FUSED_LOOP) run by run_in_fused_isa,
// compiled for AVX2 + FMA, or for AVX-512 where VMAP_FUSED_AVX512 is defined (the CMake
// helper clang_vmap_sources defines it on a machine that has AVX-512: 16 floats a vector,
// as the plain loop's -march=native; a 100x200x10 pairwise distance 14-20% faster), and
// only where the user's flags target less. rules/src/fused.cpp runs a kernel when the CPU
// has that ISA (checked once) and takes the batched ops otherwise (a CPU without AVX2, or
// one without AVX-512 running a binary built where it was). The ISA is a template argument
// of every loop and of the kernel's table, so two translation units built with different
// settings never share one. Results may differ from the eager ops by FMA contraction (the
// compiler's choice, as already under -march=native), never by the thread count.
enum class VectorIsa { users, avx2_fma, avx512 };
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#if defined(VMAP_FUSED_AVX512) && !defined(__AVX512F__)
#define VMAP_FUSED_TARGET "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma"
#if defined(__clang__)
#define VMAP_EXACT_TARGET "avx2"
#else
#define VMAP_EXACT_TARGET "avx512f,avx512vl,avx512bw,avx512dq,avx2"
#endif
inline constexpr VectorIsa kFusedIsa = VectorIsa::avx512;
#elif !defined(VMAP_FUSED_AVX512) && !(defined(__AVX2__) && defined(__FMA__))
#define VMAP_FUSED_TARGET "avx2,fma"
#define VMAP_EXACT_TARGET "avx2"
inline constexpr VectorIsa kFusedIsa = VectorIsa::avx2_fma;
#endif
#endif
// Whether this CPU runs code compiled for `isa` (checked once per ISA).
bool cpu_runs(VectorIsa isa);

#ifdef VMAP_FUSED_TARGET
#define VMAP_FUSED_LOOP __attribute__((always_inline))
template <class Loop>
__attribute__((target(VMAP_FUSED_TARGET))) void run_in_fused_isa(const Loop& loop) {
  loop();
}
// Without the FMA the user's flags do not enable: the compiler contracts no `a * b + c` the
// loop as written rounds twice, so a scalar kernel's lanes compute the user's C++ to the bit
// (an escape count depends on every rounding). AVX-512 brings FMA: GCC takes it with
// contraction off for the function (and the kernel inlined into it; a 1024x1024 mask of
// int64 compares 2.4x faster than in AVX2); clang contracts as each expression was parsed,
// so there it is AVX2, which has no FMA.
#if defined(__clang__)
#define VMAP_EXACT_ATTRIBUTES target(VMAP_EXACT_TARGET)
#else
#define VMAP_EXACT_ATTRIBUTES target(VMAP_EXACT_TARGET), optimize("fp-contract=off")
#endif
template <class Loop>
__attribute__((VMAP_EXACT_ATTRIBUTES)) void run_in_exact_isa(const Loop& loop) {
  loop();
}
// The same, every call inside inlined: a scalar kernel's lane form (Note [Lane kernels] in
// fused_scalar.hpp) is a lambda of the user's that the compiler may choose not to inline, and
// then its code would be the user's flags' ISA, not this one.
template <class Loop>
__attribute__((VMAP_EXACT_ATTRIBUTES, flatten)) void run_flat_in_exact_isa(const Loop& loop) {
  loop();
}
#undef VMAP_FUSED_TARGET
#undef VMAP_EXACT_TARGET
#undef VMAP_EXACT_ATTRIBUTES
#else
#define VMAP_FUSED_LOOP
inline constexpr VectorIsa kFusedIsa = VectorIsa::users;
template <class Loop>
void run_in_fused_isa(const Loop& loop) {
  loop();
}
template <class Loop>
void run_in_exact_isa(const Loop& loop) {
  loop();
}
template <class Loop>
__attribute__((flatten)) void run_flat_in_exact_isa(const Loop& loop) {
  loop();
}
#endif

}  // namespace vmap::batched::detail
