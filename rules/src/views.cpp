// Shape ops. With the batch dim in front, a view of the batched tensor that shifts every
// user dim by one is a view of each example, so these stay views (no copies).
#include <vmap/rules/rules.hpp>

#include <numeric>
#include <string>

namespace vmap::rules {
namespace {

std::string name_of(std::size_t op) { return std::string(kOpTable[op].name); }

int64_t wrap_shifted(const std::string& op, int64_t dim, int64_t logical_rank) {
  return wrap_logical_dim(op.c_str(), dim, logical_rank) + 1;
}

// -1 in a per-example shape made explicit (so a batch of 0 examples still reshapes).
std::vector<int64_t> infer_shape(detail::IntList shape, int64_t numel) {
  std::vector<int64_t> sizes = shape.vec();
  int64_t known = 1;
  for (int64_t size : sizes)
    if (size != -1) known *= size;
  for (int64_t& size : sizes)
    if (size == -1 && known != 0) size = numel / known;
  return sizes;
}

// Runs the unbatched op when x is not batched; otherwise returns nothing.
std::optional<BatchedResult> unbatched(std::size_t op, const CallArgs& args) {
  if (args.tensor_arg(0).bdim) return std::nullopt;
  return BatchedResult{call_with(op, args, {}), std::nullopt};
}

}  // namespace

BatchedResult shift_dims_rule(std::size_t op, const CallArgs& args) {
  if (auto result = unbatched(op, args)) return *result;
  const TensorArg& x = args.tensor_arg(0);
  const Tensor front = move_bdim_to_front(x.value, x.bdim);
  const int64_t rank = x.value.dim() - 1;
  const bool adds_dim = kOpTable[op].rule == RuleId::unsqueeze;
  const std::string name = name_of(op);
  std::vector<std::pair<std::size_t, Arg>> replaced{{0, plain(front)}};
  for (std::size_t i = 1; i < kOpTable[op].arity; ++i) {
    if (!args.given(i)) continue;
    if (kOpTable[op].param(i) == ArgKind::dim)
      replaced.emplace_back(i, wrap_shifted(name, args.integer(i), rank + (adds_dim ? 1 : 0)));
    if (kOpTable[op].param(i) == ArgKind::dim_list) {  // movedim({...}, {...})
      std::vector<int64_t> dims;
      for (int64_t dim : args.integers(i)) dims.push_back(wrap_shifted(name, dim, rank));
      replaced.emplace_back(i, std::move(dims));
    }
  }
  // On a 0-d example every dim wraps to 0: squeeze, transpose, movedim leave it as it is.
  if (rank == 0 && !adds_dim) return {front, 0};
  std::vector<Arg> shifted(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) shifted[i] = args.raw(i);
  for (auto& [position, arg] : replaced) shifted[position] = std::move(arg);
  return {call_reference(op, shifted), 0};
}

BatchedResult squeeze_all_batch_rule(const Tensor& x, BatchDim x_bdim) {
  if (!x_bdim) return {x.squeeze(), std::nullopt};
  Tensor result = move_bdim_to_front(x, x_bdim);
  for (int64_t dim = result.dim() - 1; dim >= 1; --dim)
    if (result.size(dim) == 1) result = result.squeeze(dim);
  return {result, 0};
}

BatchedResult expand_batch_rule(const Tensor& x, BatchDim x_bdim, detail::IntList sizes) {
  if (!x_bdim) return {x.expand(sizes), std::nullopt};
  const int64_t target_rank = static_cast<int64_t>(sizes.size());
  if (target_rank < rank_without_bdim(x, x_bdim))
    throw Error("expand: the number of sizes provided (" + std::to_string(target_rank) +
                ") must be greater or equal to the number of dimensions in the tensor (" +
                std::to_string(rank_without_bdim(x, x_bdim)) + ")");
  const Tensor padded = pad_to_logical_rank(move_bdim_to_front(x, x_bdim), 0, target_rank);
  return {padded.expand(prepend(padded.size(0), sizes)), 0};
}

BatchedResult reshape_batch_rule(const Tensor& x, BatchDim x_bdim, detail::IntList sizes) {
  if (!x_bdim) return {x.reshape(sizes), std::nullopt};
  const Tensor front = move_bdim_to_front(x, x_bdim);
  const auto logical = logical_sizes(x, x_bdim);
  const int64_t example_numel =
      std::accumulate(logical.begin(), logical.end(), int64_t{1}, std::multiplies<>());
  return {front.reshape(prepend(front.size(0), infer_shape(sizes, example_numel))), 0};
}

BatchedResult t_batch_rule(const Tensor& x, BatchDim x_bdim) {
  if (!x_bdim) return {x.t(), std::nullopt};
  const int64_t rank = rank_without_bdim(x, x_bdim);
  if (rank > 2)
    throw Error("t: expects a tensor with <= 2 dimensions, but self is " + std::to_string(rank) +
                "D");
  const Tensor front = move_bdim_to_front(x, x_bdim);
  return {rank == 2 ? front.transpose(1, 2) : front, 0};
}

BatchedResult permute_batch_rule(const Tensor& x, BatchDim x_bdim, detail::IntList dims) {
  if (!x_bdim) return {x.permute(dims), std::nullopt};
  const int64_t rank = rank_without_bdim(x, x_bdim);
  if (static_cast<int64_t>(dims.size()) != rank)
    throw Error("permute: number of dims don't match in permute");
  std::vector<int64_t> shifted{0};
  for (int64_t dim : dims) shifted.push_back(wrap_shifted("permute", dim, rank));
  return {move_bdim_to_front(x, x_bdim).permute(shifted), 0};
}

BatchedResult flatten_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t start, int64_t end) {
  if (!x_bdim) return {x.flatten(start, end), std::nullopt};
  const int64_t rank = rank_without_bdim(x, x_bdim);
  const Tensor front = move_bdim_to_front(x, x_bdim);
  if (rank == 0) return {front.unsqueeze(1), 0};
  return {front.flatten(wrap_shifted("flatten", start, rank), wrap_shifted("flatten", end, rank)),
          0};
}

BatchedResult cat_batch_rule(std::span<const BatchedResult> tensors, int64_t dim) {
  const std::optional<int64_t> batch = batch_size_of(tensors);
  std::vector<Tensor> fronts;
  for (const auto& [tensor, bdim] : tensors) fronts.push_back(tensor);
  if (!batch) return {vmap::cat(fronts, dim), std::nullopt};
  const int64_t rank = rank_without_bdim(tensors[0].first, tensors[0].second);
  if (rank == 0) throw Error("cat: zero-dimensional tensor cannot be concatenated");
  for (std::size_t i = 0; i < tensors.size(); ++i)
    fronts[i] = ensure_batched_front(tensors[i].first, tensors[i].second, *batch);
  return {vmap::cat(fronts, wrap_shifted("cat", dim, rank)), 0};
}

BatchedResult stack_batch_rule(std::span<const BatchedResult> tensors, int64_t dim) {
  const std::optional<int64_t> batch = batch_size_of(tensors);
  std::vector<Tensor> fronts;
  for (const auto& [tensor, bdim] : tensors) fronts.push_back(tensor);
  if (!batch) return {vmap::stack(fronts, dim), std::nullopt};
  const int64_t rank = rank_without_bdim(tensors[0].first, tensors[0].second);
  for (std::size_t i = 0; i < tensors.size(); ++i)
    fronts[i] = ensure_batched_front(tensors[i].first, tensors[i].second, *batch);
  return {vmap::stack(fronts, wrap_shifted("stack", dim, rank + 1)), 0};
}

// select / operator[]: a per-example index (a batched tensor argument) makes it a gather.
BatchedResult select_rule(std::size_t op, const CallArgs& args) {
  const bool is_subscript = kOpTable[op].name == "operator[]";
  const std::size_t index_position = is_subscript ? 1 : 2;
  const int64_t dim = is_subscript ? 0 : args.integer(1);
  const Arg& index = args.raw(index_position);
  const TensorArg& x = args.tensor_arg(0);
  const auto* tensor_index = std::get_if<TensorArg>(&index);
  if (tensor_index && tensor_index->bdim)
    return select_batch_rule(x.value, x.bdim, dim, tensor_index->value, tensor_index->bdim);
  // A per-example index over a batch of one arrives without a batch dim: its one element.
  const int64_t position =
      tensor_index ? tensor_index->value.item<int64_t>() : args.integer(index_position);
  if (!x.bdim) return {x.value.select(dim, position), std::nullopt};
  const int64_t rank = rank_without_bdim(x.value, x.bdim);
  if (rank == 0) throw Error("select: cannot be applied to a 0-dim tensor");
  return {move_bdim_to_front(x.value, x.bdim).select(wrap_shifted("select", dim, rank), position),
          0};
}

BatchedResult narrow_rule(std::size_t op, const CallArgs& args) {
  const TensorArg& x = args.tensor_arg(0);
  const int64_t dim = args.integer(1);
  const int64_t length = args.integer(3);
  if (const auto* start = std::get_if<TensorArg>(&args.raw(2)); start && start->bdim)
    return narrow_batch_rule(x.value, x.bdim, dim, start->value, start->bdim, length);
  if (!x.bdim) return {call_with(op, args, {}), std::nullopt};
  const int64_t rank = rank_without_bdim(x.value, x.bdim);
  return {move_bdim_to_front(x.value, x.bdim)
              .narrow(wrap_shifted("narrow", dim, rank), args.integer(2), length),
          0};
}

BatchedResult squeeze_all_rule(std::size_t, const CallArgs& args) {
  return squeeze_all_batch_rule(args.tensor(0), args.tensor_arg(0).bdim);
}
BatchedResult expand_rule(std::size_t, const CallArgs& args) {
  return expand_batch_rule(args.tensor(0), args.tensor_arg(0).bdim, args.integers(1));
}
// Only other's per-example shape matters, and it is the same for every example.
BatchedResult expand_as_rule(std::size_t, const CallArgs& args) {
  const TensorArg& other = args.tensor_arg(1);
  return expand_batch_rule(args.tensor(0), args.tensor_arg(0).bdim,
                           logical_sizes(other.value, other.bdim));
}
BatchedResult reshape_rule(std::size_t op, const CallArgs& args) {
  if (auto result = unbatched(op, args)) return *result;  // view() keeps its own checks
  return reshape_batch_rule(args.tensor(0), args.tensor_arg(0).bdim, args.integers(1));
}
BatchedResult t_rule(std::size_t, const CallArgs& args) {
  return t_batch_rule(args.tensor(0), args.tensor_arg(0).bdim);
}
BatchedResult permute_rule(std::size_t, const CallArgs& args) {
  return permute_batch_rule(args.tensor(0), args.tensor_arg(0).bdim, args.integers(1));
}
BatchedResult flatten_rule(std::size_t, const CallArgs& args) {
  return flatten_batch_rule(args.tensor(0), args.tensor_arg(0).bdim, args.integer(1, 0),
                            args.integer(2, -1));
}

namespace {
std::vector<BatchedResult> batched_list(const CallArgs& args) {
  std::vector<BatchedResult> tensors;
  for (const TensorArg& tensor : args.tensor_args(0))
    tensors.emplace_back(tensor.value, tensor.bdim);
  return tensors;
}
}  // namespace

BatchedResult cat_rule(std::size_t, const CallArgs& args) {
  return cat_batch_rule(batched_list(args), args.integer(1, 0));
}
BatchedResult stack_rule(std::size_t, const CallArgs& args) {
  return stack_batch_rule(batched_list(args), args.integer(1, 0));
}

}  // namespace vmap::rules
