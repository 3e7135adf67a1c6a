// Shared helpers of the batching rules (functorch's BatchRulesHelpers).
//
// Note [Batch dims]
// A rule sees each tensor argument with an optional batch dim: std::nullopt means the
// argument is the same for every example; otherwise `x.size(*bdim)` is the batch size and
// the other dims form the per-example ("logical") tensor. Rules move batch dims to the
// front first, so dims the user wrote shift by one, and return their result with its own
// batch dim (0 unless noted).
#pragma once

#include <vmap/tensor.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace vmap::rules {

using BatchDim = std::optional<int64_t>;
// What a rule returns: the batched result and its batch dim.
using BatchedResult = std::pair<Tensor, BatchDim>;

// Rank of the per-example tensor.
int64_t rank_without_bdim(const Tensor& x, BatchDim bdim);

// x with its batch dim (if any) moved to dim 0; a view.
Tensor move_bdim_to_front(const Tensor& x, BatchDim bdim);

// 0 when batched (after move_bdim_to_front), nullopt otherwise.
inline BatchDim maybe_get_bdim(BatchDim bdim) { return bdim ? BatchDim(0) : std::nullopt; }

// x (batch dim in front when batched) with size-1 dims inserted after the batch dim, or at
// the front when unbatched, until its logical rank is `logical_rank`; a view. Pointwise
// rules use it so logical dims line up under broadcasting.
Tensor pad_to_logical_rank(const Tensor& x, BatchDim bdim, int64_t logical_rank);

// `dim` (negative counts from the end) as a non-negative dim of a logical tensor of rank
// `logical_rank`; 0-d tensors accept 0 and -1 like ATen. Throws vmap::Error naming `op`.
int64_t wrap_logical_dim(const char* op, int64_t dim, int64_t logical_rank);

// The batch size shared by the batched arguments (they must agree), or nullopt.
std::optional<int64_t> batch_size_of(std::span<const BatchedResult> args);

// x with a batch dim of `batch_size` in front: moved when batched, expanded (a view) when not.
Tensor ensure_batched_front(const Tensor& x, BatchDim bdim, int64_t batch_size);

// Sizes of x without its batch dim.
std::vector<int64_t> logical_sizes(const Tensor& x, BatchDim bdim);

// Sizes {front, rest...}.
std::vector<int64_t> prepend(int64_t front, detail::IntList rest);

}  // namespace vmap::rules
