// The non-template side of scalar kernels (Note [Scalar kernels] in
// include/vmap/fused_scalar.hpp): their operands over every active level, the live mask,
// the threads, and the result as a per-example C++ scalar.
#include <vmap/fused_scalar.hpp>

#include "batched_internal.hpp"

#include <omp.h>

#include <algorithm>
#include <string>

namespace vmap::batched::detail {

namespace {

// `v` (no example dims) as a contiguous CPU tensor of `dtype` over every level of `layout`.
Tensor over_every_level(const Value& v, Dtype dtype, const ScalarKernelLayout& layout) {
  if (v.dim() != 0)
    throw vmap::Error("fused_scalar: an operand has " + std::to_string(v.dim()) +
                      " dims per example, not one number");
  return v.aligned(layout.levels).to(kCPU).to(dtype).expand(layout.sizes).contiguous();
}

}  // namespace

ScalarKernelLayout plan_scalar_kernel(const std::vector<Value>& operands,
                                      const std::vector<Dtype>& dtypes) {
  ScalarKernelLayout layout;
  layout.levels = active_levels();
  for (int64_t level = 0; level < layout.levels; ++level) {
    layout.sizes.push_back(level_size(level));
    layout.count *= layout.sizes.back();
  }
  for (std::size_t n = 0; n < operands.size(); ++n) {
    if (placed_on(operands[n]) != kCPU) layout.device = placed_on(operands[n]);
    layout.operands.push_back(over_every_level(operands[n], dtypes[n], layout));
  }
  if (const Value* mask = current_mask()) layout.active = over_every_level(*mask, kBool, layout);
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
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t chunk = 0; chunk < chunks; ++chunk)
    body(chunk * kChunk, std::min(count, (chunk + 1) * kChunk));
}

Value scalar_kernel_value(const ScalarKernelLayout& layout, const Tensor& result) {
  return Value(layout.device == kCPU ? result : result.to(layout.device), layout.levels, true);
}

}  // namespace vmap::batched::detail
