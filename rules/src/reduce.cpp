// Reductions: the batch dim goes in front and every reduced dim shifts by one. A per-example
// 0-d tensor reduces over dim 0/-1 like ATen (to itself), so it gets a size-1 dim to reduce.
#include <vmap/rules/rules.hpp>

#include <numeric>
#include <string>

namespace vmap::rules {
namespace {

int64_t product(const std::vector<int64_t>& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
}

// Logical dims of a batch-front tensor, wrapped and shifted past the batch dim; a 0-d
// example gets the size-1 dim 1 appended and reduced instead.
std::pair<Tensor, std::vector<int64_t>> shift_reduced_dims(const char* op, const Tensor& front,
                                                           std::vector<int64_t> dims) {
  const int64_t rank = front.dim() - 1;
  if (rank == 0) {
    for (int64_t dim : dims) wrap_logical_dim(op, dim, 0);
    return {front.unsqueeze(1), {1}};
  }
  if (dims.empty()) {  // sum(x, {}) reduces every dim, as in ATen
    dims.resize(static_cast<std::size_t>(rank));
    std::iota(dims.begin(), dims.end(), 0);
  }
  for (int64_t& dim : dims) dim = wrap_logical_dim(op, dim, rank) + 1;
  return {front, dims};
}

}  // namespace

// sum(), argmax(), any(): the dim form of the op over the flattened example.
BatchedResult reduce_all_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  const Tensor front = move_bdim_to_front(x.value, x.bdim);
  const Tensor flat = front.reshape({front.size(0), product(logical_sizes(x.value, x.bdim))});
  const std::size_t dim_form = sibling_op(op, {ArgKind::tensor, ArgKind::dim, ArgKind::keepdim});
  const std::array<Arg, 3> dim_args{plain(flat), int64_t{1}, false};
  return {call_reference(dim_form, dim_args), 0};
}

BatchedResult reduce_dim_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  const std::string name(kOpTable[op].name);
  auto [front, dims] =
      shift_reduced_dims(name.c_str(), move_bdim_to_front(x.value, x.bdim), {args.integer(1)});
  const bool keepdim = front.dim() != x.value.dim() ? false : args.flag(2);
  return {call_with(op, args, {{0, plain(front)}, {1, dims[0]}, {2, keepdim}}), 0};
}

// The dim list is the entry's dim_list position and keepdim its last position (var's
// unbiased flag and norm's p sit between or before them).
BatchedResult reduce_dims_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  const OpEntry& entry = kOpTable[op];
  std::size_t dims_at = 1;
  while (entry.param(dims_at) != ArgKind::dim_list) ++dims_at;
  const std::size_t keepdim_at = entry.arity - 1u;
  const std::string name(entry.name);
  auto [front, dims] = shift_reduced_dims(name.c_str(), move_bdim_to_front(x.value, x.bdim),
                                          args.integers(dims_at));
  const bool keepdim = front.dim() != x.value.dim() ? false : args.flag(keepdim_at);
  return {call_with(op, args, {{0, plain(front)}, {dims_at, dims}, {keepdim_at, keepdim}}), 0};
}

// equal(a, b) / allclose(a, b, rtol, atol) for each example: elementwise test, then all()
// over the example. Tolerances may differ per example too.
BatchedResult compare_all_rule(std::size_t op, const CallArgs& args) {
  std::vector<TensorArg> operands{args.tensor_arg(0), args.tensor_arg(1)};
  const bool is_equal = kOpTable[op].name == "equal";
  if (!is_equal) {
    operands.push_back(args.given(2) ? args.operand(2) : TensorArg{vmap::tensor(1e-05), {}, true});
    operands.push_back(args.given(3) ? args.operand(3) : TensorArg{vmap::tensor(1e-08), {}, true});
  }
  std::vector<BatchedResult> batched;
  for (const TensorArg& operand : operands) batched.emplace_back(operand.value, operand.bdim);
  const std::optional<int64_t> batch = batch_size_of(batched);
  if (!batch) return {call_with(op, args, {}), std::nullopt};
  if (is_equal && logical_sizes(operands[0].value, operands[0].bdim) !=
                      logical_sizes(operands[1].value, operands[1].bdim))
    return {vmap::zeros({*batch}, kBool), 0};
  constexpr std::array<std::size_t, 2> promoted{0, 1};
  const std::vector<Tensor> aligned = align_pointwise(operands, promoted);
  Tensor close = aligned[0] == aligned[1];
  if (!is_equal)
    close = close | ((aligned[0] - aligned[1]).abs() <= aligned[1].abs() * aligned[2] + aligned[3]);
  // A batched operand has the batch dim in front, so the broadcast result has it too.
  close = close.expand(prepend(*batch, logical_sizes(close, 0)));
  if (*batch == 0) return {vmap::zeros({0}, kBool), 0};
  return {close.reshape({*batch, close.numel() / *batch}).all(1), 0};
}

}  // namespace vmap::rules
