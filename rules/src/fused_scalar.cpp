// The non-template side of scalar kernels (Note [Scalar kernels] in
// include/vmap/fused_scalar.hpp): their operands over every active level, the live mask,
// the threads, and the result as a per-example C++ scalar.
#include <vmap/fused_scalar.hpp>

#include "batched_internal.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

namespace vmap::batched::detail {

namespace {

// `v` on the CPU, expanded over every level of `layout` (no copy), its level strides and
// those of its own dims, in bytes.
ElementOperand over_every_level(const Value& v, const ScalarKernelLayout& layout) {
  ElementOperand e;
  e.sizes = v.sizes();
  std::vector<int64_t> sizes = layout.sizes;
  sizes.insert(sizes.end(), e.sizes.begin(), e.sizes.end());
  e.held = v.aligned(layout.levels).to(kCPU).expand(sizes);
  e.base = static_cast<const char*>(e.held.raw_data());
  e.dtype = e.held.dtype();
  const int64_t item = vmap::detail::element_size(e.held.dtype());
  const auto strides = e.held.strides();
  for (std::size_t d = 0; d < sizes.size(); ++d)
    (d < static_cast<std::size_t>(layout.levels) ? e.level_strides : e.strides)
        .push_back(strides[d] * item);
  return e;
}

}  // namespace

void fail_element_select_0dim() {
  throw vmap::Error(std::string(vmap::detail::OpName::named("select")) +
                    ": cannot be applied to a 0-dim tensor");
}

void fail_element_index(int64_t index, int64_t size) {
  throw vmap::Error(std::string(vmap::detail::OpName::named("select")) + ": index " +
                    std::to_string(index) + " out of range for dim 0 of size " +
                    std::to_string(size));
}

void fail_element_item(int64_t numel) {
  throw vmap::Error(std::string(vmap::detail::OpName::named("item")) + ": a Tensor with " +
                    std::to_string(numel) + " elements cannot be converted to Scalar");
}

ScalarKernelLayout plan_scalar_kernel(const std::vector<Value>& operands,
                                      const std::vector<Dtype>& dtypes,
                                      const std::vector<Value>& elements) {
  ScalarKernelLayout layout;
  layout.levels = active_levels();
  for (int64_t level = 0; level < layout.levels; ++level) {
    layout.sizes.push_back(level_size(level));
    layout.count *= layout.sizes.back();
  }
  for (std::size_t n = 0; n < operands.size(); ++n) {
    if (placed_on(operands[n]) != kCPU) layout.device = placed_on(operands[n]);
    if (operands[n].dim() != 0)
      throw vmap::Error("fused_scalar: an operand has " + std::to_string(operands[n].dim()) +
                        " dims per example, not one number");
    layout.operands.push_back(over_every_level(operands[n].to(dtypes[n]), layout));
  }
  for (const Value& v : elements) {
    if (placed_on(v) != kCPU) layout.device = placed_on(v);
    layout.elements.push_back(over_every_level(v, layout));
  }
  if (const Value* mask = current_mask())
    layout.active =
        mask->aligned(layout.levels).to(kCPU).to(kBool).expand(layout.sizes).contiguous();
  return layout;
}

void parallel_chunks(int64_t count, const std::function<void(int64_t, int64_t)>& body) {
  // Small enough that the examples of an expensive corner (Mandelbrot's set itself) spread
  // over the threads, large enough that taking one costs nothing next to running it.
  constexpr int64_t kChunk = 64;
  const int64_t chunks = (count + kChunk - 1) / kChunk;
  if (chunks <= 1 || omp_get_max_threads() <= 1 || omp_in_parallel()) {
    if (count > 0) body(0, count);
    return;
  }
  // An element read out of range throws (Note [Element reads]); no exception may leave an
  // OpenMP region, so the one of the first example in loop order, the one the loop as
  // written raises, is thrown after it (a chunk runs its examples in order).
  int64_t failed = chunks;
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    try {
      body(chunk * kChunk, std::min(count, (chunk + 1) * kChunk));
    } catch (...) {
#pragma omp critical(vmap_parallel_chunks_error)
      if (chunk < failed) {
        failed = chunk;
        error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

Value scalar_kernel_value(const ScalarKernelLayout& layout, const Tensor& result,
                          bool cpp_scalar) {
  return Value(layout.device == kCPU ? result : result.to(layout.device), layout.levels,
               cpp_scalar);
}

Tensor element_result(const ScalarKernelLayout& layout, const Elements& first, int64_t example) {
  std::vector<int64_t> sizes = layout.sizes;
  sizes.insert(sizes.end(), first.sizes(), first.sizes() + first.dim());
  // The examples a live mask leaves out are never written: zeros, as fused_scalar's.
  const TensorOptions options(first.dtype());
  Tensor result = layout.active.defined() ? vmap::zeros(sizes, options) : vmap::empty(sizes, options);
  store_elements(layout, first, result, example);
  return result;
}

void store_elements(const ScalarKernelLayout& layout, const Elements& from, const Tensor& result,
                    int64_t example) {
  const int64_t item = vmap::detail::element_size(result.dtype());
  const int64_t numel = from.numel();
  if (from.dtype() != result.dtype() || from.dim() + layout.levels != result.dim())
    throw vmap::Error("fused_scalar: a kernel returned elements of two tensors");
  char* to = static_cast<char*>(result.raw_data()) + example * numel * item;
  if (from.dim() == 0) {
    std::memcpy(to, from.data(), item);
    return;
  }
  // Row-major over the example's dims, whatever its strides.
  std::vector<int64_t> index(from.dim(), 0);
  for (int64_t n = 0; n < numel; ++n) {
    const char* at = from.data();
    for (int64_t d = 0; d < from.dim(); ++d) at += index[d] * from.byte_strides()[d];
    std::memcpy(to + n * item, at, item);
    for (int64_t d = from.dim(); d-- > 0;) {
      if (++index[d] < from.sizes()[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace vmap::batched::detail
