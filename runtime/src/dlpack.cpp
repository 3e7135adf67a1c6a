// DLPack 0.6 import and export (vmap/dlpack.hpp): tensors over another framework's memory and
// capsules over ours, never a copy.
#include <vmap/dlpack.hpp>

#include "internal.hpp"
#include "../cuda/backend.hpp"

#include <cstdint>
#include <iterator>
#include <vector>

namespace vmap {
namespace {

// DLPack's device type names, for errors.
const char* device_name(DLDeviceType type) {
  switch (type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLOpenCL: return "kDLOpenCL";
    case kDLVulkan: return "kDLVulkan";
    case kDLMetal: return "kDLMetal";
    case kDLVPI: return "kDLVPI";
    case kDLROCM: return "kDLROCM";
    case kDLROCMHost: return "kDLROCMHost";
    case kDLExtDev: return "kDLExtDev";
    case kDLCUDAManaged: return "kDLCUDAManaged";
  }
  return "an unknown device type";
}

// DLPack 0.8's kDLBool: later producers (NumPy, CuPy, PyTorch 2) send bool with it.
constexpr uint8_t dl_bool = 6;

std::string dtype_str(DLDataType dtype) {
  static const char* const codes[] = {"int", "uint", "float", "opaque handle", "bfloat",
                                      "complex", "bool"};
  std::ostringstream out;
  if (dtype.code < std::size(codes)) out << codes[dtype.code] << int{dtype.bits};
  else out << "type code " << int{dtype.code} << " of " << int{dtype.bits} << " bits";
  if (dtype.lanes != 1) out << " x " << dtype.lanes << " lanes";
  return out.str();
}

Dtype dtype_from(DLDataType dtype) {
  if (dtype.lanes == 1) {
    if (dtype.code == kDLFloat && dtype.bits == 32) return kFloat32;
    if (dtype.code == kDLFloat && dtype.bits == 64) return kFloat64;
    if (dtype.code == kDLInt && dtype.bits == 32) return kInt32;
    if (dtype.code == kDLInt && dtype.bits == 64) return kInt64;
    if (dtype.code == kDLUInt && dtype.bits == 8) return kBool;
    if (dtype.code == dl_bool && dtype.bits == 8) return kBool;
  }
  detail::fail("from_dlpack", "unsupported dtype ", dtype_str(dtype),
               " (supported: float32, float64, int32, int64, bool, and uint8 as bool)");
}

DLDataType dtype_to(Dtype dtype) {
  switch (dtype) {
    case kFloat32: return {kDLFloat, 32, 1};
    case kFloat64: return {kDLFloat, 64, 1};
    case kInt32: return {kDLInt, 32, 1};
    case kInt64: return {kDLInt, 64, 1};
    case kBool: return {kDLUInt, 8, 1};
  }
  __builtin_unreachable();
}

// The first element of a strided byte array that is neither 0 nor 1: its flat (row-major)
// index and value, or index -1.
struct BadByte {
  int64_t index = -1;
  int value = 0;
};
BadByte first_non_bool(const uint8_t* data, detail::IntList sizes, detail::IntList strides) {
  BadByte bad;
  int64_t flat = 0;
  auto visit = [&](auto&& self, size_t dim, const uint8_t* at) -> void {
    if (dim == sizes.size()) {
      if (*at > 1) bad = {flat, *at};
      ++flat;
      return;
    }
    for (int64_t i = 0; i < sizes[dim] && bad.index < 0; ++i)
      self(self, dim + 1, at + i * strides[dim]);
  };
  visit(visit, 0, data);
  return bad;
}

// What a capsule from to_dlpack owns: the shape and strides it points at, and a reference to
// the tensor, which keeps the storage alive until the consumer calls the deleter.
struct Exported {
  DLManagedTensor managed{};
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

}  // namespace

Tensor from_dlpack(DLManagedTensor* managed) {
  using detail::fail;
  if (managed == nullptr) fail("from_dlpack", "null DLManagedTensor");
  const DLTensor& source = managed->dl_tensor;

  Device device = kCPU;
  if (source.device.device_type == kDLCUDA) {
    if (source.device.device_id != 0)
      fail("from_dlpack", "CUDA device ", source.device.device_id,
           ": the runtime uses CUDA device 0 only");
    device = kCUDA;
  } else if (source.device.device_type != kDLCPU) {
    fail("from_dlpack", "unsupported device ", device_name(source.device.device_type),
         " (supported: kDLCPU, kDLCUDA)");
  }
  const Dtype dtype = dtype_from(source.dtype);
  if (source.ndim < 0 || source.ndim > detail::max_dims)
    fail("from_dlpack", "ndim ", source.ndim, " (at most ", detail::max_dims, " dims)");
  if (source.ndim > 0 && source.shape == nullptr) fail("from_dlpack", "null shape");
  const detail::IntList sizes(source.shape, static_cast<size_t>(source.ndim));
  const int64_t numel = detail::checked_numel("from_dlpack", sizes);
  const detail::Dims strides =
      source.strides ? detail::Dims(detail::IntList(source.strides, sizes.size()))
                     : detail::contiguous_strides(sizes);
  // The runtime's views and kernels walk strides forward from the first element.
  for (int64_t stride : strides)
    if (stride < 0)
      fail("from_dlpack", "negative strides are not supported, got strides ",
           detail::shape_str(strides), " for shape ", detail::shape_str(sizes));

  const int64_t item = detail::element_size(dtype);
  char* const data =
      source.data == nullptr ? nullptr : static_cast<char*>(source.data) + source.byte_offset;
  size_t nbytes = 0;
  if (numel > 0) {
    if (source.data == nullptr)
      fail("from_dlpack", "null data pointer for a tensor of shape ", detail::shape_str(sizes));
    if (reinterpret_cast<uintptr_t>(data) % item != 0)
      fail("from_dlpack", "data + byte_offset (", static_cast<void*>(data),
           ") is not aligned to the ", item, "-byte elements of ", dtype_str(source.dtype));
    int64_t last = 0;
    for (size_t d = 0; d < sizes.size(); ++d) last += (sizes[d] - 1) * strides[d];
    nbytes = static_cast<size_t>((last + 1) * item);
    if (device == kCUDA) detail::check_device_pointer("from_dlpack", data);
    if (source.dtype.code == kDLUInt && device == kCPU) {
      const BadByte bad = first_non_bool(reinterpret_cast<const uint8_t*>(data), sizes, strides);
      if (bad.index >= 0)
        fail("from_dlpack", "uint8 data is read as bool (DLPack 0.6 has no bool type), but "
             "element ", bad.index, " holds ", bad.value);
    }
  }

  // Everything is checked: from here the capsule is ours, and it goes back with the storage.
  auto storage = detail::borrow_storage(data, nbytes, device);
  storage->lender = std::shared_ptr<void>(managed, [](void* capsule) {
    auto* self = static_cast<DLManagedTensor*>(capsule);
    if (self->deleter) self->deleter(self);
  });
  return detail::make_tensor(std::move(storage), sizes, strides, 0, dtype);
}

DLManagedTensor* to_dlpack(const Tensor& tensor) {
  const detail::TensorImpl& impl = detail::impl_of(tensor, "to_dlpack");
  // Our kernels run on the backend's own stream; the consumer may read on any other.
  if (impl.device() == kCUDA) detail::device_backend("to_dlpack").synchronize();

  auto exported = std::make_unique<Exported>();
  exported->tensor = tensor;
  exported->shape.assign(impl.sizes.begin(), impl.sizes.end());
  exported->strides.assign(impl.strides.begin(), impl.strides.end());
  DLTensor& out = exported->managed.dl_tensor;
  out.data = impl.data();
  out.device = {impl.device() == kCUDA ? kDLCUDA : kDLCPU, 0};
  out.ndim = static_cast<int>(impl.sizes.size());
  out.dtype = dtype_to(impl.dtype);
  out.shape = exported->shape.data();
  out.strides = exported->strides.data();
  out.byte_offset = 0;
  exported->managed.manager_ctx = exported.get();
  exported->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<Exported*>(self->manager_ctx);
  };
  return &exported.release()->managed;
}

}  // namespace vmap
