// The matmul family. Each batched call is one runtime matmul: a batch of vectors against an
// unbatched matrix is one GEMM over all examples; everything else is one broadcast batched
// GEMM after vectors become 1-row/1-column matrices and batch ranks are padded.
#include <vmap/rules/rules.hpp>

#include <algorithm>
#include <string>

namespace vmap::rules {
namespace {

void check_ranks(const char* op, const Tensor& x, BatchDim x_bdim, int64_t x_rank, const Tensor& y,
                 BatchDim y_bdim, int64_t y_rank) {
  const int64_t actual_x = rank_without_bdim(x, x_bdim);
  const int64_t actual_y = rank_without_bdim(y, y_bdim);
  if (actual_x != x_rank || actual_y != y_rank)
    throw Error(std::string(op) + ": expected " + std::to_string(x_rank) + "-D and " +
                std::to_string(y_rank) + "-D tensors, got " + std::to_string(actual_x) + "-D and " +
                std::to_string(actual_y) + "-D");
}

BatchedResult checked_matmul(const char* op, const CallArgs& args, int64_t x_rank, int64_t y_rank) {
  const TensorArg& x = args.tensor_arg(0);
  const TensorArg& y = args.tensor_arg(1);
  check_ranks(op, x.value, x.bdim, x_rank, y.value, y.bdim, y_rank);
  return matmul_batch_rule(x.value, x.bdim, y.value, y.bdim);
}

}  // namespace

BatchedResult matmul_batch_rule(const Tensor& x, BatchDim x_bdim, const Tensor& y,
                                BatchDim y_bdim) {
  if (!x_bdim && !y_bdim) return {x.matmul(y), std::nullopt};
  const int64_t x_rank = rank_without_bdim(x, x_bdim);
  const int64_t y_rank = rank_without_bdim(y, y_bdim);
  if (x_rank == 0 || y_rank == 0)
    throw Error("matmul: both arguments need at least 1 dimension, got " + std::to_string(x_rank) +
                "-D and " + std::to_string(y_rank) + "-D");
  Tensor x_front = move_bdim_to_front(x, x_bdim);
  Tensor y_front = move_bdim_to_front(y, y_bdim);
  // A batch of vectors against an unbatched vector or matrix: one GEMM/GEMV over all rows.
  if (x_bdim && !y_bdim && x_rank == 1 && y_rank <= 2) return {x_front.matmul(y_front), 0};
  if (!x_bdim && y_bdim && y_rank == 1 && x_rank <= 2)
    return {y_front.matmul(x_rank == 2 ? x_front.t() : x_front), 0};
  const bool x_is_vector = x_rank == 1;
  const bool y_is_vector = y_rank == 1;
  if (x_is_vector) x_front = x_front.unsqueeze(-2);
  if (y_is_vector) y_front = y_front.unsqueeze(-1);
  const int64_t rank = std::max({x_rank, y_rank, int64_t{2}});
  if (x_bdim) x_front = pad_to_logical_rank(x_front, 0, rank);
  if (y_bdim) y_front = pad_to_logical_rank(y_front, 0, rank);
  Tensor result = x_front.matmul(y_front);
  if (y_is_vector) result = result.squeeze(-1);
  if (x_is_vector) result = result.squeeze(y_is_vector ? -1 : -2);
  return {result, 0};
}

BatchedResult linear_batch_rule(const Tensor& x, BatchDim x_bdim, const Tensor& weight,
                                BatchDim weight_bdim, const TensorArg* bias) {
  if (rank_without_bdim(weight, weight_bdim) != 2)
    throw Error("linear: weight must be 2-D, got " +
                std::to_string(rank_without_bdim(weight, weight_bdim)) + "-D");
  // Shared weight and bias: one runtime linear over all examples' rows (GEMM plus bias in one
  // call, with the runtime's own checks and messages).
  if (!weight_bdim && (!bias || !bias->bdim) && rank_without_bdim(x, x_bdim) >= 1)
    return {linear(move_bdim_to_front(x, x_bdim), weight,
                   bias ? std::optional<Tensor>(bias->value) : std::nullopt),
            x_bdim ? BatchDim(0) : std::nullopt};
  const Tensor weight_t = move_bdim_to_front(weight, weight_bdim).transpose(-1, -2);
  auto [product, product_bdim] =
      matmul_batch_rule(x, x_bdim, weight_t, maybe_get_bdim(weight_bdim));
  if (!bias) return {product, product_bdim};
  const std::array operands{TensorArg{product, product_bdim}, *bias};
  const std::vector<Tensor> aligned = align_pointwise(operands, {});
  return {aligned[0] + aligned[1], product_bdim || bias->bdim ? BatchDim(0) : std::nullopt};
}

BatchedResult matmul_rule(std::size_t, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  const TensorArg& y = args.tensor_arg(1);
  return matmul_batch_rule(x.value, x.bdim, y.value, y.bdim);
}
BatchedResult mm_rule(std::size_t, const CallArgs& args) {
  return checked_matmul("mm", args, 2, 2);
}
BatchedResult mv_rule(std::size_t, const CallArgs& args) {
  return checked_matmul("mv", args, 2, 1);
}
BatchedResult bmm_rule(std::size_t, const CallArgs& args) {
  return checked_matmul("bmm", args, 3, 3);
}

BatchedResult dot_rule(std::size_t, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  const TensorArg& y = args.tensor_arg(1);
  check_ranks("dot", x.value, x.bdim, 1, y.value, y.bdim, 1);
  if (logical_sizes(x.value, x.bdim) != logical_sizes(y.value, y.bdim))
    throw Error("dot: expected 1-D tensors of the same size, got [" +
                std::to_string(logical_sizes(x.value, x.bdim)[0]) + "] and [" +
                std::to_string(logical_sizes(y.value, y.bdim)[0]) + "]");
  return matmul_batch_rule(x.value, x.bdim, y.value, y.bdim);
}

BatchedResult linear_rule(std::size_t, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  const TensorArg& weight = args.tensor_arg(1);
  return linear_batch_rule(x.value, x.bdim, weight.value, weight.bdim,
                           args.given(2) ? &args.tensor_arg(2) : nullptr);
}

}  // namespace vmap::rules
