// The fixed cost of an op on tiny tensors in vmap and in LibTorch, measured side by side in
// one benchmark so that a noisy machine hits both alike. Each benchmark iteration times a
// batch of the vmap op and a batch of the LibTorch op; the counters are the fastest batch's
// time per op (vmap_ns, torch_ns) and vs_torch = vmap_ns / torch_ns (issue 2's target: at
// most 0.2). One thread and no autograd, as PERFORMANCE.md measured LibTorch.
#include <vmap/vmap.hpp>

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int batch = 1000;

template <class F>
double seconds_per_op(F&& op) {
  const auto start = Clock::now();
  for (int k = 0; k < batch; ++k) op();
  return std::chrono::duration<double>(Clock::now() - start).count() / batch;
}

template <class VmapOp, class TorchOp>
void compare(benchmark::State& state, VmapOp vmap_op, TorchOp torch_op) {
  torch::NoGradGuard no_grad;
  torch::set_num_threads(1);
  double best_vmap = 1e30, best_torch = 1e30;
  for (auto _ : state) {
    best_vmap = std::min(best_vmap, seconds_per_op(vmap_op));
    best_torch = std::min(best_torch, seconds_per_op(torch_op));
  }
  state.counters["vmap_ns"] = best_vmap * 1e9;
  state.counters["torch_ns"] = best_torch * 1e9;
  state.counters["vs_torch"] = best_vmap / best_torch;
}

void BM_AddVsTorch(benchmark::State& state) {
  const vmap::Tensor a = vmap::ones({1}), b = vmap::ones({1});
  const torch::Tensor ta = torch::ones({1}), tb = torch::ones({1});
  compare(state, [&] { benchmark::DoNotOptimize(a + b); },
          [&] { benchmark::DoNotOptimize(ta + tb); });
}

void BM_IndexVsTorch(benchmark::State& state) {
  const vmap::Tensor x = vmap::ones({16, 4});
  const torch::Tensor tx = torch::ones({16, 4});
  compare(state, [&] { benchmark::DoNotOptimize(x[3]); },
          [&] { benchmark::DoNotOptimize(tx[3]); });
}

void BM_StoreSlotVsTorch(benchmark::State& state) {
  const vmap::Tensor out = vmap::zeros({16, 4}), t = vmap::ones({4});
  const torch::Tensor tout = torch::zeros({16, 4}), tt = torch::ones({4});
  compare(state, [&] { out[3] = t; }, [&] { tout[3] = tt; });
}

void BM_ItemVsTorch(benchmark::State& state) {
  const vmap::Tensor x = vmap::ones({1});
  const torch::Tensor tx = torch::ones({1});
  compare(state, [&] { benchmark::DoNotOptimize(x.item<float>()); },
          [&] { benchmark::DoNotOptimize(tx.item<float>()); });
}

void BM_EmptyVsTorch(benchmark::State& state) {
  compare(state, [] { benchmark::DoNotOptimize(vmap::empty({1})); },
          [] { benchmark::DoNotOptimize(torch::empty({1})); });
}

}  // namespace

BENCHMARK(BM_AddVsTorch);
BENCHMARK(BM_IndexVsTorch);
BENCHMARK(BM_StoreSlotVsTorch);
BENCHMARK(BM_ItemVsTorch);
BENCHMARK(BM_EmptyVsTorch);
