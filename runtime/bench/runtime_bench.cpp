// Memory-bound ops against a STREAM-triad loop measured in the same process, and the fixed
// cost of an op on 1-element tensors. Counters: bytes_per_second, and vs_triad = the op's
// bandwidth / the triad's at the same size (the target is >= 0.8 on large tensors).
// Thread count: OMP_NUM_THREADS applies to the runtime and the triad alike.
#include <vmap/vmap.hpp>

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

using namespace vmap;

namespace {

// Best-of-N bandwidth (bytes/s) of a[i] = b[i] + s * c[i] over n floats.
double triad_bandwidth(int64_t n) {
  static std::map<int64_t, double> cache;
  if (auto found = cache.find(n); found != cache.end()) return found->second;
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  const float s = 3.0f;
  double best = 1e30;
  for (int round = 0; round < 20; ++round) {
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    const auto stop = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(a.data());
    best = std::min(best, std::chrono::duration<double>(stop - start).count());
  }
  return cache[n] = 3.0 * sizeof(float) * static_cast<double>(n) / best;
}

void report(benchmark::State& state, int64_t n, int arrays) {
  const double bytes = static_cast<double>(arrays) * sizeof(float) * static_cast<double>(n);
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  // (seconds the triad's bandwidth needs for these bytes) x iterations / elapsed seconds.
  state.counters["vs_triad"] =
      benchmark::Counter(bytes / triad_bandwidth(n), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_TriadReference(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
    benchmark::DoNotOptimize(a.data());
  }
  report(state, n, 3);
}

void BM_Add(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = ones({n}), b = ones({n});
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
  report(state, n, 3);
}

void BM_AddInPlace(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = ones({n}), b = ones({n});
  for (auto _ : state) a += b;
  report(state, n, 3);
}

// x = x * x five times: five passes over the data.
void BM_MulChain(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor start = full({n}, 1.0001);
  for (auto _ : state) {
    Tensor x = start;
    for (int k = 0; k < 5; ++k) x = x * x;
    benchmark::DoNotOptimize(x);
  }
  report(state, n, 15);
}

void BM_Copy(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = ones({n}), b = zeros({n});
  for (auto _ : state) b.copy_(a);
  report(state, n, 2);
}

void BM_CopyTransposed(benchmark::State& state) {
  const int64_t side = state.range(0);
  Tensor a = ones({side, side}), b = zeros({side, side});
  for (auto _ : state) b.copy_(a.t());
  report(state, side * side, 2);
}

// Fixed per-op costs (LibTorch 1.13 here: add 646 ns, x[i] 313 ns, out[i] = t 840 ns,
// item() 437 ns, empty({1}) 240 ns).
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
BENCHMARK(BM_Copy)->Arg(small)->Arg(l3)->Arg(dram)->UseRealTime();
BENCHMARK(BM_CopyTransposed)->Arg(64)->Arg(1024)->UseRealTime();
BENCHMARK(BM_OverheadAdd1);
BENCHMARK(BM_OverheadIndex);
BENCHMARK(BM_OverheadStoreSlot);
BENCHMARK(BM_OverheadItem);
BENCHMARK(BM_OverheadEmpty);
