// *_like factories keep the batched shape; other factories take loop-invariant arguments.
#include <vmap/rules/rules.hpp>

#include <vmap/detail/promotion.hpp>

#include <string>

namespace vmap::rules {

BatchedResult like_factory_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  return {call_with(op, args, {{0, plain(move_bdim_to_front(x.value, x.bdim))}}),
          maybe_get_bdim(x.bdim)};
}

// full_like(x, v[, options]) with a per-example v: v broadcast over each example's shape,
// in the options' dtype and device, else x's.
BatchedResult full_like_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  const auto* value = std::get_if<TensorArg>(&args.raw(1));
  if (!value || !value->bdim) return like_factory_rule(op, args);
  const TensorOptions options = args.options(2);
  const Tensor values = move_bdim_to_front(value->value, value->bdim)
                            .to(options.dtype_or(x.value.dtype()))
                            .to(options.device_or(x.value.device()));
  const int64_t batch = values.size(0);
  const std::vector<int64_t> sizes = prepend(batch, logical_sizes(x.value, x.bdim));
  const Tensor column = pad_to_logical_rank(values, 0, static_cast<int64_t>(sizes.size()) - 1);
  return {column.expand(sizes).contiguous(), 0};
}

namespace {
// The dtype vmap::tensor / vmap::full give a C++ number of a type with this dtype, as
// LibTorch's C++ API: integers int64, floating numbers float32, bools bool.
Dtype literal_dtype(Dtype cpp) {
  if (detail::is_floating(cpp)) return kFloat32;
  return detail::is_integral(cpp) ? kInt64 : cpp;
}

// A batched number [B] or an unbatched 0-d one broadcast to [B].
Tensor column(const TensorArg& number, int64_t batch) {
  if (number.bdim) return move_bdim_to_front(number.value, number.bdim);
  return number.value.reshape({1}).expand({batch});
}

int64_t batch_size(std::span<const TensorArg> numbers) {
  for (const TensorArg& number : numbers)
    if (number.bdim) return move_bdim_to_front(number.value, number.bdim).size(0);
  return 1;
}

void check_numbers(std::string_view op, std::span<const TensorArg> numbers) {
  for (const TensorArg& number : numbers)
    if (number.value.dim() != (number.bdim ? 1 : 0))
      throw Error("vmap: " + std::string(op) + " takes C++ numbers, got a tensor of " +
                  std::to_string(number.value.dim() - (number.bdim ? 1 : 0)) + " dims");
}
}  // namespace

// full(shape, v) with a per-example v: each example's tensor of the shape filled with its v.
BatchedResult full_rule(std::size_t op, const CallArgs& args) {
  const auto* value = std::get_if<TensorArg>(&args.raw(1));
  if (!value || !value->bdim) return loop_invariant_rule(op, args);
  check_numbers("full", {value, 1});
  const std::vector<int64_t> shape = args.integers(0);
  const TensorOptions options = args.options(2);
  const Tensor values = move_bdim_to_front(value->value, value->bdim);
  const std::vector<int64_t> sizes = prepend(values.size(0), shape);
  const Tensor filled = pad_to_logical_rank(values.to(options.dtype_or(literal_dtype(values.dtype()))),
                                            0, static_cast<int64_t>(shape.size()));
  return {filled.expand(sizes).contiguous().to(options.device_or(kCPU)), 0};
}

// tensor({a, b, ...}): the numbers (0-d per example; batched::tensor passes a nested list
// flat and reshapes the result) side by side in each example's 1-d tensor, in the dtype
// vmap::tensor gives the same C++ numbers (Note [Per-example tensor literals]).
BatchedResult tensor_literal_rule(std::size_t, const CallArgs& args) {
  const std::vector<TensorArg>& numbers = args.tensor_args(0);
  check_numbers("tensor", numbers);
  if (numbers.empty()) throw Error("vmap: tensor of per-example numbers got an empty list");
  Dtype dtype = literal_dtype(numbers.front().value.dtype());
  for (const TensorArg& number : numbers)
    dtype = detail::promote_types(dtype, literal_dtype(number.value.dtype()));
  const TensorOptions options = args.options(1);
  const int64_t batch = batch_size(numbers);
  // Each number straight to the result's dtype, as vmap::tensor converts each C++ number.
  std::vector<Tensor> columns;
  for (const TensorArg& number : numbers)
    columns.push_back(column(number, batch).to(options.dtype_or(dtype)));
  return {vmap::stack(columns, 1).to(options.device_or(kCPU)), 0};
}

BatchedResult loop_invariant_rule(std::size_t op, const CallArgs& args) {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (const auto* tensor = std::get_if<TensorArg>(&args.raw(i)); tensor && tensor->bdim)
      throw Error("vmap: the arguments of " + std::string(kOpTable[op].name) +
                  " must be the same for every example");
  return {call_with(op, args, {}), std::nullopt};
}

}  // namespace vmap::rules
