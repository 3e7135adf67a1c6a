// Aligning the operands of ops that combine several tensors pointwise (masked_fill, lerp, and
// the reductions, products and in-place writes that broadcast): broadcasting handles the
// batch dim once every batched operand has it in front and all have the same logical rank.
// The pointwise ops themselves (unary, binary, where, clamp) are the batched API's pointwise
// path (Note [One pointwise path] in batched_value.cpp).
//
// Note [Logical promotion]
// A per-example 0-d tensor is physically 1-d once batched, and a per-example C++ scalar
// is a batched tensor too; left to the runtime, both would promote as dimensioned
// tensors and `float32 * float64-0d` would turn float64. So the rules compute ATen's
// result type from the logical ranks (and which operands were C++ scalars) and cast the
// operands to it first; the op then sees operands of one dtype and keeps it.
#include <vmap/detail/promotion.hpp>
#include <vmap/rules/rules.hpp>

#include <algorithm>
#include <array>

namespace vmap::rules {
namespace {

int64_t logical_rank(const TensorArg& operand) {
  return operand.wrapped_number ? 0 : rank_without_bdim(operand.value, operand.bdim);
}

bool any_batched(std::span<const TensorArg> operands) {
  return std::ranges::any_of(operands,
                             [](const TensorArg& operand) { return operand.bdim.has_value(); });
}

}  // namespace

Dtype logical_result_type(std::span<const TensorArg> operands,
                          std::span<const std::size_t> promoted) {
  std::vector<detail::Operand> tagged;
  for (std::size_t position : promoted) {
    const TensorArg& operand = operands[position];
    tagged.push_back(operand.wrapped_number
                         ? detail::number_operand(operand.value.dtype())
                         : detail::tensor_operand(operand.value.dtype(), logical_rank(operand)));
  }
  return detail::result_type(tagged);
}

std::vector<Tensor> align_pointwise(std::span<const TensorArg> operands,
                                    std::span<const std::size_t> promoted) {
  int64_t max_rank = 0;
  for (const TensorArg& operand : operands) max_rank = std::max(max_rank, logical_rank(operand));
  std::vector<Tensor> aligned;
  for (const TensorArg& operand : operands) {
    Tensor front = move_bdim_to_front(operand.value, operand.bdim);
    if (operand.bdim) front = pad_to_logical_rank(front, 0, max_rank);
    aligned.push_back(std::move(front));
  }
  if (promoted.empty()) return aligned;
  const Dtype dtype = logical_result_type(operands, promoted);
  for (std::size_t position : promoted)
    if (aligned[position].dtype() != dtype) aligned[position] = aligned[position].to(dtype);
  return aligned;
}

// where(mask, value, x) with the value in x's dtype (LibTorch casts it): x's dtype does not
// promote, so the operands align without promotion.
BatchedResult masked_fill_rule(std::size_t op, const CallArgs& args) {
  const std::array operands{args.tensor_arg(0), args.tensor_arg(1), args.operand(2)};
  if (!any_batched(operands)) return {call_with(op, args, {}), std::nullopt};
  if (operands[1].value.dtype() != kBool) return {call_with(op, args, {}), std::nullopt};
  const std::vector<Tensor> aligned = align_pointwise(operands, {});
  const Tensor& x = aligned[0];
  // The result has x's per-example shape: a mask or value with more dims raises per example.
  const Tensor filled = vmap::where(aligned[1], aligned[2].to(x.dtype()), x);
  if (logical_sizes(filled, 0) != logical_sizes(operands[0].value, operands[0].bdim))
    throw Error("masked_fill: the mask or value cannot be broadcast to the tensor's shape");
  return {filled, 0};
}

// lerp(start, end, weight): one pointwise call once the operands share a logical rank and
// dtype (a per-example C++ weight is a wrapped number, as a scalar weight is).
BatchedResult lerp_rule(std::size_t op, const CallArgs& args) {
  const std::array operands{args.tensor_arg(0), args.operand(1), args.operand(2)};
  // Integer starts are refused, as per example; promotion below would make them floating.
  if (!vmap::detail::is_floating(operands[0].value.dtype()))
    return {call_with(op, args, {}), std::nullopt};
  constexpr std::array<std::size_t, 3> promoted{0, 1, 2};
  const std::vector<Tensor> aligned = align_pointwise(operands, promoted);
  return {call_with(op, args,
                    {{0, plain(aligned[0])}, {1, plain(aligned[1])}, {2, plain(aligned[2])}}),
          any_batched(operands) ? BatchDim(0) : std::nullopt};
}

}  // namespace vmap::rules
