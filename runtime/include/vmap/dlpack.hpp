// Zero-copy exchange with other frameworks through DLPack 0.6 (Debian's libdlpack-dev):
// PyTorch (torch.utils.dlpack, at::toDLPack / at::fromDLPack), CuPy, JAX, NumPy >= 1.22.
// Not part of <vmap/vmap.hpp>, so code that does not exchange tensors needs no DLPack header.
#pragma once

#include <vmap/tensor.hpp>

#include <dlpack/dlpack.h>

namespace vmap {

// A Tensor over the capsule's memory, without a copy. Takes ownership of `managed` on
// success: its deleter runs exactly once, when the last Tensor (or view) using the memory
// dies. On a vmap::Error (a null capsule, an unsupported dtype, lanes or device, a negative
// size or stride, a misaligned pointer) the capsule is untouched and still the caller's.
//   dtypes: float32/64, int32/64, bool (DLPack 0.8's code 6, from newer producers), and
//           uint8 read as bool (DLPack 0.6 has no bool code; LibTorch 1.13 refuses to export
//           bool, so send mask.to(kByte)): on the CPU every byte is checked to be 0 or 1.
//   devices: kDLCPU, and kDLCUDA device 0 (the device the runtime uses).
//   strides: null means contiguous (row-major); byte_offset is added to `data`.
// A CUDA producer's pending writes must be finished (synchronized) before the call, as
// DLPack 0.6's C interface has no stream.
Tensor from_dlpack(DLManagedTensor* managed);

// A capsule viewing `tensor`'s memory, without a copy: the consumer calls its deleter once
// when done, which releases this reference to the storage (the memory lives on while other
// Tensors use it). `data` points at the first element and byte_offset is 0, as PyTorch's
// toDLPack writes it (PyTorch 1.13's importer ignores byte_offset). Bool is exported as
// uint8, which DLPack 0.6 consumers (LibTorch 1.13) can read. A CUDA tensor's pending work is synchronized first, so the consumer can read it on
// any stream.
DLManagedTensor* to_dlpack(const Tensor& tensor);

}  // namespace vmap
