// Compiled fused kernels (Note [Compiled fusion]) against a raw-pointer loop a performance
// engineer would write, and against the same lambda run by the batched ops (the run-time
// fusion of Note [Pending values]): the seed workloads the kernels serve. Run on one thread
// with OMP_NUM_THREADS=1 (the kernels and the loops then both run serially).
#include <vmap/batched.hpp>

#include <benchmark/benchmark.h>

#include <vector>

namespace {

using namespace vmap;
namespace vb = vmap::batched;

struct Distances {
  Tensor x, y, out;
  Distances(int64_t n, int64_t m, int64_t d)
      : x(randn({n, d})), y(randn({m, d})), out(zeros({n, m})) {}
};

void BM_DistanceFused(benchmark::State& state) {
  Distances data(state.range(0), state.range(1), state.range(2));
  const bool compiled = state.range(3) != 0;
  for (auto _ : state) {
    vb::Level level0(0, data.x.size(0));
    const vb::Value i = level0.index();
    vb::Level level1(0, data.y.size(0));
    const vb::Value j = level1.index();
    auto chain = vb::fused([](const auto& a, const auto& b) { return (a - b).pow(2); },
                           vb::at(data.x, i), vb::at(data.y, j));
    vb::at(vb::at(data.out, i), j) = compiled ? chain.sum() : chain.batched().sum();
    benchmark::DoNotOptimize(data.out.raw_data());
  }
}

void BM_DistanceLoop(benchmark::State& state) {
  Distances data(state.range(0), state.range(1), state.range(2));
  const int64_t n = data.x.size(0), m = data.y.size(0), d = data.x.size(1);
  for (auto _ : state) {
    const float* x = data.x.data_ptr<float>();
    const float* y = data.y.data_ptr<float>();
    float* out = data.out.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        float acc = 0;
        for (int64_t k = 0; k < d; ++k) {
          const float diff = x[i * d + k] - y[j * d + k];
          acc += diff * diff;
        }
        out[i * m + j] = acc;
      }
    benchmark::DoNotOptimize(out);
  }
}

// samples/plain/pairwise_distance.cpp's loop: y transposed once, each x_i's row of
// distances accumulated along k with the inner loop over j contiguous.
void BM_DistanceTransposedLoop(benchmark::State& state) {
  Distances data(state.range(0), state.range(1), state.range(2));
  const int64_t n = data.x.size(0), m = data.y.size(0), d = data.x.size(1);
  for (auto _ : state) {
    const float* x = data.x.data_ptr<float>();
    const float* y = data.y.data_ptr<float>();
    float* out = data.out.data_ptr<float>();
    std::vector<float> columns(static_cast<size_t>(d * m));
    for (int64_t j = 0; j < m; ++j)
      for (int64_t k = 0; k < d; ++k) columns[static_cast<size_t>(k * m + j)] = y[j * d + k];
    for (int64_t i = 0; i < n; ++i) {
      float* row = out + i * m;
      for (int64_t j = 0; j < m; ++j) row[j] = 0;
      for (int64_t k = 0; k < d; ++k) {
        const float value = x[i * d + k];
        const float* column = columns.data() + k * m;
#pragma omp simd
        for (int64_t j = 0; j < m; ++j) {
          const float difference = value - column[j];
          row[j] += difference * difference;
        }
      }
    }
    benchmark::DoNotOptimize(out);
  }
}

void BM_SumProdFused(benchmark::State& state) {
  const Tensor x = rand({state.range(0)}), y = rand({state.range(0)});
  const bool compiled = state.range(1) != 0;
  for (auto _ : state) {
    Tensor total = zeros({}, kDouble);
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::Level level1(0, y.size(0));
    const vb::Value j = level1.index();
    auto chain = vb::fused([](const auto& a, const auto& b) { return a * b; }, vb::at(x, i),
                           vb::at(y, j));
    if (compiled)
      vb::accumulate(total, chain, vb::Reduce::add);
    else
      vb::accumulate(total, chain.batched(), vb::Reduce::add);
    benchmark::DoNotOptimize(total.raw_data());
  }
}

void BM_SumProdLoop(benchmark::State& state) {
  const Tensor x = rand({state.range(0)}), y = rand({state.range(0)});
  const int64_t n = x.size(0);
  for (auto _ : state) {
    Tensor total = zeros({}, kDouble);
    const float* a = x.data_ptr<float>();
    const float* b = y.data_ptr<float>();
    double acc = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) acc += static_cast<double>(a[i] * b[j]);
    total.fill_(acc);
    benchmark::DoNotOptimize(total.raw_data());
  }
}

// {n, m, d, compiled}
BENCHMARK(BM_DistanceFused)
    ->Args({2, 2, 10, 1})
    ->Args({100, 200, 10, 1})
    ->Args({100, 200, 10, 0})
    ->Args({2000, 2000, 64, 1})
    ->Args({2000, 2000, 64, 0})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DistanceLoop)->Args({100, 200, 10})->Args({2000, 2000, 64})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DistanceTransposedLoop)
    ->Args({100, 200, 10})
    ->Args({2000, 2000, 64})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SumProdFused)->Args({100, 1})->Args({100, 0})->Args({4096, 1})->Args({4096, 0})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SumProdLoop)->Arg(100)->Arg(4096)->Unit(benchmark::kMicrosecond);

}  // namespace
