// In-place ops write into their first argument. A batched destination takes batched or
// unbatched values (broadcast over the batch); an unbatched destination cannot hold one
// value per example, so writing a batched value into it is refused (as functorch does).
#include <vmap/rules/rules.hpp>

#include <array>
#include <string>

namespace vmap::rules {
namespace {

void check_destination(std::size_t op, const TensorArg& destination, const TensorArg& value) {
  if (value.bdim && !destination.bdim)
    throw Error("vmap: " + std::string(kOpTable[op].name) +
                " would write a value that differs per example into a tensor shared by all "
                "examples; write into a per-example slot (out[i]) instead");
}

// Destination and value with batch dims in front and logical ranks lined up; the value is
// cast to the logical result type when `promote` (compound assignment).
std::pair<Tensor, Tensor> align_into(const TensorArg& destination, const TensorArg& value,
                                     bool promote) {
  const std::array operands{destination, value};
  constexpr std::array<std::size_t, 2> promoted{0, 1};
  const Dtype dtype = promote ? logical_result_type(operands, promoted) : value.value.dtype();
  const Tensor target = move_bdim_to_front(destination.value, destination.bdim);
  Tensor source = move_bdim_to_front(value.value, value.bdim);
  if (value.bdim) source = pad_to_logical_rank(source, 0, rank_without_bdim(target, 0));
  if (source.dtype() != dtype) source = source.to(dtype);
  return {target, source};
}

BatchedResult write(std::size_t op, const CallArgs& args, bool promote) {
  const TensorArg& destination = args.tensor_arg(0);
  const TensorArg value = args.operand(1);
  check_destination(op, destination, value);
  auto [target, source] = align_into(destination, value, promote);
  call_with(op, args, {{0, plain(target)}, {1, plain(source)}});
  return {destination.value, destination.bdim};
}

}  // namespace

BatchedResult copy_into_rule(std::size_t op, const CallArgs& args) {
  return write(op, args, false);
}

// fill_(v) with a per-example v copies v over each example; zero_() and a shared v fill.
BatchedResult fill_into_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& destination = args.tensor_arg(0);
  const auto* value = args.given(1) ? std::get_if<TensorArg>(&args.raw(1)) : nullptr;
  if (!value || !value->bdim) {
    call_with(op, args, {});
    return {destination.value, destination.bdim};
  }
  check_destination(op, destination, *value);
  auto [target, source] = align_into(destination, *value, false);
  target.copy_(source);
  return {destination.value, destination.bdim};
}

BatchedResult compound_assign_rule(std::size_t op, const CallArgs& args) {
  return write(op, args, true);
}

}  // namespace vmap::rules
