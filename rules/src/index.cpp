// Indexing with a batched input, a batched index, or both. A batched index on an unbatched
// input is one index_select of all examples' indices (the batch lands where the indexed dim
// was); with both batched it is one gather along the shifted dim (for index_select, the
// runtime's index_select_each: Note [Batched index_select]).
#include <vmap/rules/rules.hpp>

#include <string>

namespace vmap::rules {
namespace {

// Negative positions count from the end, as select() and narrow() allow. A per-example
// position of another type (an `int`, a `bool`) is an int64, as C++ converts it to their
// int64_t parameter.
Tensor wrap_negative(const Tensor& index, int64_t extent) {
  const Tensor position = index.dtype() == kInt64 ? index : index.to(kInt64);
  return vmap::where(position < int64_t{0}, position + extent, position);
}

// index [B, k] shaped to gather along `dim` of the batch-front tensor `front`.
Tensor gather_index(const Tensor& index, const Tensor& front, int64_t dim) {
  std::vector<int64_t> shape(static_cast<std::size_t>(front.dim()), 1);
  shape[0] = index.size(0);
  shape[static_cast<std::size_t>(dim)] = index.size(1);
  std::vector<int64_t> sizes = front.sizes().vec();
  sizes[static_cast<std::size_t>(dim)] = index.size(1);
  return index.reshape(shape).expand(sizes);
}

// x.index_select(dim, index[b]) for every b, x unbatched: the batch dim replaces `dim`.
BatchedResult select_from_unbatched(const Tensor& x, int64_t dim, const Tensor& index) {
  const int64_t batch = index.size(0);
  const int64_t per_example = index.size(1);
  const Tensor selected = x.index_select(dim, index.reshape({batch * per_example}));
  std::vector<int64_t> sizes = selected.sizes().vec();
  sizes[static_cast<std::size_t>(dim)] = per_example;
  sizes.insert(sizes.begin() + dim, batch);
  return {selected.reshape(sizes), dim};
}

}  // namespace

BatchedResult select_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t dim, const Tensor& index,
                                BatchDim index_bdim) {
  const int64_t rank = rank_without_bdim(x, x_bdim);
  if (rank == 0) throw Error("select: cannot be applied to a 0-dim tensor");
  const int64_t logical_dim = wrap_logical_dim("select", dim, rank);
  const Tensor front = move_bdim_to_front(x, x_bdim);
  const int64_t extent = front.size(logical_dim + (x_bdim ? 1 : 0));
  const Tensor flat_index = move_bdim_to_front(index, index_bdim);
  const Tensor positions = wrap_negative(flat_index, extent).reshape({flat_index.numel(), 1});
  if (!x_bdim) {
    auto [selected, bdim] = select_from_unbatched(x, logical_dim, positions);
    return {selected.squeeze(logical_dim + 1), bdim};
  }
  const Tensor batched_positions =
      ensure_batched_front(positions, index_bdim ? BatchDim(0) : std::nullopt, front.size(0));
  const int64_t shifted = logical_dim + 1;
  return {front.gather(shifted, gather_index(batched_positions, front, shifted)).squeeze(shifted),
          0};
}

BatchedResult narrow_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t dim, const Tensor& start,
                                BatchDim start_bdim, int64_t length) {
  const int64_t logical_dim = wrap_logical_dim("narrow", dim, rank_without_bdim(x, x_bdim));
  const Tensor front = move_bdim_to_front(x, x_bdim);
  const int64_t extent = front.size(logical_dim + (x_bdim ? 1 : 0));
  const Tensor starts = wrap_negative(move_bdim_to_front(start, start_bdim), extent);
  const Tensor positions =
      starts.reshape({starts.numel(), 1}) + vmap::arange(length).to(starts.dtype()).unsqueeze(0);
  if (!x_bdim) return select_from_unbatched(x, logical_dim, positions);
  const int64_t shifted = logical_dim + 1;
  return {front.gather(shifted, gather_index(positions, front, shifted)), 0};
}

BatchedResult index_select_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t dim,
                                      const Tensor& index, BatchDim index_bdim) {
  if (!x_bdim && !index_bdim) return {x.index_select(dim, index), std::nullopt};
  const int64_t logical_dim = wrap_logical_dim("index_select", dim, rank_without_bdim(x, x_bdim));
  const Tensor front = move_bdim_to_front(x, x_bdim);
  if (!index_bdim) return {front.index_select(logical_dim + 1, index), 0};
  const Tensor index_front = move_bdim_to_front(index, index_bdim);
  if (index_front.dim() > 2)
    throw Error("index_select: index must be 0-d or 1-d, got " +
                std::to_string(index_front.dim() - 1) + "-d");
  const int64_t per_example = index_front.dim() == 2 ? index_front.size(1) : 1;
  const Tensor positions = index_front.reshape({index_front.size(0), per_example});
  if (!x_bdim) return select_from_unbatched(x, logical_dim, positions);
  return {vmap::detail::index_select_each(front, logical_dim + 1, positions), 0};
}

BatchedResult gather_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t dim, const Tensor& index,
                                BatchDim index_bdim) {
  if (!x_bdim && !index_bdim) return {x.gather(dim, index), std::nullopt};
  const std::array<BatchedResult, 2> operands{BatchedResult{x, x_bdim}, {index, index_bdim}};
  const int64_t batch = *batch_size_of(operands);
  const int64_t shifted = wrap_logical_dim("gather", dim, rank_without_bdim(x, x_bdim)) + 1;
  return {ensure_batched_front(x, x_bdim, batch)
              .gather(shifted, ensure_batched_front(index, index_bdim, batch)),
          0};
}

BatchedResult index_select_rule(std::size_t, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  const TensorArg& index = args.tensor_arg(2);
  return index_select_batch_rule(x.value, x.bdim, args.integer(1), index.value, index.bdim);
}

BatchedResult gather_rule(std::size_t, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  const TensorArg& index = args.tensor_arg(2);
  return gather_batch_rule(x.value, x.bdim, args.integer(1), index.value, index.bdim);
}

}  // namespace vmap::rules
