// The host half of the device ops (Note [Device dispatch] in backend.hpp): the backend registry,
// the engine's op-name table (Note [Device ops]) and the glue that turns the CPU ops' plans into
// backend calls.
#include "device_ops.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <optional>
#include <string_view>

namespace vmap::detail {
namespace {

static_assert(device_max_dims == max_dims && device_max_operands == max_operands);

std::atomic<DeviceBackend*> registered_backend{nullptr};

struct NamedOp {
  std::string_view name;
  int arity;
  DeviceOp op;
  // The engine's functor for this name may carry state that changes its meaning (a captured
  // factor, say); such forms are refused instead of run as the plain op.
  bool stateless_only = false;
};

constexpr NamedOp named_ops[] = {
    {"fill_", 0, DeviceOp::fill},
    {"copy_", 1, DeviceOp::convert},
    {"add", 2, DeviceOp::add, true},
    {"add_", 2, DeviceOp::add, true},
    {"add", 3, DeviceOp::add_scaled, true},
    {"sub", 2, DeviceOp::sub, true},
    {"sub_", 2, DeviceOp::sub, true},
    {"sub", 3, DeviceOp::sub_scaled, true},
    {"div_trunc", 2, DeviceOp::div_trunc},
    {"remainder_trunc", 2, DeviceOp::remainder_trunc},
    {"mul", 2, DeviceOp::mul},
    {"mul_", 2, DeviceOp::mul},
    {"div", 2, DeviceOp::div},
    {"div_", 2, DeviceOp::div},
    {"maximum", 2, DeviceOp::maximum},
    {"minimum", 2, DeviceOp::minimum},
    {"pow", 2, DeviceOp::pow},
    {"bitwise_and", 2, DeviceOp::bitwise_and},
    {"bitwise_or", 2, DeviceOp::bitwise_or},
    {"logical_and", 2, DeviceOp::logical_and},
    {"logical_or", 2, DeviceOp::logical_or},
    {"logical_not", 1, DeviceOp::logical_not},
    {"neg", 1, DeviceOp::neg},
    {"abs", 1, DeviceOp::abs},
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) {#name, 1, DeviceOp::name},
#define VMAP_BINARY_OP(name, Functor, domain) {#name, 2, DeviceOp::name},
#include <vmap/detail/pointwise_ops.def>
    {"where", 3, DeviceOp::where},
    {"clamp", 3, DeviceOp::clamp},
};

std::optional<DeviceOp> device_op_named(std::string_view name, int arity, bool stateful) {
  for (const NamedOp& entry : named_ops)
    if (entry.name == name && entry.arity == arity && !(stateful && entry.stateless_only))
      return entry.op;
  return std::nullopt;
}

void check_on_device(const char* op, const Tensor& tensor, Device device) {
  const Device found = impl_of(tensor, op).device();
  if (found != device)
    fail(op, "expected all tensors to be on the same device, but found at least two devices, ",
         device, " and ", found);
}

// Strides of a [rows, cols] matrix whose last-dim or second-to-last-dim stride is 1 and whose
// other stride is a valid BLAS leading dimension; nullopt for other layouts.
std::optional<MatrixOperand> matrix_operand(const Tensor& t) {
  const int64_t rank = t.dim();
  const int64_t rows = t.size(rank - 2), cols = t.size(rank - 1);
  int64_t row_stride = rows == 1 ? cols : t.stride(rank - 2);
  int64_t col_stride = cols == 1 ? 1 : t.stride(rank - 1);
  if (col_stride == 1 && row_stride >= std::max<int64_t>(cols, 1))
    return MatrixOperand{t.raw_data(), row_stride, 1, 0};
  row_stride = rows == 1 ? 1 : t.stride(rank - 2);
  col_stride = cols == 1 ? rows : t.stride(rank - 1);
  if (row_stride == 1 && col_stride >= std::max<int64_t>(rows, 1))
    return MatrixOperand{t.raw_data(), 1, col_stride, 0};
  return std::nullopt;
}

// The one stride that steps through all batch dims of t (0 when they are all broadcast);
// nullopt when they do not fold into one.
std::optional<int64_t> batch_stride(const Tensor& t) {
  std::optional<int64_t> stride;
  int64_t expected_next = 0;  // the stride the next outer dim must have to fold
  for (int64_t d = t.dim() - 3; d >= 0; --d) {
    if (t.size(d) == 1) continue;
    if (!stride) {
      stride = t.stride(d);
    } else if (t.stride(d) != expected_next) {
      return std::nullopt;
    }
    expected_next = t.stride(d) * t.size(d);
  }
  return stride.value_or(0);
}

MatrixOperand gemm_operand(Tensor& t) {
  std::optional<MatrixOperand> matrix = matrix_operand(t);
  std::optional<int64_t> stride = batch_stride(t);
  if (!matrix || !stride) {
    t = t.contiguous();
    matrix = matrix_operand(t);
    stride = batch_stride(t);
  }
  matrix->batch_stride = *stride;
  return *matrix;
}

}  // namespace

void register_device_backend(DeviceBackend* backend) {
  registered_backend.store(backend, std::memory_order_release);
}

DeviceBackend& device_backend(const char* op) {
  if (DeviceBackend* backend = registered_backend.load(std::memory_order_acquire)) return *backend;
#ifdef VMAP_HAVE_CUDA
  try {
    return cuda_backend();
  } catch (const Error& error) {  // no usable device: name the op the user called
    fail(op, "no usable CUDA device (", error.what(), ")");
  }
#else
  fail(op, "CUDA tensors need the runtime built with CUDA (nvcc was not found at configure time)");
#endif
}

void check_device_pointer(const char* op, const void* data) {
  if (registered_backend.load(std::memory_order_acquire) != nullptr) return;
#ifdef VMAP_HAVE_CUDA
  if (cuda_device_present() && !cuda_knows_pointer(data))
    fail(op, "the data pointer ", data, " resides on host memory and is not registered with "
             "any CUDA device (allocate it with cudaMalloc, or make the tensor on kCPU)");
#else
  (void)op;
  (void)data;
#endif
}

void check_device_kernel(const char* op, const CompiledKernelCall& call) {
#ifdef VMAP_HAVE_CUDA
  compile_device_kernel_ptx(op, call);
#else
  (void)call;
  fail(op, "device kernels are compiled by the runtime built with CUDA (nvcc and NVRTC were not "
           "found at configure time)");
#endif
}

bool device_available() {
  if (registered_backend.load(std::memory_order_acquire) != nullptr) return true;
#ifdef VMAP_HAVE_CUDA
  return cuda_device_present();
#else
  return false;
#endif
}

Device common_device(const char* op, std::span<const Tensor> inputs) {
  Device device = kCPU;
  for (const Tensor& input : inputs)
    if (impl_of(input, op).device() != kCPU) device = input.device();
  if (device == kCPU) return device;
  for (const Tensor& input : inputs)
    if (input.dim() != 0) check_on_device(op, input, device);
  return device;
}

void run_loop_on_device(const char* op, const StridedLoop& loop, Dtype out_dtype,
                        std::span<const Dtype> in_dtypes, std::span<const Tensor> inputs,
                        const void* fill_value, bool stateful_functor) {
  const int arity = static_cast<int>(inputs.size());
  const std::optional<DeviceOp> device_op = device_op_named(op, arity, stateful_functor);
  if (!device_op) fail(op, "this form of the op is not supported on CUDA tensors");

  ElementwiseCall call;
  call.op = *device_op;
  call.out_dtype = out_dtype;
  call.inputs = arity;
  call.rank = loop.rank;
  call.numel = loop.numel;
  for (int d = 0; d < loop.rank; ++d) call.sizes[d] = loop.sizes[d];
  for (int operand = 0; operand < loop.operands; ++operand) {
    call.base[operand] = loop.base[operand];
    for (int d = 0; d < loop.rank; ++d) call.strides[operand][d] = loop.strides[operand][d];
  }
  for (int j = 0; j < arity; ++j) {
    call.in_dtypes[j] = in_dtypes[j];
    if (impl_of(inputs[j], op).device() == kCPU && inputs[j].dim() == 0) {
      call.is_constant[j + 1] = true;
      std::memcpy(call.constants[j + 1], loop.base[j + 1], element_size(in_dtypes[j]));
    } else {
      check_on_device(op, inputs[j], kCUDA);
    }
  }
  if (call.op == DeviceOp::fill) {  // a conversion from a constant of the output's dtype
    call.op = DeviceOp::convert;
    call.inputs = 1;
    call.in_dtypes[0] = out_dtype;
    call.is_constant[1] = true;
    std::memcpy(call.constants[1], fill_value, element_size(out_dtype));
  }
  if (call.numel == 0) return;
  device_backend(op).elementwise(op, call);
}

Tensor to_device(const Tensor& self, Device device) {
  const Tensor source = impl_of(self, "to").contiguous ? self : self.contiguous();
  Tensor result = empty_tensor(source.sizes(), source.dtype(), device, "to");
  const size_t nbytes = static_cast<size_t>(source.numel() * source.element_size());
  if (nbytes > 0)
    device_backend("to").copy(result.raw_data(), device, source.raw_data(), source.device(),
                              nbytes);
  return result;
}

void copy_bytes(const Tensor& destination, const Tensor& source, size_t nbytes) {
  const Device device = destination.device();
  if (device == kCPU && source.device() == kCPU) {
    std::memcpy(destination.raw_data(), source.raw_data(), nbytes);
    return;
  }
  device_backend("copy_").copy(destination.raw_data(), device, source.raw_data(),
                               source.device(), nbytes);
}

Tensor device_reduce(const char* op, ReduceOp reduce_op, const Tensor& self,
                     std::span<const bool> is_reduced, IntList out_sizes, Dtype out_dtype) {
  // Kept dims first, reduced dims last: every output element reduces one contiguous line.
  Dims order;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (!is_reduced[d]) order.push_back(d), outer *= self.size(d);
  for (int64_t d = 0; d < self.dim(); ++d)
    if (is_reduced[d]) order.push_back(d), inner *= self.size(d);
  Tensor out = empty_tensor(out_sizes, out_dtype, self.device());
  if (outer == 0) return out;
  if (inner == 0) {
    if (reduce_op != ReduceOp::sum) fail(op, "cannot reduce over zero elements");
    out.zero_();
    return out;
  }
  const Tensor lines = self.permute(order).contiguous();
  device_backend(op).reduce(op, ReduceCall{reduce_op, self.dtype(), out_dtype, lines.raw_data(),
                                           out.raw_data(), outer, inner});
  return out;
}

void device_product(const char* op, const Tensor& a, const Tensor& b, const Tensor& out,
                    bool accumulate) {
  const int64_t rank = a.dim();
  const int64_t m = a.size(rank - 2), k = a.size(rank - 1), n = b.size(rank - 1);
  if (out.numel() == 0) return;
  if (k == 0) {
    if (!accumulate) out.zero_();
    return;
  }
  if (!is_floating(a.dtype()))
    fail(op, "not implemented for '", a.dtype(), "' on CUDA (cuBLAS has no integer GEMM)");
  for (int64_t extent : {m, n, k, out.numel() / (m * n)})
    if (extent > INT_MAX) fail(op, "matrix extent ", extent, " is too large for cuBLAS");
  Tensor left = a, right = b;
  GemmCall call{a.dtype(), out.numel() / (m * n), m, n, k, gemm_operand(left),
                gemm_operand(right), out.raw_data(), accumulate};
  device_backend(op).gemm(op, call);
}

bool device_indexed_copy(const char* op, int64_t dim, int64_t dim_size, IntList self_strides,
                         IntList index_strides, const Tensor& self, const Tensor& index,
                         const Tensor& out) {
  check_on_device(op, index, self.device());
  check_on_device(op, out, self.device());
  IndexedCopyCall call;
  call.dtype = self.dtype();
  call.index_dtype = index.dtype();
  call.rank = static_cast<int>(std::max<int64_t>(out.dim(), 1));
  call.dim = static_cast<int>(dim);
  call.dim_size = dim_size;
  for (int d = 0; d < call.rank; ++d) {
    call.out_sizes[d] = out.dim() == 0 ? 1 : out.size(d);
    call.self_strides[d] = self_strides[d];
    call.index_strides[d] = index_strides[d];
  }
  call.self = self.raw_data();
  call.index = index.raw_data();
  call.out = out.raw_data();
  if (out.numel() == 0) return true;
  return device_backend(op).indexed_copy(op, call);
}

}  // namespace vmap::detail
