// The device backend interface: what the runtime's ops call when a tensor lives on kCUDA.
// Header-only and free of CUDA headers, so the CPU runtime (always built) can dispatch to it;
// runtime/cuda/*.cu implement it when nvcc is found, and tests may register their own.
//
// Note [Device dispatch]
// The CPU ops stay the single place where shapes, dtypes and errors are decided. They plan as
// usual (broadcast shapes, promoted dtypes, collapsed strided loops, index geometry) and hand
// the device only raw calls: an elementwise op code over a strided loop, a segmented reduction
// over a contiguous [outer, inner] buffer, an indexed copy, a strided batched GEMM. Inputs on
// different devices are a vmap::Error, except CPU 0-d tensors (C++ numbers become those): as in
// LibTorch they join a device op and are passed to the kernel by value.
#pragma once

#include <vmap/types.hpp>

#include <cstddef>
#include <cstdint>

namespace vmap::detail {

inline constexpr int device_max_dims = 16;   // internal.hpp's max_dims
inline constexpr int device_max_operands = 4;  // output + 3 inputs, as the CPU engine

// Note [Device ops]
// The CPU engine's ops are C++ lambdas the device compiler never sees, so an op reaches the
// device by name: (engine op name, input count) -> DeviceOp (runtime/cuda/device_ops.cpp), and
// vmap/detail/scalar_functors.hpp holds one host/device functor per DeviceOp with the CPU
// functor's exact semantics (wrapping integers, NaN-propagating max/min, saturating
// float->int conversion); device_functors.hpp picks it.
// Ops pass what changes an op's meaning as an operand (add's alpha, clamp's missing bound), so
// name and arity fix the form; a table entry may still refuse a functor with captured state
// (a vmap::Error) rather than guess what it means.
enum class DeviceOp : uint8_t {
  fill,     // out = constant
  convert,  // out = in0 converted to out's dtype (copy_, to)
  add, sub, mul, div, maximum, minimum, pow, bitwise_and, bitwise_or,
  logical_and, logical_or, logical_not,
  neg, abs,
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) name,
#define VMAP_BINARY_OP(name, Functor, domain) name,
#include <vmap/detail/pointwise_ops.def>
  where,  // out = in0 ? in1 : in2
  clamp,  // out = min(max(in0, in1), in2), NaN in0 kept
  div_trunc, remainder_trunc,  // C++ `/` and `%` (truncating for integers)
  add_scaled, sub_scaled,      // in0 + in2 * in1, in0 - in2 * in1 (add / sub with alpha)
};

// One elementwise launch: out = op(in...) over a collapsed strided loop (plan_loop's), the
// innermost dim last, strides in bytes, operand 0 the output.
struct ElementwiseCall {
  DeviceOp op = DeviceOp::fill;
  Dtype out_dtype = kFloat32;
  int inputs = 0;
  Dtype in_dtypes[device_max_operands - 1] = {};
  int rank = 0;
  int64_t numel = 0;
  int64_t sizes[device_max_dims] = {};
  int64_t strides[device_max_operands][device_max_dims] = {};
  char* base[device_max_operands] = {};
  // Operands read from `constants` instead of device memory: CPU 0-d inputs and, for fill,
  // operand 0's slot holds the value. Bytes of the operand's dtype.
  bool is_constant[device_max_operands] = {};
  alignas(8) unsigned char constants[device_max_operands][8] = {};
};

// out[o] = reduce(input[o, 0..inner)) over a contiguous [outer, inner] input. Sums accumulate
// in out_dtype (int64 for integer and bool inputs, as LibTorch); max/min keep the dtype and
// propagate NaN. inner > 0 for max/min.
enum class ReduceOp : uint8_t { sum, max, min };
struct ReduceCall {
  ReduceOp op = ReduceOp::sum;
  Dtype in_dtype = kFloat32;
  Dtype out_dtype = kFloat32;
  const void* input = nullptr;
  void* output = nullptr;
  int64_t outer = 0;
  int64_t inner = 0;
};

// gather / index_select (ops_index.cpp's IndexedCopy): for every position p of the contiguous
// output, out[p] = self[p with p[dim] replaced by index[p . index_strides]]. Strides in
// elements. Index dtype int32 or int64. Out-of-range indices are not read; the call reports
// them by returning false.
struct IndexedCopyCall {
  Dtype dtype = kFloat32;
  Dtype index_dtype = kInt64;
  int rank = 0;
  int dim = 0;
  int64_t dim_size = 0;
  int64_t out_sizes[device_max_dims] = {};
  int64_t self_strides[device_max_dims] = {};
  int64_t index_strides[device_max_dims] = {};
  const void* self = nullptr;
  const void* index = nullptr;
  void* out = nullptr;
};

// A row-major matrix operand of a batched product, strides in elements. Either col_stride or
// row_stride is 1 (the caller makes other layouts contiguous first).
struct MatrixOperand {
  const void* data = nullptr;
  int64_t row_stride = 0;
  int64_t col_stride = 1;
  int64_t batch_stride = 0;  // 0: the same matrix for every batch entry
};
// out[b] = a[b] @ b[b], a [m, k], b [k, n], out contiguous [batch, m, n]. float32 or float64.
struct GemmCall {
  Dtype dtype = kFloat32;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  MatrixOperand a, b;
  void* out = nullptr;
  bool accumulate = false;  // out[b] += a[b] @ b[b] (BLAS beta 1: linear's bias)
};

// Note [Compiled kernels on the device]
// Code the tool compiled for the host as a kernel over examples (a scalar kernel, Note
// [Scalar kernels on a device] in rules/include/vmap/fused_scalar.hpp) reaches the device as
// CUDA C++ source: the CUDA backend compiles it with NVRTC on first use for the device's
// architecture (so a user's build needs no nvcc), caches the machine code in memory and on
// disk (runtime/cuda/compiled_kernels.cu), and launches `vmap_entry` with one thread per
// index (in blocks of `block_threads`). The same kernel compiled into the host program is
// `host`: what a backend without a compiler runs (the tests' emulated device).
struct CompiledKernelCall {
  const char* source = nullptr;  // a whole CUDA C++ program defining extern "C" vmap_entry
  // The headers it includes by name (NVRTC has no file system of ours), and libcu++'s
  // (the CUDA toolkit's, found at run time).
  int header_count = 0;
  const char* const* header_names = nullptr;
  const char* const* header_texts = nullptr;
  int64_t count = 0;        // threads: indices [0, count)
  int block_threads = 128;  // per block
  const void* arguments = nullptr;  // vmap_entry's one parameter, passed by value
  size_t argument_bytes = 0;
  void (*host)(const void* context) = nullptr;  // runs every index on the host
  const void* host_context = nullptr;
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // Blocks come from a cache; release hands them back (nbytes as allocated).
  virtual void* allocate(size_t nbytes) = 0;
  virtual void release(void* data, size_t nbytes) = 0;
  // Device memory is written and read only through these (on the current stream).
  virtual void copy(void* destination, Device destination_device, const void* source,
                    Device source_device, size_t nbytes) = 0;
  virtual void elementwise(const char* op, const ElementwiseCall& call) = 0;
  virtual void reduce(const char* op, const ReduceCall& call) = 0;
  virtual bool indexed_copy(const char* op, const IndexedCopyCall& call) = 0;
  virtual void gemm(const char* op, const GemmCall& call) = 0;
  // False where the source does not compile for this device (said once on stderr, with the
  // compiler's log): the caller then runs the kernel's code on the CPU.
  virtual bool compiled_kernel(const char* op, const CompiledKernelCall& call) = 0;
  // Waits for all work queued on the current stream.
  virtual void synchronize() = 0;
};

// The backend for CUDA tensors: the registered one, else the CUDA library's (when built),
// else an error naming `op`. Registering nullptr restores the default. Tests register an
// emulating backend to check the dispatch without a GPU.
DeviceBackend& device_backend(const char* op);
void register_device_backend(DeviceBackend* backend);
// Whether CUDA tensors can be made: a backend is registered, or the CUDA library is built and
// sees at least one device.
bool device_available();

// Compiles `source` (a CompiledKernelCall's) with NVRTC to PTX for a virtual architecture,
// without a device: what CI checks every emitted kernel with (VMAP_CHECK_DEVICE_KERNELS,
// fused_scalar.hpp). Throws vmap::Error naming `op` with the compiler's log, or where the
// runtime was built without CUDA.
void check_device_kernel(const char* op, const CompiledKernelCall& call);

#ifdef VMAP_HAVE_CUDA
// runtime/cuda/compiled_kernels.cpp
void compile_device_kernel_ptx(const char* op, const CompiledKernelCall& call);
// runtime/cuda/cuda_backend.cu. Throws vmap::Error when no device can be used.
DeviceBackend& cuda_backend();
bool cuda_device_present();
// Whether the CUDA runtime knows `data` (cudaPointerGetAttributes): device or managed memory,
// or host memory registered with it (pinned), which kernels can read. False for plain host
// memory.
bool cuda_knows_pointer(const void* data);
#endif

// from_blob(data, ..., kCUDA): throws naming `op` where the CUDA runtime sees that `data` is
// plain host memory, which a kernel would read as a device address. Nothing is checked
// without the CUDA library or a device (the first op on the tensor then fails as before), or
// with a registered backend, whose memory is its own.
void check_device_pointer(const char* op, const void* data);

}  // namespace vmap::detail
