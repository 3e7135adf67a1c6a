// The host half of the device ops: what the CPU runtime's ops call for CUDA tensors, after
// their own checks and planning (Note [Device dispatch] in backend.hpp). Always compiled into
// vmap_runtime; without a backend every entry point throws "CUDA backend not built".
#pragma once

#include "../src/internal.hpp"
#include "backend.hpp"

namespace vmap::detail {

// A contiguous copy of `self` on `device` (Tensor::to(Device)).
Tensor to_device(const Tensor& self, Device device);
// Copies nbytes from source's data to destination's data, both on one device.
void copy_bytes(const Tensor& destination, const Tensor& source, size_t nbytes);
// A reduction of `self` over the dims flagged in is_reduced into a new [out_sizes] tensor.
Tensor device_reduce(const char* op, ReduceOp reduce_op, const Tensor& self,
                     std::span<const bool> is_reduced, IntList out_sizes, Dtype out_dtype);
// a [batch..., m, k] @ b [batch..., k, n] with equal batch shapes into `out` (added to it
// with `accumulate`), contiguous [batch..., m, n] on their device and overlapping neither.
void device_product(const char* op, const Tensor& a, const Tensor& b, const Tensor& out,
                    bool accumulate);
// ops_index.cpp's indexed copy into `out` (contiguous). False when an index is out of range.
bool device_indexed_copy(const char* op, int64_t dim, int64_t dim_size, IntList self_strides,
                         IntList index_strides, const Tensor& self, const Tensor& index,
                         const Tensor& out);

}  // namespace vmap::detail
