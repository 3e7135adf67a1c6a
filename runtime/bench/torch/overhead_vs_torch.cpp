// Ops in vmap and in LibTorch, measured side by side in one benchmark so that a noisy machine
// hits both alike: the fixed cost of an op on tiny tensors (the *VsTorch benchmarks before
// the kernels), and the kernels that the samples' batched code spends its time in. Each
// benchmark iteration times a batch of the vmap op and a batch of the LibTorch op; the
// counters are the fastest batch's time per op (vmap_ns, torch_ns) and vs_torch = vmap_ns /
// torch_ns (issue 2's target for the fixed cost: at most 0.2; for the kernels: at most 1).
// One thread and no autograd, as PERFORMANCE.md measured LibTorch.
#include <vmap/vmap.hpp>

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double seconds_per_op(F&& op, int batch) {
  const auto start = Clock::now();
  for (int k = 0; k < batch; ++k) op();
  return std::chrono::duration<double>(Clock::now() - start).count() / batch;
}

template <class VmapOp, class TorchOp>
void compare(benchmark::State& state, VmapOp vmap_op, TorchOp torch_op, int batch = 1000) {
  torch::NoGradGuard no_grad;
  torch::set_num_threads(1);
  double best_vmap = 1e30, best_torch = 1e30;
  for (auto _ : state) {
    best_vmap = std::min(best_vmap, seconds_per_op(vmap_op, batch));
    best_torch = std::min(best_torch, seconds_per_op(torch_op, batch));
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

// --- kernels (batches of about a millisecond)

// pairwise_distance's difference: inner runs of 10 with one operand broadcast over the rows.
void BM_BroadcastSubShortRowsVsTorch(benchmark::State& state) {
  const vmap::Tensor x = vmap::rand({100, 1, 10}), y = vmap::rand({1, 200, 10});
  const torch::Tensor tx = torch::rand({100, 1, 10}), ty = torch::rand({1, 200, 10});
  compare(state, [&] { benchmark::DoNotOptimize(x - y); },
          [&] { benchmark::DoNotOptimize(tx - ty); }, 10);
}

// pairwise_distance's sum over a last dim of 10.
void BM_SumShortRowsVsTorch(benchmark::State& state) {
  const vmap::Tensor x = vmap::rand({20000, 10});
  const torch::Tensor tx = torch::rand({20000, 10});
  compare(state, [&] { benchmark::DoNotOptimize(x.sum({1})); },
          [&] { benchmark::DoNotOptimize(tx.sum(1)); }, 10);
}

// triangular_mask's `j >= i`: int64 operands broadcast to a bool [1024, 1024].
void BM_CompareBroadcastInt64VsTorch(benchmark::State& state) {
  const vmap::Tensor i = vmap::arange(0, 1024, vmap::kInt64).reshape({1024, 1});
  const vmap::Tensor j = vmap::arange(0, 1024, vmap::kInt64).reshape({1, 1024});
  const torch::Tensor ti = torch::arange(1024, torch::kInt64).reshape({1024, 1});
  const torch::Tensor tj = torch::arange(1024, torch::kInt64).reshape({1, 1024});
  compare(state, [&] { benchmark::DoNotOptimize(j >= i); },
          [&] { benchmark::DoNotOptimize(tj >= ti); }, 5);
}

// batch_gather's op: [1024, 256] rows, 32 picks each.
void BM_GatherVsTorch(benchmark::State& state) {
  const vmap::Tensor x = vmap::rand({1024, 256}), index = vmap::randint(0, 256, {1024, 32});
  const torch::Tensor tx = torch::rand({1024, 256}), tindex = torch::randint(0, 256, {1024, 32});
  compare(state, [&] { benchmark::DoNotOptimize(x.gather(1, index)); },
          [&] { benchmark::DoNotOptimize(tx.gather(1, tindex)); }, 50);
}

// row_sqrt's op, unfused.
void BM_SqrtVsTorch(benchmark::State& state) {
  const vmap::Tensor x = vmap::rand({1000, 100});
  const torch::Tensor tx = torch::rand({1000, 100});
  compare(state, [&] { benchmark::DoNotOptimize(x.sqrt()); },
          [&] { benchmark::DoNotOptimize(tx.sqrt()); }, 20);
}

}  // namespace

BENCHMARK(BM_AddVsTorch);
BENCHMARK(BM_IndexVsTorch);
BENCHMARK(BM_StoreSlotVsTorch);
BENCHMARK(BM_ItemVsTorch);
BENCHMARK(BM_EmptyVsTorch);
BENCHMARK(BM_BroadcastSubShortRowsVsTorch);
BENCHMARK(BM_SumShortRowsVsTorch);
BENCHMARK(BM_CompareBroadcastInt64VsTorch);
BENCHMARK(BM_GatherVsTorch);
BENCHMARK(BM_SqrtVsTorch);
