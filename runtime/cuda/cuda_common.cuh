// What the CUDA backend's translation units share: error checking, the current stream, the
// caching allocator's entry points, and the kernel launchers each .cu file provides.
#pragma once

#include "backend.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace vmap::detail::cuda {

// Throws vmap::Error("<op>: <what>: <CUDA error string>") unless status is cudaSuccess.
// vmap::Error "<op>: <message>".
[[noreturn]] void throw_error(const char* op, const std::string& message);
void check(cudaError_t status, const char* op, const char* what);
// After a kernel launch: reports launch errors (bad configuration, no kernel image).
inline void check_launch(const char* op) { check(cudaGetLastError(), op, "kernel launch"); }

// The stream every op of this process is queued on (created with the backend).
cudaStream_t current_stream();
// Blocks from the backend's caching allocator (cuda_backend.cu), for temporaries.
void* allocate(size_t nbytes);
void release(void* data, size_t nbytes);
// compiled_kernels.cu
bool launch_compiled_kernel(const char* op, const CompiledKernelCall& call);

// A cached temporary released when it goes out of scope (stream order keeps reuse safe).
class Scratch {
 public:
  explicit Scratch(size_t nbytes) : data_(nbytes ? allocate(nbytes) : nullptr), nbytes_(nbytes) {}
  ~Scratch() {
    if (data_) release(data_, nbytes_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* data() const { return data_; }

 private:
  void* data_;
  size_t nbytes_;
};

// Threads per block of the simple kernels, and a grid covering `work` items of `per_block`.
inline constexpr int block_threads = 256;
inline unsigned grid_for(int64_t work, int64_t per_block) {
  const int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < (int64_t{1} << 30) ? (blocks > 0 ? blocks : 1) : (int64_t{1} << 30));
}

// Splits a linear position into coordinates over sizes[0, rank) (innermost last) and calls
// visit(d, coordinate) for each dim. 64-bit division is slow on GPUs: positions that fit in
// 32 bits (the usual case) use 32-bit arithmetic.
template <class Visit>
__device__ void for_each_coordinate(int64_t linear, int64_t numel, int rank,
                                    const int64_t* sizes, Visit&& visit) {
  if (numel <= int64_t{UINT32_MAX}) {
    uint32_t rest = static_cast<uint32_t>(linear);
    for (int d = rank - 1; d >= 0; --d) {
      const uint32_t size = static_cast<uint32_t>(sizes[d]);
      visit(d, int64_t{rest % size});
      rest /= size;
    }
    return;
  }
  for (int d = rank - 1; d >= 0; --d) {
    visit(d, linear % sizes[d]);
    linear /= sizes[d];
  }
}

// Kernel launchers (elementwise.cu, reduce_index.cu).
void launch_elementwise(const char* op, const ElementwiseCall& call);
void launch_reduce(const char* op, const ReduceCall& call);
bool launch_indexed_copy(const char* op, const IndexedCopyCall& call);

}  // namespace vmap::detail::cuda
