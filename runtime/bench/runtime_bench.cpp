// Memory-bound ops against a STREAM-triad loop measured in the same process, and the fixed
// cost of an op on 1-element tensors. Counters: bytes_per_second, and vs_triad = the op's
// bandwidth / the triad's at the same size (the target is >= 0.8 on large tensors).
// Thread count: OMP_NUM_THREADS applies to the runtime and the triad alike; run once with 1
// and once with 2 (PERFORMANCE.md). Sizes: 4096 (L1/L2), 2^20 (L3), 2^24 floats (DRAM).
// Not part of a plain build: scripts/build.sh vmap_runtime_bench, then
//   OMP_NUM_THREADS=1 build/release/runtime/vmap_runtime_bench \
//     --benchmark_filter='Overhead|Triad|BM_Add/|MatmulVsSgemm'
// The same overheads next to LibTorch's (where libtorch-dev is installed):
// scripts/build.sh vmap_overhead_vs_torch_bench (runtime/bench/torch/overhead_vs_torch.cpp).
#include <vmap/vmap.hpp>

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

using namespace vmap;

namespace {

using Clock = std::chrono::steady_clock;

void triad(float* a, const float* b, const float* c, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
}

// Fastest of `rounds` triads over n floats, in seconds, measured now (so under the same load
// as the op it is compared with).
double triad_seconds(int64_t n, int rounds) {
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  double best = 1e30;
  for (int round = 0; round < rounds; ++round) {
    const auto start = Clock::now();
    triad(a.data(), b.data(), c.data(), n);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    benchmark::DoNotOptimize(a.data());
  }
  return best;
}

// Runs body once per iteration and reports bytes/s plus vs_triad: the op's bandwidth in its
// fastest iteration over the triad's in its fastest run (fastest-of filters out the
// preemptions of a shared machine, for both alike).
template <class Body>
void measure(benchmark::State& state, int64_t n, int arrays, Body body) {
  double best = 1e30;
  for (auto _ : state) {
    const auto start = Clock::now();
    body();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  const double bytes = static_cast<double>(arrays) * sizeof(float) * static_cast<double>(n);
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  const double triad_bytes = 3.0 * sizeof(float) * static_cast<double>(n);
  const int rounds = static_cast<int>(std::clamp<int64_t>(state.iterations(), 5, 200));
  state.counters["vs_triad"] = (bytes / best) / (triad_bytes / triad_seconds(n, rounds));
}

void BM_TriadReference(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  measure(state, n, 3, [&] {
    triad(a.data(), b.data(), c.data(), n);
    benchmark::DoNotOptimize(a.data());
  });
}

void BM_Add(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = ones({n}), b = ones({n});
  measure(state, n, 3, [&] { benchmark::DoNotOptimize(a + b); });
}

void BM_AddInPlace(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = ones({n}), b = ones({n});
  measure(state, n, 3, [&] { a += b; });
}

// x = x * x five times: five passes over the data.
void BM_MulChain(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor start = full({n}, 1.0001);
  measure(state, n, 15, [&] {
    Tensor x = start;
    for (int k = 0; k < 5; ++k) x = x * x;
    benchmark::DoNotOptimize(x);
  });
}

// x.pow(e) beside x * x, alternating in one benchmark so that both meet the same load. The
// time reported is pow's; vs_mul = x * x's fastest iteration / pow's fastest (Note [pow
// strength reduction]: pow(2) runs x * x itself; 3, -2, -0.5 are one pass too). Arg 1 is the
// exponent times 2 (1: 0.5; 5: 2.5, which is not reduced and calls std::pow per element).
void BM_PowVsMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const double exponent = static_cast<double>(state.range(1)) / 2;
  const Tensor x = rand({n}) + 0.5;
  double pow_best = 1e30, mul_best = 1e30;
  auto seconds_of = [](auto&& body) {
    const auto start = Clock::now();
    body();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  for (auto _ : state) {
    const double pow_seconds = seconds_of([&] { benchmark::DoNotOptimize(x.pow(exponent)); });
    mul_best = std::min(mul_best, seconds_of([&] { benchmark::DoNotOptimize(x * x); }));
    pow_best = std::min(pow_best, pow_seconds);
    state.SetIterationTime(pow_seconds);
  }
  state.SetBytesProcessed(static_cast<int64_t>(2 * sizeof(float) * n) * state.iterations());
  state.counters["vs_mul"] = mul_best / pow_best;
}

// The triangular mask sample's op: j >= i over [1, n] and [n, 1] int64 indices, n x n bools
// (memset-bound at best: compare with BM_Zeros at n * n / 4 floats, the same bytes).
void BM_CompareToBools(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor j = arange(n).unsqueeze(0), i = arange(n).unsqueeze(1);
  measure(state, n * n / 4, 1, [&] { benchmark::DoNotOptimize(ge(j, i)); });
}

void BM_Copy(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = ones({n}), b = zeros({n});
  measure(state, n, 2, [&] { b.copy_(a); });
}

void BM_CopyTransposed(benchmark::State& state) {
  const int64_t side = state.range(0);
  Tensor a = ones({side, side}), b = zeros({side, side});
  measure(state, side * side, 2, [&] { b.copy_(a.t()); });
}

// The output allocation every sample call times: above one grain (32K floats) it runs on
// threads, split as the op that then writes the output (Note [Thread grain] in
// runtime/src/engine.cpp). 100000 is the per-row sqrt sample's output.
void BM_Zeros(benchmark::State& state) {
  const int64_t n = state.range(0);
  measure(state, n, 1, [&] { benchmark::DoNotOptimize(zeros({n})); });
}

// Fixed per-op costs (LibTorch 1.13 here: add 646 ns, x[i] 313 ns, out[i] = t 840 ns,
// item() 437 ns, empty({1}) 240 ns; vmap_overhead_vs_torch_bench measures both in one run).
void BM_OverheadAdd1(benchmark::State& state) {
  Tensor a = ones({1}), b = ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
}
void BM_OverheadIndex(benchmark::State& state) {
  Tensor x = ones({16, 4});
  for (auto _ : state) benchmark::DoNotOptimize(x[3]);
}
void BM_OverheadStoreSlot(benchmark::State& state) {
  Tensor out = zeros({16, 4}), t = ones({4});
  for (auto _ : state) out[3] = t;
}
void BM_OverheadItem(benchmark::State& state) {
  Tensor x = ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(x.item<float>());
}
void BM_OverheadEmpty(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(empty({1}));
}

constexpr int64_t small = 1 << 12, l3 = 1 << 20, dram = 1 << 24;

}  // namespace

BENCHMARK(BM_TriadReference)->Arg(small)->Arg(l3)->Arg(dram)->UseRealTime();
BENCHMARK(BM_Add)->Arg(small)->Arg(l3)->Arg(dram)->UseRealTime();
BENCHMARK(BM_AddInPlace)->Arg(small)->Arg(l3)->Arg(dram)->UseRealTime();
BENCHMARK(BM_MulChain)->Arg(small)->Arg(l3)->Arg(dram)->UseRealTime();
BENCHMARK(BM_PowVsMul)
    ->ArgsProduct({{small, l3}, {4, 6, 1, -1, -2, -4, 8, 5}})
    ->ArgNames({"n", "exponent_x2"})
    ->UseManualTime();
BENCHMARK(BM_CompareToBools)->Arg(1024)->UseRealTime();
BENCHMARK(BM_Zeros)->Arg(1 << 15)->Arg(100000)->Arg(l3)->UseRealTime();
BENCHMARK(BM_Copy)->Arg(small)->Arg(l3)->Arg(dram)->UseRealTime();
BENCHMARK(BM_CopyTransposed)->Arg(64)->Arg(1024)->UseRealTime();
BENCHMARK(BM_OverheadAdd1);
BENCHMARK(BM_OverheadIndex);
BENCHMARK(BM_OverheadStoreSlot);
BENCHMARK(BM_OverheadItem);
BENCHMARK(BM_OverheadEmpty);
