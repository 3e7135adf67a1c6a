// CUDA benchmarks, each against its ceiling measured in the same binary: elementwise ops and
// gathers (bytes moved per second) against a device-to-device cudaMemcpy, matrix products
// against cuBLAS called directly. Every iteration ends with the stream synchronised.
//   build-cuda/runtime/cuda/vmap_cuda_bench --benchmark_min_time=0.2
#include "../cuda/backend.hpp"

#include <vmap/vmap.hpp>

#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace {

using namespace vmap;

void synchronize() { detail::device_backend("bench").synchronize(); }

void check(cudaError_t status) {
  if (status != cudaSuccess) throw Error(cudaGetErrorString(status));
}
void check(cublasStatus_t status) {
  if (status != CUBLAS_STATUS_SUCCESS) throw Error(cublasGetStatusString(status));
}

// The ceiling: bytes read plus bytes written by a device-to-device copy.
void BM_CopyDeviceToDevice(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor source = ones({n}, kCUDA), destination = empty({n}, kCUDA);
  synchronize();  // the runtime's stream is not the legacy default stream cudaMemcpy uses
  for (auto _ : state) {
    check(cudaMemcpy(destination.raw_data(), source.raw_data(), n * sizeof(float),
                     cudaMemcpyDeviceToDevice));
    check(cudaDeviceSynchronize());
  }
  state.SetBytesProcessed(state.iterations() * 2 * n * int64_t{sizeof(float)});
}

void BM_Add(benchmark::State& state) {  // out = a + b: two reads, one write
  const int64_t n = state.range(0);
  const Tensor a = ones({n}, kCUDA), b = ones({n}, kCUDA);
  for (auto _ : state) {
    benchmark::DoNotOptimize(a + b);
    synchronize();
  }
  state.SetBytesProcessed(state.iterations() * 3 * n * int64_t{sizeof(float)});
}

void BM_MulInPlace(benchmark::State& state) {  // x *= 1: one read, one write
  const int64_t n = state.range(0);
  const Tensor x = ones({n}, kCUDA);
  for (auto _ : state) {
    x *= 1.0;
    synchronize();
  }
  state.SetBytesProcessed(state.iterations() * 2 * n * int64_t{sizeof(float)});
}

void BM_BroadcastAdd(benchmark::State& state) {  // [rows, 1024] + [1024]
  const int64_t rows = state.range(0) / 1024;
  const Tensor a = ones({rows, 1024}, kCUDA), b = ones({1024}, kCUDA);
  for (auto _ : state) {
    benchmark::DoNotOptimize(a + b);
    synchronize();
  }
  state.SetBytesProcessed(state.iterations() * 2 * rows * 1024 * int64_t{sizeof(float)});
}

void BM_Sqrt(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor x = ones({n}, kCUDA);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sqrt(x));
    synchronize();
  }
  state.SetBytesProcessed(state.iterations() * 2 * n * int64_t{sizeof(float)});
}

void BM_Sum(benchmark::State& state) {  // one read
  const int64_t n = state.range(0);
  const Tensor x = ones({n / 1024, 1024}, kCUDA);
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.sum({1}));
    synchronize();
  }
  state.SetBytesProcessed(state.iterations() * n * int64_t{sizeof(float)});
}

// Rows of 256 floats picked by a random index: reads and writes the selected rows.
void BM_IndexSelectRows(benchmark::State& state) {
  const int64_t rows = state.range(0) / 256;
  const Tensor table = ones({rows, 256}, kCUDA);
  const Tensor index = randint(0, rows, {rows}).to(kCUDA);
  for (auto _ : state) {
    benchmark::DoNotOptimize(index_select(table, 0, index));
    synchronize();
  }
  state.SetBytesProcessed(state.iterations() * 2 * rows * 256 * int64_t{sizeof(float)});
}

// gather along the last dim: 32 random positions per row of 256.
void BM_GatherLastDim(benchmark::State& state) {
  const int64_t rows = state.range(0) / 256;
  const Tensor input = ones({rows, 256}, kCUDA);
  const Tensor index = randint(0, 256, {rows, 32}).to(kCUDA);
  for (auto _ : state) {
    benchmark::DoNotOptimize(gather(input, 1, index));
    synchronize();
  }
  // Written floats, read floats and read indices.
  state.SetBytesProcessed(state.iterations() * rows * 32 * int64_t{2 * sizeof(float) + 8});
}

void BM_Matmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = randn({n, n}).to(kCUDA), b = randn({n, n}).to(kCUDA);
  for (auto _ : state) {
    benchmark::DoNotOptimize(matmul(a, b));
    synchronize();
  }
  state.counters["FLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * n * n * n, benchmark::Counter::kIsRate);
}

void BM_CublasSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = randn({n, n}).to(kCUDA), b = randn({n, n}).to(kCUDA), c = empty({n, n}, kCUDA);
  cublasHandle_t handle;
  check(cublasCreate(&handle));
  const float one = 1, zero = 0;
  synchronize();
  const int size = static_cast<int>(n);
  for (auto _ : state) {
    check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &one,
                      b.data_ptr<float>(), size, a.data_ptr<float>(), size, &zero,
                      c.data_ptr<float>(), size));
    check(cudaDeviceSynchronize());
  }
  cublasDestroy(handle);
  state.counters["FLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * n * n * n, benchmark::Counter::kIsRate);
}

// 1024 products of [64, 64] @ [64, 64] (the shape batched per-example Linear layers give).
void BM_BatchedMatmul(benchmark::State& state) {
  const Tensor a = randn({1024, 64, 64}).to(kCUDA), b = randn({1024, 64, 64}).to(kCUDA);
  for (auto _ : state) {
    benchmark::DoNotOptimize(bmm(a, b));
    synchronize();
  }
  state.counters["FLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * 1024 * 64 * 64 * 64,
      benchmark::Counter::kIsRate);
}

void BM_CublasSgemmStridedBatched(benchmark::State& state) {
  const Tensor a = randn({1024, 64, 64}).to(kCUDA), b = randn({1024, 64, 64}).to(kCUDA);
  const Tensor c = empty({1024, 64, 64}, kCUDA);
  cublasHandle_t handle;
  check(cublasCreate(&handle));
  const float one = 1, zero = 0;
  synchronize();
  for (auto _ : state) {
    check(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one,
                                    b.data_ptr<float>(), 64, 64 * 64, a.data_ptr<float>(), 64,
                                    64 * 64, &zero, c.data_ptr<float>(), 64, 64 * 64, 1024));
    check(cudaDeviceSynchronize());
  }
  cublasDestroy(handle);
  state.counters["FLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * 1024 * 64 * 64 * 64,
      benchmark::Counter::kIsRate);
}

// The latency of one small op (launch + synchronise): what a per-example loop pays per op.
void BM_SmallAddLatency(benchmark::State& state) {
  const Tensor a = ones({16}, kCUDA), b = ones({16}, kCUDA);
  for (auto _ : state) {
    benchmark::DoNotOptimize(a + b);
    synchronize();
  }
}

// The Mandelbrot sample (samples/mandelbrot.cpp: 256x384 points, at most 256 iterations) as
// a performance engineer writes it in CUDA: one thread per point, the loop in registers.
// The limit for the sample's rewrite on the device (scripts/device_run.sh times that one).
__global__ void mandelbrot_kernel(const float* re, const float* im, int width, int height,
                                  int max_iter, int* counts) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= width || y >= height) return;
  const float cr = re[x], ci = im[y];
  float zr = 0.0f, zi = 0.0f;
  int k = 0;
  while (k < max_iter && zr * zr + zi * zi < 4.0f) {
    const float next_r = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = next_r;
    ++k;
  }
  counts[y * width + x] = k;
}

void BM_MandelbrotHandWritten(benchmark::State& state) {
  const int width = 384, height = 256;
  const Tensor re = (arange(width).to(kFloat) * (3.0f / width) - 2.0f).to(kCUDA);
  const Tensor im = (arange(height).to(kFloat) * (2.0f / height) - 1.0f).to(kCUDA);
  const Tensor counts = empty({height, width}, TensorOptions(kInt32).device(kCUDA));
  synchronize();
  for (auto _ : state) {
    mandelbrot_kernel<<<dim3((width + 127) / 128, height), 128>>>(
        re.data_ptr<float>(), im.data_ptr<float>(), width, height, 256, counts.data_ptr<int32_t>());
    check(cudaGetLastError());
    check(cudaDeviceSynchronize());
  }
  state.counters["iterations_total"] = counts.to(kCPU).sum().item<double>();
}

// The other seed samples as a performance engineer writes them in CUDA, the limits for their
// rewrites on the device (scripts/device_run.sh prints both). Each checks its result against
// the same computation on the host and reports an error instead of a time when it differs.
void expect_near(benchmark::State& state, const Tensor& device_result, const Tensor& expected,
                 double tolerance) {
  const Tensor got = device_result.to(kCPU).to(kFloat64), want = expected.to(kFloat64);
  const double error = (got - want).abs().amax().item<double>();
  if (!(error <= tolerance))
    state.SkipWithError(("differs from the host's result by " + std::to_string(error)).c_str());
}

// samples/triangular_mask.cpp: mask[i][j] = j >= i, 1024x1024 bools.
__global__ void triangular_mask_kernel(bool* mask, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j < n) mask[int64_t{i} * n + j] = j >= i;
}

void BM_TriangularMaskHandWritten(benchmark::State& state) {
  const int n = 1024;
  const Tensor mask = empty({n, n}, TensorOptions(kBool).device(kCUDA));
  synchronize();
  for (auto _ : state) {
    triangular_mask_kernel<<<dim3(n / 256, n), 256>>>(mask.data_ptr<bool>(), n);
    check(cudaGetLastError());
    check(cudaDeviceSynchronize());
  }
  const Tensor index = arange(n);
  expect_near(state, mask, index.unsqueeze(0) >= index.unsqueeze(1), 0);
}

// samples/add_1d.cpp: out = a + b over 1e6 floats.
__global__ void add_kernel(const float* a, const float* b, float* out, int n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) out[k] = a[k] + b[k];
}

void BM_Add1dHandWritten(benchmark::State& state) {
  const int n = 1000000;
  manual_seed(5);
  const Tensor a = randn({n}), b = randn({n});
  const Tensor da = a.to(kCUDA), db = b.to(kCUDA), out = empty({n}, kCUDA);
  synchronize();
  for (auto _ : state) {
    add_kernel<<<(n + 255) / 256, 256>>>(da.data_ptr<float>(), db.data_ptr<float>(),
                                          out.data_ptr<float>(), n);
    check(cudaGetLastError());
    check(cudaDeviceSynchronize());
  }
  expect_near(state, out, a + b, 0);
}

// samples/square_five_times.cpp: x = x * x five times, in place, over 1e6 floats.
__global__ void square_five_times_kernel(float* x, int n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  float v = x[k];
  for (int r = 0; r < 5; ++r) v = v * v;
  x[k] = v;
}

void BM_SquareFiveTimesHandWritten(benchmark::State& state) {
  const int n = 1000000;
  manual_seed(6);
  const Tensor start = rand({n}) * 0.5 + 0.5;
  const Tensor x = empty({n}, kCUDA);
  for (auto _ : state) {
    state.PauseTiming();
    x.copy_(start);  // in place: each timed run starts from the same values
    synchronize();
    state.ResumeTiming();
    square_five_times_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), n);
    check(cudaGetLastError());
    check(cudaDeviceSynchronize());
  }
  Tensor expected = start.clone();
  for (int r = 0; r < 5; ++r) expected = expected * expected;
  expect_near(state, x, expected, 0);
}

// samples/pairwise_distance.cpp: out[i][j] = |x[i] - y[j]|, 2000x2000 pairs of 64 floats.
// A 64x64 tile of pairs a block, each thread a 4x4 of them held in registers, the tile's rows
// staged in shared memory 16 elements at a time (padded: no bank conflicts); each pair's
// squares are added in element order, as the per-example loop adds them.
constexpr int kTile = 64, kStep = 16;
__global__ void pairwise_distance_kernel(const float* x, const float* y, float* out, int n,
                                         int m, int d) {
  __shared__ float xs[kStep][kTile + 1], ys[kStep][kTile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int i0 = blockIdx.y * kTile, j0 = blockIdx.x * kTile;
  float total[4][4] = {};
  for (int k0 = 0; k0 < d; k0 += kStep) {
    for (int e = threadIdx.x; e < kTile * kStep; e += 256) {
      const int row = e / kStep, k = e % kStep;
      xs[k][row] = i0 + row < n && k0 + k < d ? x[int64_t{i0 + row} * d + k0 + k] : 0.0f;
      ys[k][row] = j0 + row < m && k0 + k < d ? y[int64_t{j0 + row} * d + k0 + k] : 0.0f;
    }
    __syncthreads();
    const int steps = min(kStep, d - k0);
    for (int k = 0; k < steps; ++k) {
      float a[4], b[4];
      for (int r = 0; r < 4; ++r) a[r] = xs[k][ty + 16 * r], b[r] = ys[k][tx + 16 * r];
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
          const float difference = a[r] - b[c];
          total[r][c] = __fadd_rn(total[r][c], __fmul_rn(difference, difference));
        }
    }
    __syncthreads();
  }
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      const int i = i0 + ty + 16 * r, j = j0 + tx + 16 * c;
      if (i < n && j < m) out[int64_t{i} * m + j] = sqrtf(total[r][c]);
    }
}

void BM_PairwiseDistanceHandWritten(benchmark::State& state) {
  const int n = 2000, m = 2000, d = 64;
  manual_seed(7);
  const Tensor x = randn({n, d}), y = randn({m, d});
  const Tensor dx = x.to(kCUDA), dy = y.to(kCUDA), out = empty({n, m}, kCUDA);
  synchronize();
  for (auto _ : state) {
    pairwise_distance_kernel<<<dim3((m + kTile - 1) / kTile, (n + kTile - 1) / kTile), 256>>>(
        dx.data_ptr<float>(), dy.data_ptr<float>(), out.data_ptr<float>(), n, m, d);
    check(cudaGetLastError());
    check(cudaDeviceSynchronize());
  }
  const Tensor difference = x.unsqueeze(1) - y.unsqueeze(0);
  expect_near(state, out, (difference * difference).sum({2}).sqrt(), 1e-4);
}

constexpr int64_t large = int64_t{1} << 26;  // 64 Mi floats: 256 MiB, far beyond L2
BENCHMARK(BM_CopyDeviceToDevice)->Arg(large)->UseRealTime();
BENCHMARK(BM_Add)->Arg(large)->UseRealTime();
BENCHMARK(BM_MulInPlace)->Arg(large)->UseRealTime();
BENCHMARK(BM_BroadcastAdd)->Arg(large)->UseRealTime();
BENCHMARK(BM_Sqrt)->Arg(large)->UseRealTime();
BENCHMARK(BM_Sum)->Arg(large)->UseRealTime();
BENCHMARK(BM_IndexSelectRows)->Arg(large)->UseRealTime();
BENCHMARK(BM_GatherLastDim)->Arg(large)->UseRealTime();
BENCHMARK(BM_Matmul)->Arg(1024)->Arg(4096)->UseRealTime();
BENCHMARK(BM_CublasSgemm)->Arg(1024)->Arg(4096)->UseRealTime();
BENCHMARK(BM_BatchedMatmul)->UseRealTime();
BENCHMARK(BM_CublasSgemmStridedBatched)->UseRealTime();
BENCHMARK(BM_SmallAddLatency)->UseRealTime();
BENCHMARK(BM_MandelbrotHandWritten)->UseRealTime();
BENCHMARK(BM_TriangularMaskHandWritten)->UseRealTime();
BENCHMARK(BM_Add1dHandWritten)->UseRealTime();
BENCHMARK(BM_SquareFiveTimesHandWritten)->UseRealTime();
BENCHMARK(BM_PairwiseDistanceHandWritten)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (!detail::device_available()) {
    std::puts("vmap_cuda_bench: no CUDA device present, nothing to measure");
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
