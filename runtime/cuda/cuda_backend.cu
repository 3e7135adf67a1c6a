// The CUDA backend: device selection, the current stream, the caching device allocator,
// copies, and GEMM through cuBLAS. Kernels live in elementwise.cu and reduce_index.cu.
#include "cuda_common.cuh"

#include <cublas_v2.h>

#include <mutex>
#include <unordered_map>
#include <vector>

namespace vmap::detail::cuda {
void throw_error(const char* op, const std::string& message) {
  throw Error(std::string(op) + ": " + message);
}

namespace {

void check_cublas(cublasStatus_t status, const char* op, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_error(op, std::string(what) + ": " + cublasGetStatusString(status));
}

// Size classes: multiples of 512 bytes up to 1 MiB, then four per power of two (at most 25%
// slack), so a loop of same-shaped ops reuses its blocks without calling cudaMalloc.
size_t size_class(size_t nbytes) {
  constexpr size_t small_step = 512, small_limit = size_t{1} << 20;
  if (nbytes <= small_limit) return nbytes == 0 ? small_step : (nbytes + small_step - 1) / small_step * small_step;
  const size_t power = size_t{1} << (63 - __builtin_clzll(nbytes));
  const size_t step = power / 4;
  return (nbytes + step - 1) / step * step;
}

class CachingDeviceAllocator {
 public:
  void* allocate(size_t nbytes) {
    const size_t size = size_class(nbytes);
    {
      std::lock_guard lock(mutex_);
      auto found = free_blocks_.find(size);
      if (found != free_blocks_.end() && !found->second.empty()) {
        void* block = found->second.back();
        found->second.pop_back();
        return block;
      }
    }
    void* block = nullptr;
    if (cudaMalloc(&block, size) != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky-free allocation error before retrying
      release_cache();
      check(cudaMalloc(&block, size), "allocate", "cudaMalloc");
    }
    return block;
  }

  // Blocks go back to the cache: every op runs on the one current stream, so work queued
  // after the release cannot overtake work that still reads the block.
  void release(void* block, size_t nbytes) {
    std::lock_guard lock(mutex_);
    free_blocks_[size_class(nbytes)].push_back(block);
  }

  void release_cache() {
    std::lock_guard lock(mutex_);
    (void)cudaStreamSynchronize(current_stream());
    for (auto& [size, blocks] : free_blocks_)
      for (void* block : blocks) (void)cudaFree(block);
    free_blocks_.clear();
  }

 private:
  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_blocks_;
};

cudaDataType data_type(Dtype dtype) { return dtype == kFloat64 ? CUDA_R_64F : CUDA_R_32F; }

class CudaBackend final : public DeviceBackend {
 public:
  CudaBackend() {
    int devices = 0;
    check(cudaGetDeviceCount(&devices), "cuda", "cudaGetDeviceCount");
    if (devices == 0) throw_error("cuda", "no CUDA device is present");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cuda", "cudaStreamCreate");
    check_cublas(cublasCreate(&blas_), "cuda", "cublasCreate");
    check_cublas(cublasSetStream(blas_, stream_), "cuda", "cublasSetStream");
  }

  cudaStream_t stream() const { return stream_; }

  void* allocate(size_t nbytes) override { return allocator_.allocate(nbytes); }
  void release(void* data, size_t nbytes) override { allocator_.release(data, nbytes); }

  void copy(void* destination, Device destination_device, const void* source,
            Device source_device, size_t nbytes) override {
    const cudaMemcpyKind kind = destination_device == kCPU
                                    ? (source_device == kCPU ? cudaMemcpyHostToHost : cudaMemcpyDeviceToHost)
                                    : (source_device == kCPU ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice);
    check(cudaMemcpyAsync(destination, source, nbytes, kind, stream_), "copy", "cudaMemcpyAsync");
    // The host reads its side right after the call returns. (Copies from pageable host memory
    // return once the source is staged, so the source may be freed then.)
    if (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost)
      check(cudaStreamSynchronize(stream_), "copy", "cudaStreamSynchronize");
  }

  void elementwise(const char* op, const ElementwiseCall& call) override {
    launch_elementwise(op, call);
  }
  void reduce(const char* op, const ReduceCall& call) override { launch_reduce(op, call); }
  bool indexed_copy(const char* op, const IndexedCopyCall& call) override {
    return launch_indexed_copy(op, call);
  }

  // Row-major out = a @ b is column-major out^T = b^T a^T: cuBLAS gets b first.
  void gemm(const char* op, const GemmCall& call) override {
    auto layout = [](const MatrixOperand& matrix) {
      return matrix.col_stride == 1 ? std::pair{CUBLAS_OP_N, matrix.row_stride}
                                    : std::pair{CUBLAS_OP_T, matrix.col_stride};
    };
    const auto [b_op, b_ld] = layout(call.b);
    const auto [a_op, a_ld] = layout(call.a);
    const double one = 1.0, zero = 0.0;
    const float one_f = 1.0f, zero_f = 0.0f;
    const bool is_double = call.dtype == kFloat64;
    const cudaDataType type = data_type(call.dtype);
    check_cublas(
        cublasGemmStridedBatchedEx(
            blas_, b_op, a_op, static_cast<int>(call.n), static_cast<int>(call.m),
            static_cast<int>(call.k), is_double ? static_cast<const void*>(&one) : &one_f,
            call.b.data, type, static_cast<int>(b_ld), call.b.batch_stride, call.a.data, type,
            static_cast<int>(a_ld), call.a.batch_stride,
            is_double ? static_cast<const void*>(call.accumulate ? &one : &zero)
                      : (call.accumulate ? &one_f : &zero_f),
            call.out, type,
            static_cast<int>(call.n), call.m * call.n, static_cast<int>(call.batch),
            is_double ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        op, "cublasGemmStridedBatchedEx");
  }

  bool compiled_kernel(const char* op, const CompiledKernelCall& call) override {
    return launch_compiled_kernel(op, call);
  }
  void synchronize() override {
    check(cudaStreamSynchronize(stream_), "synchronize", "cudaStreamSynchronize");
  }

 private:
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  CachingDeviceAllocator allocator_;
};

// Never destroyed: tensors in static objects may release blocks after main returns. A failed
// construction (no device) is retried on the next call and throws again.
CudaBackend& backend() {
  static CudaBackend* instance = new CudaBackend();
  return *instance;
}

}  // namespace

void check(cudaError_t status, const char* op, const char* what) {
  if (status != cudaSuccess) throw_error(op, std::string(what) + ": " + cudaGetErrorString(status));
}

cudaStream_t current_stream() { return backend().stream(); }
void* allocate(size_t nbytes) { return backend().allocate(nbytes); }
void release(void* data, size_t nbytes) { backend().release(data, nbytes); }

}  // namespace vmap::detail::cuda

namespace vmap::detail {

DeviceBackend& cuda_backend() { return cuda::backend(); }

bool cuda_knows_pointer(const void* data) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, data) != cudaSuccess) {
    (void)cudaGetLastError();  // not a pointer the runtime knows (older runtimes say so)
    return false;
  }
  return attributes.type != cudaMemoryTypeUnregistered;
}

bool cuda_device_present() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return devices > 0;
}

}  // namespace vmap::detail
