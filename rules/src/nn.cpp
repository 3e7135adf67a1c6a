// softmax / log_softmax, triu / tril, clamp.
#include <vmap/rules/rules.hpp>

#include <algorithm>
#include <array>
#include <string>

namespace vmap::rules {

BatchedResult softmax_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  const int64_t rank = rank_without_bdim(x.value, x.bdim);
  const int64_t dim =
      wrap_logical_dim(std::string(kOpTable[op].name).c_str(), args.integer(1), rank);
  const Tensor front = move_bdim_to_front(x.value, x.bdim);
  if (rank == 0)  // a 0-d example is its own (single-element) dim
    return {call_with(op, args, {{0, plain(front.unsqueeze(1))}, {1, int64_t{1}}}).squeeze(1), 0};
  return {call_with(op, args, {{0, plain(front)}, {1, dim + 1}}), 0};
}

// triu / tril act on the last two dims, which the batch dim in front leaves alone.
BatchedResult triangular_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  if (rank_without_bdim(x.value, x.bdim) < 2)
    throw Error(std::string(kOpTable[op].name) + ": input tensor must have at least 2 dimensions");
  return {call_with(op, args, {{0, plain(move_bdim_to_front(x.value, x.bdim))}}), 0};
}

// Bounds are C++ scalars (wrapped numbers) that may vary per example: a pointwise op over
// three operands, promoted as ATen promotes clamp.
BatchedResult clamp_rule(std::size_t op, const CallArgs& args) {
  std::vector<TensorArg> operands{args.tensor_arg(0)};
  std::vector<std::size_t> promoted{0};
  for (std::size_t i = 1; i <= 2; ++i) {
    if (!args.given(i)) continue;
    operands.push_back(args.operand(i));
    promoted.push_back(operands.size() - 1);
  }
  const std::vector<Tensor> aligned = align_pointwise(operands, promoted);
  std::size_t next = 1;
  std::vector<Arg> call(3);
  call[0] = plain(aligned[0]);
  for (std::size_t i = 1; i <= 2; ++i)
    if (args.given(i)) call[i] = plain(aligned[next++]);
  const bool batched =
      std::ranges::any_of(operands, [](const TensorArg& t) { return t.bdim.has_value(); });
  return {call_reference(op, call), batched ? BatchDim(0) : std::nullopt};
}

}  // namespace vmap::rules
