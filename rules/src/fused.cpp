// The non-template side of compiled fused kernels (Note [Compiled fusion] in
// include/vmap/fused.hpp): when a kernel applies, the layout of its operands, the threads,
// and the pending node of a store.
#include <vmap/fused.hpp>

#include "batched_fused.hpp"

#include <omp.h>

#include <algorithm>

namespace vmap::batched::detail {

std::optional<FusedLayout> plan_fused(const std::vector<Value>& operands, bool every_example) {
  FusedLayout layout;
  if (every_example) layout.levels = active_levels();
  int64_t rank = 0;
  for (const Value& v : operands) {
    if (!v.defined() || v.is_cpp_scalar() || placed_on(v) != kCPU) return std::nullopt;
    layout.levels = std::max(layout.levels, v.levels());
    rank = std::max(rank, v.dim());
  }
  if (operands.empty() || layout.levels + rank > kFusedMaxDims) return std::nullopt;
  layout.dtype = Access::physical_dtype(operands.front());
  if (layout.dtype != kFloat32 && layout.dtype != kFloat64) return std::nullopt;
  const int64_t full_rank = layout.levels + rank;
  layout.sizes.assign(static_cast<std::size_t>(full_rank), 1);
  std::vector<std::vector<int64_t>> strides;
  for (const Value& v : operands) {
    if (Access::physical_dtype(v) != layout.dtype) return std::nullopt;
    const Tensor physical = v.aligned(layout.levels);  // computes a pending value
    // Level dims first, then the example dims aligned at the end (broadcasting).
    std::vector<int64_t> operand_strides(static_cast<std::size_t>(full_rank), 0);
    const int64_t offset = rank - (physical.dim() - layout.levels);
    for (int64_t d = 0; d < physical.dim(); ++d) {
      const int64_t target = d < layout.levels ? d : d + offset;
      const auto t = static_cast<std::size_t>(target);
      const int64_t size = physical.size(d);
      if (size != 1) {
        if (layout.sizes[t] != 1 && layout.sizes[t] != size) return std::nullopt;  // eager raises
        layout.sizes[t] = size;
        operand_strides[t] = physical.stride(d);
      }
    }
    layout.operands.push_back(physical);
    strides.push_back(std::move(operand_strides));
  }
  if (every_example)  // no operand varies along a size-1 level dim: its strides are 0
    for (int64_t d = 0; d < active_levels(); ++d)
      layout.sizes[static_cast<std::size_t>(d)] = level_size(d);
  for (int64_t d = 0; d < full_rank; ++d)
    (d < layout.levels ? layout.level_count : layout.example_count) *=
        layout.sizes[static_cast<std::size_t>(d)];
  // Merge dim d into the dim before it where every operand steps through both as one;
  // size-1 dims drop out. Never across the level / example boundary: a reduction walks
  // its examples by runs.
  layout.strides.resize(strides.size());
  for (int64_t d = 0; d < full_rank; ++d) {
    const auto t = static_cast<std::size_t>(d);
    const int64_t size = layout.sizes[t];
    const bool same_group = !layout.dims.empty() && d != layout.levels;
    if (same_group && size == 1) continue;
    bool mergeable = same_group;
    for (std::size_t n = 0; mergeable && n < strides.size(); ++n)
      mergeable = layout.dims.back() == 1 || layout.strides[n].back() == strides[n][t] * size;
    if (mergeable) {
      layout.dims.back() *= size;
      for (std::size_t n = 0; n < strides.size(); ++n) layout.strides[n].back() = strides[n][t];
      continue;
    }
    layout.dims.push_back(size);
    for (std::size_t n = 0; n < strides.size(); ++n) layout.strides[n].push_back(strides[n][t]);
    if (d >= layout.levels) ++layout.example_rank;
  }
  return layout;
}

void parallel_ranges(int64_t count, int64_t cost,
                     const std::function<void(int64_t, int64_t)>& body) {
  // A thread per kBlockElements of work, as the runtime splits an op (Note [Thread grain]).
  const int64_t work = count * std::max<int64_t>(cost, 1);
  const int threads = static_cast<int>(
      std::min<int64_t>({omp_get_max_threads(), count, std::max<int64_t>(1, work / kBlockElements)}));
  if (threads <= 1 || omp_in_parallel()) {
    if (count > 0) body(0, count);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t thread = omp_get_thread_num();
    body(count * thread / threads, count * (thread + 1) / threads);
  }
}

Value fused_value(const FusedLayout& layout, std::vector<int64_t> sizes, Dtype dtype,
                  std::function<Tensor(const Tensor& destination)> compute) {
  return Access::make_pending(
      whole_node(std::move(sizes), dtype, kCPU, layout.operands, std::move(compute)),
      layout.levels, false);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

bool fused_masked() { return current_mask() != nullptr; }

namespace {

template <class Sum>
void accumulate_total(Tensor& acc, Sum total, Reduce op) {
  if (any_level_empty()) return;
  settle_before_write(acc);
  // A double accumulator of a float sum (pairwise_sum_prod): added in place, no 0-d tensor
  // and runtime op per call; any other dtype as the runtime's += promotes.
  if (acc.dtype() == vmap::detail::dtype_of<Sum>) {
    Sum& value = *acc.data_ptr<Sum>();
    value = op == Reduce::add ? value + total : value - total;
    return;
  }
  const Tensor value = vmap::full({}, total, vmap::detail::dtype_of<Sum>);
  if (op == Reduce::add)
    acc += value;
  else
    acc -= value;
}

}  // namespace

void fused_accumulate(Tensor& acc, double total, Reduce op) { accumulate_total(acc, total, op); }
void fused_accumulate(Tensor& acc, int64_t total, Reduce op) { accumulate_total(acc, total, op); }

}  // namespace vmap::batched::detail
