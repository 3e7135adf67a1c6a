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
