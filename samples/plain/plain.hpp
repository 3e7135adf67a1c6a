// What every plain C++ loop (samples/plain/<sample>.cpp) shares. Note [Plain C++ loops]:
// each sample's workload written as a performance engineer writes it by hand: raw pointers
// into the same inputs (made by the same calls, so the outputs compare with the per-example
// loop's), -O3 -march=native (the vector ISA the runtime's Highway kernels pick at run
// time) with -fno-math-errno (so std::sqrt vectorises), OpenMP threads over the
// outermost loop (OMP_NUM_THREADS, as the runtime), a loop vectorised with `omp simd` where
// the compiler may not reorder a sum by itself. Each case allocates its output as the
// sample's own case does (zeros of the same shape), so the columns differ by the loop alone.
// No algebra that changes the rounding (a GEMM for the distances, a product of sums for
// sum_prod), as the target asks; where the sample is a matrix product (Linear, the
// GNN layer) the plain code calls the same BLAS sgemm the runtime does. The softmax loop
// (token_log_probs) is built with -ffast-math, so that std::exp vectorises.
#pragma once

#include <vmap/vmap.hpp>

#include "../harness/sample.hpp"

#include <cstdint>

namespace plain {

// Work (elements x rough cost) below which a loop runs on one thread: the same grain as the
// runtime's (parallel_grain in runtime/src/internal.hpp), so neither pays a fork the other
// skips.
inline constexpr int64_t kGrain = int64_t{1} << 15;

}  // namespace plain
