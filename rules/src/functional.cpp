// vmap::vmap's level bookkeeping (functional.hpp).
#include <vmap/functional.hpp>

#include "batched_internal.hpp"

#include <string>

namespace vmap::functional_detail {

using batched::Access;
using batched::Value;

int64_t active_levels() { return batched::active_levels(); }

Value enter_level(const Value& argument, std::optional<int64_t> in_dim, int64_t outer_levels) {
  if (!in_dim) return argument;
  const Tensor aligned = argument.aligned(outer_levels);
  const int64_t rank = aligned.dim() - outer_levels;
  const int64_t dim = rules::wrap_logical_dim("vmap", *in_dim, rank) + outer_levels;
  return Access::make(aligned.movedim(dim, outer_levels), outer_levels + 1,
                      argument.is_cpp_scalar());
}

int64_t batch_size(const std::vector<Value>& arguments,
                   const std::vector<std::optional<int64_t>>& in_dims, int64_t outer_levels) {
  std::optional<int64_t> size;
  for (std::size_t k = 0; k < arguments.size(); ++k) {
    if (!in_dims[k]) continue;
    const Tensor aligned = arguments[k].aligned(outer_levels);
    const int64_t rank = aligned.dim() - outer_levels;
    const int64_t this_size =
        aligned.size(rules::wrap_logical_dim("vmap", *in_dims[k], rank) + outer_levels);
    if (size && *size != this_size)
      throw Error("vmap: arguments disagree on the batch size (" + std::to_string(*size) + " vs " +
                  std::to_string(this_size) + ")");
    size = this_size;
  }
  if (!size) throw Error("vmap: no argument is batched (every in_dim is nullopt)");
  return *size;
}

Value leave_level(const Value& result, int64_t out_dim, int64_t outer_levels, int64_t batch) {
  Tensor aligned = result.aligned(outer_levels + 1);
  std::vector<int64_t> sizes = aligned.sizes().vec();
  sizes[static_cast<std::size_t>(outer_levels)] = batch;
  aligned = aligned.expand(sizes);
  const int64_t rank = aligned.dim() - outer_levels;  // logical rank with the batch dim
  const int64_t dim = rules::wrap_logical_dim("vmap", out_dim, rank) + outer_levels;
  return Access::make(aligned.movedim(outer_levels, dim), outer_levels, false);
}

}  // namespace vmap::functional_detail
