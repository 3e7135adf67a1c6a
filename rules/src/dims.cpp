// The ops along one dim (softmax, log_softmax, cumsum, cumprod, sort, argsort, topk) and on
// the last dims (triu / tril, one_hot): Family::along_dim and Family::last_dims.
#include <vmap/rules/rules.hpp>

#include <string>

namespace vmap::rules {

// Along one dim, the entry's `dim` position (left out: LibTorch's -1): softmax, log_softmax,
// cumsum, cumprod, and the positions of sort, argsort and topk (Note [Sorting] in
// runtime/src/ops_sort.cpp). Each example's shape is kept but along that dim.
BatchedResult along_dim_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  const OpEntry& entry = kOpTable[op];
  std::size_t position = 1;
  while (entry.param(position) != ArgKind::dim) ++position;
  const int64_t rank = rank_without_bdim(x.value, x.bdim);
  const int64_t dim =
      wrap_logical_dim(std::string(entry.name).c_str(), args.integer(position, -1), rank);
  const Tensor front = move_bdim_to_front(x.value, x.bdim);
  if (rank == 0)  // a 0-d example is its own (single-element) dim
    return {
        call_with(op, args, {{0, plain(front.unsqueeze(1))}, {position, int64_t{1}}}).squeeze(1),
        0};
  return {call_with(op, args, {{0, plain(front)}, {position, dim + 1}}), 0};
}

// topk(k): along its dim, but LibTorch takes a 0-d example whole for k = 0 too, as for k = 1
// (one element along the size-1 dim the 0-d examples get).
BatchedResult topk_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim || rank_without_bdim(x.value, x.bdim) != 0 || args.integer(1) != 0)
    return along_dim_rule(op, args);
  std::vector<Arg> one(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) one[i] = i == 1 ? Arg(int64_t{1}) : args.raw(i);
  return along_dim_rule(op, CallArgs(one));
}

// one_hot(x, num_classes): a new last dim. Inferred (-1), the count is max + 1 of the whole
// batch, which must be every example's own: their results' shapes must agree.
BatchedResult one_hot_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  const Tensor result = call_with(op, args, {});
  if (!x.bdim) return {result, std::nullopt};
  const Tensor front = move_bdim_to_front(x.value, x.bdim);
  if (args.integer(1, -1) == -1 && front.size(0) > 0 && front.numel() > 0) {
    const Tensor largest = front.reshape({front.size(0), -1}).amax({1});
    const int64_t low = largest.amin().item<int64_t>(), high = largest.amax().item<int64_t>();
    if (low != high)
      throw Error("one_hot: the number of classes inferred differs between examples (" +
                  std::to_string(low + 1) + " and " + std::to_string(high + 1) +
                  "): pass num_classes");
  }
  return {result, x.bdim};
}

// triu / tril act on the last two dims, which the batch dim in front leaves alone.
BatchedResult triangular_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  if (rank_without_bdim(x.value, x.bdim) < 2)
    throw Error(std::string(kOpTable[op].name) + ": input tensor must have at least 2 dimensions");
  return {call_with(op, args, {{0, plain(move_bdim_to_front(x.value, x.bdim))}}), 0};
}

}  // namespace vmap::rules
