// *_like factories keep the batched shape; other factories take loop-invariant arguments.
#include <vmap/rules/rules.hpp>

#include <string>

namespace vmap::rules {

BatchedResult like_factory_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  return {call_with(op, args, {{0, plain(move_bdim_to_front(x.value, x.bdim))}}),
          maybe_get_bdim(x.bdim)};
}

// full_like(x, v) with a per-example v: v broadcast over each example's shape.
BatchedResult full_like_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  const auto* value = std::get_if<TensorArg>(&args.raw(1));
  if (!value || !value->bdim) return like_factory_rule(op, args);
  const Tensor values = move_bdim_to_front(value->value, value->bdim);
  const int64_t batch = values.size(0);
  const std::vector<int64_t> sizes = prepend(batch, logical_sizes(x.value, x.bdim));
  const Tensor column =
      pad_to_logical_rank(values.to(x.value.dtype()), 0, static_cast<int64_t>(sizes.size()) - 1);
  return {column.expand(sizes).contiguous(), 0};
}

BatchedResult loop_invariant_rule(std::size_t op, const CallArgs& args) {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (const auto* tensor = std::get_if<TensorArg>(&args.raw(i)); tensor && tensor->bdim)
      throw Error("vmap: the arguments of " + std::string(kOpTable[op].name) +
                  " must be the same for every example");
  return {call_with(op, args, {}), std::nullopt};
}

}  // namespace vmap::rules
