// The non-pointwise ops: reductions, gather / index_select, and matmul next to cblas_sgemm.
// Counters: bytes_per_second for the memory-bound ops (compare with BM_TriadReference of
// runtime_bench.cpp, same binary, same run), FLOP/s for products, and vs_sgemm = sgemm's time
// / matmul's time, both measured (fastest of the iterations) inside one benchmark so a noisy
// machine hits them alike (the target is >= 0.9). OMP_NUM_THREADS sets the threads of the
// runtime and of OpenBLAS (the OpenMP build) alike; run with 1 and with 2.
#include <vmap/vmap.hpp>

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <chrono>

using namespace vmap;

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double seconds_of(F&& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void set_bytes(benchmark::State& state, double bytes_per_iteration) {
  state.SetBytesProcessed(static_cast<int64_t>(bytes_per_iteration) * state.iterations());
}

void set_flops(benchmark::State& state, double flops_per_iteration) {
  state.counters["FLOPS"] = benchmark::Counter(flops_per_iteration,
                                               benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Sum(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor x = rand({n});
  for (auto _ : state) benchmark::DoNotOptimize(x.sum());
  set_bytes(state, 4.0 * n);
}

// [rows, 1024] reduced over dim 1 (inner, contiguous runs) or dim 0 (the vertical loop).
void BM_SumDim(benchmark::State& state) {
  const int64_t dim = state.range(0), rows = 1024;
  const Tensor x = rand({rows, 1024});
  for (auto _ : state) benchmark::DoNotOptimize(x.sum({dim}));
  set_bytes(state, 4.0 * rows * 1024);
}

void BM_Amax(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor x = rand({n});
  for (auto _ : state) benchmark::DoNotOptimize(x.amax());
  set_bytes(state, 4.0 * n);
}

// PERFORMANCE.md's batch gather: [1024, 256] input, 32 indices per row.
void BM_Gather(benchmark::State& state) {
  const Tensor input = rand({1024, 256});
  const Tensor index = randint(0, 256, {1024, 32});
  for (auto _ : state) benchmark::DoNotOptimize(input.gather(1, index));
  // Reads of the index and of the picked elements, writes of the result.
  set_bytes(state, 1024.0 * 32 * (8 + 4 + 4));
}

// Whole rows picked from [4096, 256]: each index copies one contiguous row.
void BM_IndexSelect(benchmark::State& state) {
  const int64_t picked = state.range(0);
  const Tensor input = rand({4096, 256});
  const Tensor index = randint(0, 4096, {picked});
  for (auto _ : state) benchmark::DoNotOptimize(input.index_select(0, index));
  set_bytes(state, static_cast<double>(picked) * (8 + 2 * 256 * 4));
}

void BM_Matmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = rand({n, n}), b = rand({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(matmul(a, b));
  set_flops(state, 2.0 * n * n * n);
}

void BM_SgemmDirect(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Tensor a = rand({n, n}), b = rand({n, n});
  Tensor c = empty({n, n});
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data_ptr<float>(), n,
                b.data_ptr<float>(), n, 0.0f, c.data_ptr<float>(), n);
    benchmark::DoNotOptimize(c.data_ptr<float>());
  }
  set_flops(state, 2.0 * n * n * n);
}

// matmul and cblas_sgemm on the same operands, alternating, in one benchmark.
void BM_MatmulVsSgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Tensor a = rand({n, n}), b = rand({n, n});
  Tensor c = empty({n, n});
  double best_matmul = 1e30, best_sgemm = 1e30;
  for (auto _ : state) {
    best_matmul = std::min(best_matmul, seconds_of([&] { benchmark::DoNotOptimize(matmul(a, b)); }));
    best_sgemm = std::min(best_sgemm, seconds_of([&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data_ptr<float>(),
                  n, b.data_ptr<float>(), n, 0.0f, c.data_ptr<float>(), n);
      benchmark::DoNotOptimize(c.data_ptr<float>());
    }));
  }
  const double flops = 2.0 * n * n * n;
  state.counters["matmul_GFLOPS"] = flops / best_matmul * 1e-9;
  state.counters["sgemm_GFLOPS"] = flops / best_sgemm * 1e-9;
  state.counters["vs_sgemm"] = best_sgemm / best_matmul;
}

// PERFORMANCE.md's Linear per vector, batched: [10000, 256] @ W^T [256, 256] + b.
void BM_Linear(benchmark::State& state) {
  const Tensor x = rand({10000, 256}), weight = rand({256, 256}), bias = rand({256});
  for (auto _ : state) benchmark::DoNotOptimize(linear(x, weight, bias));
  set_flops(state, 2.0 * 10000 * 256 * 256);
}

void BM_Softmax(benchmark::State& state) {
  const Tensor x = rand({1024, 1024});
  for (auto _ : state) benchmark::DoNotOptimize(x.softmax(1));
  set_bytes(state, 2.0 * 4 * 1024 * 1024);
}

// The fixed cost of a reduction and of a tiny product (compare with BM_OverheadAdd1).
void BM_OverheadSum1(benchmark::State& state) {
  const Tensor x = ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(x.sum());
}
void BM_OverheadMatmul2x2(benchmark::State& state) {
  const Tensor a = ones({2, 2});
  for (auto _ : state) benchmark::DoNotOptimize(matmul(a, a));
}
void BM_OverheadIndexSelect1(benchmark::State& state) {
  const Tensor x = ones({4}), index = zeros({1}, kInt64);
  for (auto _ : state) benchmark::DoNotOptimize(x.index_select(0, index));
}

constexpr int64_t small = 4096, l3 = 1 << 20, dram = 1 << 24;

}  // namespace

BENCHMARK(BM_Sum)->Arg(small)->Arg(l3)->Arg(dram)->UseRealTime();
BENCHMARK(BM_SumDim)->Arg(0)->Arg(1)->UseRealTime();
BENCHMARK(BM_Amax)->Arg(l3)->UseRealTime();
BENCHMARK(BM_Gather)->UseRealTime();
BENCHMARK(BM_IndexSelect)->Arg(64)->Arg(2048)->UseRealTime();
BENCHMARK(BM_Matmul)->Arg(64)->Arg(1024)->UseRealTime();
BENCHMARK(BM_SgemmDirect)->Arg(64)->Arg(1024)->UseRealTime();
BENCHMARK(BM_MatmulVsSgemm)->Arg(64)->Arg(1024)->UseRealTime();
BENCHMARK(BM_Linear)->UseRealTime();
BENCHMARK(BM_Softmax)->UseRealTime();
BENCHMARK(BM_OverheadSum1);
BENCHMARK(BM_OverheadMatmul2x2);
BENCHMARK(BM_OverheadIndexSelect1);
