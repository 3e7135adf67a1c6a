// Pointwise ops on one tensor, conversions, metadata and item(): the batch dim passes
// through untouched.
#include <vmap/rules/rules.hpp>

#include <string>

namespace vmap::rules {

// contiguous() and clone() lay out each example contiguously: batch dim first.
BatchedResult convert_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  return {call_with(op, args, {{0, plain(move_bdim_to_front(x.value, x.bdim))}}),
          maybe_get_bdim(x.bdim)};
}

// The same for every example: ask the first one (or an empty slice when the batch is empty).
BatchedResult metadata_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  const Tensor first = x.value.size(*x.bdim) > 0
                           ? x.value.select(*x.bdim, 0)
                           : vmap::empty(logical_sizes(x.value, x.bdim), x.value.dtype());
  return {call_with(op, args, {{0, plain(first)}}), std::nullopt};
}

BatchedResult item_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  const Tensor front = move_bdim_to_front(x.value, x.bdim);
  int64_t numel = 1;
  for (int64_t size : logical_sizes(x.value, x.bdim)) numel *= size;
  if (numel != 1)
    throw Error("item: a tensor with " + std::to_string(numel) +
                " elements cannot be converted to a scalar");
  return {front.reshape({front.size(0)}), 0};
}

BatchedResult refused_rule(std::size_t op, const CallArgs&) {
  throw Error("vmap: " + std::string(kOpTable[op].name) +
              " cannot be batched (raw pointers, I/O or shared random state)");
}

}  // namespace vmap::rules
