// Pending values: evaluation block by block (Note [Pending values] in batched_fused.hpp).
#include "batched_fused.hpp"

#include <vmap/detail/parallel.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <span>

namespace vmap::batched {

vmap::detail::IntList Access::physical_sizes(const Value& v) {
  return v.pending_ ? vmap::detail::IntList(v.pending_->sizes) : v.physical_.sizes();
}
Dtype Access::physical_dtype(const Value& v) {
  return v.pending_ ? v.pending_->dtype : v.physical_.dtype();
}

namespace detail {
namespace {

int64_t product(const std::vector<int64_t>& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
}

// A block: a range of one dim, single positions of the dims before it.
struct Range {
  int64_t dim;
  int64_t start;
  int64_t length;
};
using Block = std::vector<Range>;

// Blocks of about kBlockElements elements tiling `sizes`, splitting only dims before
// `splittable`: the outermost dim whose inner elements fit in a block is cut into chunks,
// the dims before it are taken one position at a time. {{}} (one whole block) when it fits.
std::vector<Block> plan_blocks(const std::vector<int64_t>& sizes, int64_t splittable) {
  const int64_t rank = static_cast<int64_t>(sizes.size());
  splittable = std::min(splittable, rank);
  if (splittable == 0 || product(sizes) <= kBlockElements || product(sizes) == 0) return {{}};
  int64_t dim = splittable - 1;
  int64_t inner = product({sizes.begin() + dim + 1, sizes.end()});
  while (dim > 0 && inner * sizes[static_cast<std::size_t>(dim)] <= kBlockElements)
    inner *= sizes[static_cast<std::size_t>(dim--)];
  const int64_t extent = sizes[static_cast<std::size_t>(dim)];
  // Chunks of equal length: a short last block would leave a thread idle at the end (1000
  // rows of 100 are 4 blocks of 250, not 3 of 327 and one of 19: 2 threads got 654 and 346).
  const int64_t most = std::max<int64_t>(1, kBlockElements / inner);
  const int64_t chunks = (extent + most - 1) / most;
  const int64_t chunk = (extent + chunks - 1) / chunks;
  const int64_t outer = product({sizes.begin(), sizes.begin() + dim});
  std::vector<Block> blocks;
  for (int64_t position = 0; position < outer; ++position) {
    Block prefix(static_cast<std::size_t>(dim));
    for (int64_t d = dim - 1, rest = position; d >= 0; --d) {
      const int64_t size = sizes[static_cast<std::size_t>(d)];
      prefix[static_cast<std::size_t>(d)] = {d, rest % size, 1};
      rest /= size;
    }
    for (int64_t start = 0; start < extent; start += chunk) {
      Block block = prefix;
      block.push_back({dim, start, std::min(chunk, extent - start)});
      blocks.push_back(std::move(block));
    }
  }
  return blocks.size() == 1 ? std::vector<Block>{{}} : blocks;
}

// t's part of a block; dims of size 1 broadcast, so they are taken whole.
Tensor narrow_block(Tensor t, const Block& block) {
  for (const Range& range : block)
    if (t.size(range.dim) != 1) t = t.narrow(range.dim, range.start, range.length);
  return t;
}

// Runs fn on blocks[first..], on the runtime's threads (vmap::detail::parallel_for_each): a
// block is a grain of work, so each gets its thread up to the machine's, thread t starting on
// the t-th of T contiguous runs, as the runtime splits an op's elements (Note [Thread grain]
// in runtime/src/engine.cpp): it writes the part of the destination that it zeroed and reads
// the part of the inputs it read in the last call, both still in its core's cache; a thread
// done with its run takes the next blocks of the others' runs.
void for_blocks(const std::vector<Block>& blocks, const std::function<void(const Block&)>& fn,
                std::size_t first = 0) {
  vmap::detail::parallel_for_each(static_cast<int64_t>(blocks.size() - first),
                                  vmap::detail::parallel_grain, [&](int64_t k) {
                                    fn(blocks[first + static_cast<std::size_t>(k)]);
                                  });
}

// Not computed yet and reading tensors the loop body may write (settle_before_write).
bool deferred(const Pending& node) { return !node.operands.empty() && !node.value.defined(); }
bool fusable(const Pending& node) { return deferred(node) && !node.compute; }

// Nodes already computed for this block: a node used twice (x * x) runs once.
using Memo = std::vector<std::pair<const Pending*, Tensor>>;

// The node's block. With `into` (a slot the DAG does not read), the node's own op computes
// into it when it can (Note [Results into a destination] in vmap/tensor.hpp); the caller
// copies a result that is not the slot. With `on`, the block is computed on that device
// (Note [Pending values on a device]): its leaves copied there, its sources made there.
Tensor evaluate_block(const Pending& node, const Block& block, Memo& memo,
                      const Tensor* into = nullptr, std::optional<Device> on = std::nullopt) {
  auto leaf = [&](const Tensor& t) {
    return on ? narrow_block(t, block).to(*on) : narrow_block(t, block);
  };
  if (node.value.defined()) return leaf(node.value);
  // (An item's elements as they are: the block that reads them is computed now.)
  if (node.alias) return leaf(std::get<Tensor>(node.operands.front()));
  for (const auto& [done, result] : memo)
    if (done == &node) return result;
  std::vector<Tensor> blocks;
  for (const PendingOperand& operand : node.operands)
    blocks.push_back(std::holds_alternative<Tensor>(operand)
                         ? leaf(std::get<Tensor>(operand))
                         : evaluate_block(*std::get<PendingPtr>(operand), block, memo, nullptr, on));
  std::optional<vmap::detail::ResultInto> destination;
  if (into) destination.emplace(*into);
  Tensor result = on && node.source ? node.source(*on) : node.apply(blocks);
  memo.emplace_back(&node, result);
  return result;
}

// Stores the node's block into `slot` (which the DAG does not read).
void store_block(const Pending& node, const Block& block, const Tensor& slot) {
  Memo memo;
  slot.copy_(evaluate_block(node, block, memo, &slot));  // no-op when computed in place
}

// Whether a store runs as one call rather than block by block: a single op over materialised
// tensors that can write the whole destination itself (contiguous, of its sizes and dtype,
// unmasked). Blocks keep a chain's intermediates in cache, and this has none; the op's own
// thread split is the blocks' (Note [Thread grain] in runtime/src/engine.cpp), without a
// runtime call and a fresh prefetch stream per block.
bool stores_whole(const Pending& source, const Tensor& destination, const Tensor& keep) {
  return !keep.defined() && destination.device() == kCPU && destination.is_contiguous() &&
         destination.dtype() == source.dtype && destination.sizes().vec() == source.sizes &&
         std::ranges::none_of(source.operands, [](const PendingOperand& operand) {
           const auto* child = std::get_if<PendingPtr>(&operand);
           return child && fusable(**child);
         });
}

// --- live pending nodes (settle_before_write)
thread_local std::vector<std::weak_ptr<const Pending>> live_nodes;

void prune_live_nodes() {
  std::erase_if(live_nodes, [](const auto& weak) { return weak.expired(); });
}

PendingPtr registered(std::shared_ptr<Pending> node) {
  if (live_nodes.size() >= 64) prune_live_nodes();
  live_nodes.push_back(node);
  return node;
}

bool reads(const Pending& node, const Tensor& bytes) {
  for (const PendingOperand& operand : node.operands) {
    if (const auto* leaf = std::get_if<Tensor>(&operand)) {
      if (vmap::detail::overlaps(*leaf, bytes)) return true;
      continue;
    }
    const Pending& child = *std::get<PendingPtr>(operand);
    if (child.value.defined() ? vmap::detail::overlaps(child.value, bytes) : reads(child, bytes))
      return true;
  }
  return false;
}

void count_distinct(const Pending& node, std::vector<const Pending*>& seen) {
  if (!fusable(node) || std::ranges::find(seen, &node) != seen.end()) return;
  seen.push_back(&node);
  for (const PendingOperand& operand : node.operands)
    if (const auto* child = std::get_if<PendingPtr>(&operand)) count_distinct(**child, seen);
}

using SizesMap = std::function<std::vector<int64_t>(std::vector<int64_t>)>;

Tensor reshaped(const Tensor& t, const SizesMap& reshape_sizes) {
  std::vector<int64_t> sizes = reshape_sizes(t.sizes().vec());
  return sizes == t.sizes().vec() ? t : t.reshape(sizes);
}

// The DAG with every node and leaf reshaped by `reshape_sizes` (size-1 dims in or out).
PendingPtr relayout(const PendingPtr& node, const SizesMap& reshape_sizes,
                    std::vector<std::pair<const Pending*, PendingPtr>>& done) {
  if (reshape_sizes(node->sizes) == node->sizes) return node;
  for (const auto& [old_node, new_node] : done)
    if (old_node == node.get()) return new_node;
  auto copy = std::make_shared<Pending>(*node);
  copy->sizes = reshape_sizes(node->sizes);
  copy->value = node->value.defined() ? reshaped(node->value, reshape_sizes) : Tensor();
  for (PendingOperand& operand : copy->operands) {
    if (auto* leaf = std::get_if<Tensor>(&operand))
      *leaf = reshaped(*leaf, reshape_sizes);
    else
      operand = relayout(std::get<PendingPtr>(operand), reshape_sizes, done);
  }
  PendingPtr result = registered(std::move(copy));
  done.emplace_back(node.get(), result);
  return result;
}

PendingPtr relayout(const PendingPtr& node, const SizesMap& reshape_sizes) {
  std::vector<std::pair<const Pending*, PendingPtr>> done;
  return relayout(node, reshape_sizes, done);
}

std::vector<int64_t> operand_sizes(const PendingOperand& operand) {
  if (const auto* leaf = std::get_if<Tensor>(&operand)) return leaf->sizes().vec();
  return std::get<PendingPtr>(operand)->sizes;
}

Dtype operand_dtype(const PendingOperand& operand) {
  if (const auto* leaf = std::get_if<Tensor>(&operand)) return leaf->dtype();
  return std::get<PendingPtr>(operand)->dtype;
}

Tensor operand_tensor(const PendingOperand& operand) {
  if (const auto* leaf = std::get_if<Tensor>(&operand)) return *leaf;
  return materialise(*std::get<PendingPtr>(operand));
}

// The broadcast sizes of equal-rank operands, or nullopt (the eager op reports the error).
std::optional<std::vector<int64_t>> broadcast_sizes(const std::vector<PendingOperand>& operands) {
  std::optional<std::vector<int64_t>> result;
  for (const PendingOperand& operand : operands) {
    const std::vector<int64_t> sizes = operand_sizes(operand);
    if (!result) {
      result = sizes;
      continue;
    }
    if (sizes.size() != result->size()) return std::nullopt;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      int64_t& slot = (*result)[d];
      if (sizes[d] != 1 && slot != 1 && sizes[d] != slot) return std::nullopt;
      if (sizes[d] != 1) slot = sizes[d];
    }
  }
  return result;
}

}  // namespace

PendingPtr pending_source(std::vector<int64_t> sizes, Dtype dtype,
                          std::function<Tensor(Device)> make) {
  auto node = std::make_shared<Pending>();
  node->sizes = std::move(sizes);
  node->dtype = dtype;
  node->apply = [make](const std::vector<Tensor>&) { return make(kCPU); };
  node->source = std::move(make);
  return node;  // reads nothing: never settled
}

namespace {

bool holds_whole_node(const Pending& node) {
  if (node.value.defined()) return false;
  if (node.compute) return true;
  return std::ranges::any_of(node.operands, [](const PendingOperand& operand) {
    const auto* child = std::get_if<PendingPtr>(&operand);
    return child && holds_whole_node(**child);
  });
}

}  // namespace

std::optional<Tensor> evaluate_on(const Value& v, Device device) {
  const PendingPtr& node = Access::pending(v);
  if (!node || holds_whole_node(*node)) return std::nullopt;
  Memo memo;
  return evaluate_block(*node, Block{}, memo, nullptr, device);
}

const Tensor& materialise(const Pending& node) {
  if (node.value_in_destination) {  // the slot is the user's: any other use gets its own copy
    node.value = node.value.clone();
    node.value_in_destination = false;
  }
  if (node.value.defined()) return node.value;
  if (node.alias) return node.value = std::get<Tensor>(node.operands.front()).clone();
  if (node.compute) return node.value = node.compute(Tensor());
  if (node.operands.empty()) return node.value = node.apply({});
  const std::vector<Block> blocks =
      plan_blocks(node.sizes, static_cast<int64_t>(node.sizes.size()));
  if (blocks.size() == 1) {
    Memo memo;
    return node.value = evaluate_block(node, blocks.front(), memo);
  }
  const Tensor out = vmap::empty(node.sizes, node.dtype);
  for_blocks(blocks,
             [&](const Block& block) { store_block(node, block, narrow_block(out, block)); });
  return node.value = out;
}

Value alias_value(const Tensor& elements, int64_t levels, bool cpp_scalar) {
  if (elements.device() != kCPU || elements.numel() < kBlockElements)
    return Access::make(elements.clone(), levels, cpp_scalar);  // a small copy, now
  auto node = std::make_shared<Pending>();
  node->sizes = elements.sizes().vec();
  node->dtype = elements.dtype();
  node->operands = {elements};
  node->apply = [](const std::vector<Tensor>& blocks) { return blocks.front().clone(); };
  node->alias = true;  // evaluate_block and materialise read the elements themselves
  return Access::make_pending(registered(std::move(node)), levels, cpp_scalar);
}

PendingPtr whole_node(std::vector<int64_t> sizes, Dtype dtype, Device device,
                      std::vector<Tensor> inputs,
                      std::function<Tensor(const Tensor& destination)> compute,
                      bool elementwise, std::function<double()> sum) {
  auto node = std::make_shared<Pending>();
  node->sum = std::move(sum);
  node->sizes = std::move(sizes);
  node->dtype = dtype;
  node->device = device;
  node->operands.assign(inputs.begin(), inputs.end());
  node->compute = std::move(compute);
  node->elementwise = elementwise;
  return registered(std::move(node));
}

std::optional<double> pending_sum(const Value& e) {
  const PendingPtr& node = Access::pending(e);
  if (!node || !node->sum || node->value.defined()) return std::nullopt;
  return node->sum();
}

PendingOperand operand_of(const Value& v, const SizesMap& reshape_sizes) {
  const PendingPtr& node = Access::pending(v);
  // An item's elements themselves (Note [Items as copies]): a node that reads them is
  // materialised before they are written, as the item's own node is.
  if (node && node->alias && !node->value.defined())
    return reshaped(std::get<Tensor>(node->operands.front()), reshape_sizes);
  if (node && fusable(*node)) return relayout(node, reshape_sizes);
  // Kept for pointwise_value to join (Note [Epilogues of whole nodes]).
  if (node && node->compute && deferred(*node) && reshape_sizes(node->sizes) == node->sizes)
    return node;
  return reshaped(v.physical(), reshape_sizes);
}

namespace {

// Note [Epilogues of whole nodes]
// `out[i][j] = (d * d).sum().sqrt()`: the compiled sum (Note [Compiled fusion] in
// vmap/fused.hpp) is a deferred whole node that computes straight into a store's
// destination, but an op after it made it a new tensor, the op (below a block, eager)
// another, and the store copied that into out: a 100x200x10 pairwise distance was 1.39x a
// plain loop. So a pointwise op over one deferred whole node (a fused sum or mean, a GEMM)
// and numbers (one-element tensors: `.sum() * 0.5`) joins it as its epilogue: one whole
// node whose call computes the inner node into a new tensor and then the op under
// ResultInto(the destination), so the op's result lands in out and nothing is copied
// (callgrind, that distance at 1 thread: 440k -> 366k instructions a call, of which the
// sqrt itself is 33k). Not the inner result into the destination and the op in place
// there: a composite op (gelu, softplus: ops_composite.cpp) reads its input again after its
// first part wrote the destination. Each is the eager op on the same values, so results are
// bit-identical. An op over two whole nodes or a tensor with more than one element takes
// the eager or blocked path as before, its whole nodes materialised first.
// The deferred whole node among `operands` that a pointwise op over them joins, or null.
const Pending* epilogue_inner(const std::vector<PendingOperand>& operands) {
  const Pending* inner = nullptr;
  for (const PendingOperand& operand : operands) {
    if (const auto* node = std::get_if<PendingPtr>(&operand)) {
      if (inner || !(*node)->compute) return nullptr;
      inner = node->get();
    } else if (const Tensor& number = std::get<Tensor>(operand);
               number.numel() != 1 || number.device() != kCPU) {
      return nullptr;
    }
  }
  return inner && inner->device == kCPU ? inner : nullptr;
}

Value joined_epilogue(const Pending& inner, std::vector<PendingOperand> operands,
                      PendingApply apply, Dtype dtype, int64_t levels, bool cpp_scalar) {
  std::vector<Tensor> inputs;  // what the joined call reads (settle_before_write)
  inputs.reserve(inner.operands.size() + operands.size() - 1);
  for (const PendingOperand& operand : inner.operands) inputs.push_back(std::get<Tensor>(operand));
  for (const PendingOperand& operand : operands)
    if (const auto* number = std::get_if<Tensor>(&operand)) inputs.push_back(*number);
  auto compute = [operands = std::move(operands),
                  apply = std::move(apply)](const Tensor& destination) {
    // Every operand first: the inner call must not take the destination.
    std::vector<Tensor> tensors;
    tensors.reserve(operands.size());
    for (const PendingOperand& operand : operands) tensors.push_back(operand_tensor(operand));
    std::optional<vmap::detail::ResultInto> into;
    if (destination.defined()) into.emplace(destination);
    return apply(tensors);
  };
  return Access::make_pending(
      whole_node(inner.sizes, dtype, kCPU, std::move(inputs), std::move(compute)), levels,
      cpp_scalar);
}

// The eager op's result dtype: the op run on 0-d operands of the operands' dtypes, which
// also raises its dtype errors here, where the eager op would; once per call that
// `probe_key` names (Note [Probe cache]).
Dtype result_dtype(const std::vector<PendingOperand>& operands, const PendingApply& apply,
                   const std::optional<ProbeKey>& probe_key) {
  thread_local std::map<ProbeKey, Dtype> probed;
  if (probe_key)
    if (const auto known = probed.find(*probe_key); known != probed.end()) return known->second;
  std::vector<Tensor> probes;
  probes.reserve(operands.size());
  for (const PendingOperand& operand : operands)
    probes.push_back(vmap::ones({}, operand_dtype(operand)));
  const Dtype dtype = apply(probes).dtype();
  if (probe_key) probed.emplace(*probe_key, dtype);
  return dtype;
}

// Note [Pointwise results on a device]
// `out[i] = a[i] + b[i]` over device tensors: the add ran eagerly (blocks allocate on the
// CPU) into a new tensor, which the store then copied into out: two launches and a
// temporary where a hand-written kernel makes one (add_1d 1e6 on an H200: 25 us against the
// hand-written kernel's 12 us). A pointwise op over device tensors alone is now a whole node
// (Note [Deferred results]) of that one call: stored unmasked into a place, the op computes
// into it under ResultInto; any other use materialises it, as the eager op would have. Not
// elementwise (Pending::elementwise): a composite op may read its input again after writing
// its result, so a slot the op reads is settled first.
Value device_call_value(std::vector<PendingOperand> operands, PendingApply apply,
                        std::vector<int64_t> sizes, Dtype dtype, int64_t levels,
                        bool cpp_scalar) {
  std::vector<Tensor> inputs;
  Device device = kCPU;
  for (const PendingOperand& operand : operands) {
    inputs.push_back(std::get<Tensor>(operand));
    if (inputs.back().device() != kCPU) device = inputs.back().device();
  }
  auto compute = [inputs, apply = std::move(apply)](const Tensor& destination) {
    std::optional<vmap::detail::ResultInto> into;
    if (destination.defined()) into.emplace(destination);
    return apply(inputs);
  };
  return Access::make_pending(
      whole_node(std::move(sizes), dtype, device, inputs, std::move(compute)), levels,
      cpp_scalar);
}

// A whole node as an operand of a chain: its value (chains are blocked, whole nodes never).
void materialise_whole_nodes(std::vector<PendingOperand>& operands) {
  for (PendingOperand& operand : operands)
    if (const auto* node = std::get_if<PendingPtr>(&operand); node && (*node)->compute)
      operand = materialise(**node);
}

}  // namespace

Value pointwise_value(std::vector<PendingOperand> operands, PendingApply apply, int64_t levels,
                      bool cpp_scalar, std::optional<ProbeKey> probe_key) {
  if (const Pending* inner = epilogue_inner(operands)) {
    const Dtype dtype = result_dtype(operands, apply, probe_key);
    return joined_epilogue(*inner, std::move(operands), std::move(apply), dtype, levels,
                           cpp_scalar);
  }
  materialise_whole_nodes(operands);
  const std::optional<std::vector<int64_t>> sizes = broadcast_sizes(operands);
  auto eager = [&] {
    std::vector<Tensor> tensors;
    for (const PendingOperand& operand : operands) tensors.push_back(operand_tensor(operand));
    return Access::make(apply(tensors), levels, cpp_scalar);
  };
  auto on_device = [](const PendingOperand& operand) {  // blocks allocate on the CPU
    const auto* leaf = std::get_if<Tensor>(&operand);
    return leaf && leaf->device() != kCPU;
  };
  const bool device = std::ranges::any_of(operands, on_device);
  if (device && sizes && product(*sizes) >= kBlockElements &&
      std::ranges::all_of(operands, [](const PendingOperand& operand) {
        return std::holds_alternative<Tensor>(operand);
      })) {
    const Dtype dtype = result_dtype(operands, apply, probe_key);
    return device_call_value(std::move(operands), std::move(apply), *sizes, dtype, levels,
                             cpp_scalar);
  }
  if (!sizes || product(*sizes) < kBlockElements || device) return eager();
  std::vector<const Pending*> seen;
  for (const PendingOperand& operand : operands)
    if (const auto* child = std::get_if<PendingPtr>(&operand)) count_distinct(**child, seen);
  if (static_cast<int64_t>(seen.size()) >= kMaxNodes)  // the children become leaves
    for (PendingOperand& operand : operands) operand = operand_tensor(operand);
  const Dtype dtype = result_dtype(operands, apply, probe_key);
  auto node = std::make_shared<Pending>();
  node->sizes = *sizes;
  node->dtype = dtype;
  node->operands = std::move(operands);
  node->apply = std::move(apply);
  return Access::make_pending(registered(std::move(node)), levels, cpp_scalar);
}

namespace {

// Whether an elementwise node reads of `destination` only `slot`, element for element (the
// same first byte, sizes and strides): it may compute into the slot (Note [Slot kernels] in
// vmap/fused.hpp: `out[i] = x[i]; out[i] *= out[i];` reads and stores out[i]).
bool computes_in_place(const Pending& node, const Tensor& destination, const Tensor& slot) {
  if (!node.elementwise) return false;
  for (const PendingOperand& operand : node.operands) {
    const auto* leaf = std::get_if<Tensor>(&operand);
    if (leaf == nullptr || !vmap::detail::overlaps(*leaf, destination)) {
      if (leaf == nullptr && reads(*std::get<PendingPtr>(operand), destination)) return false;
      continue;
    }
    if (leaf->raw_data() != slot.raw_data() || leaf->sizes().vec() != slot.sizes().vec() ||
        leaf->strides().vec() != slot.strides().vec())
      return false;
  }
  return true;
}

// A whole node's call into the destination it fills exactly (Note [Deferred results]).
bool store_whole(const Tensor& destination, const Pending& node, const SizesMap& reshape_sizes,
                 const Tensor& keep) {
  if (keep.defined() || reshape_sizes(node.sizes) != destination.sizes().vec() ||
      !destination.is_contiguous())
    return false;
  const Tensor slot = destination.view(node.sizes);
  // Computes the node first when it reads the destination, unless it can in place.
  settle_before_write(destination,
                      computes_in_place(node, destination, slot) ? &node : nullptr);
  if (!deferred(node)) return false;
  const Tensor result = node.compute(slot);
  node.value = result;
  node.value_in_destination = result.raw_data() == slot.raw_data();
  slot.copy_(result);  // no-op when computed in place
  return true;
}

}  // namespace

bool store_pending(const Tensor& destination, const Value& value, const SizesMap& reshape_sizes,
                   const Tensor& keep) {
  const PendingPtr& node = Access::pending(value);
  if (node && node->compute && deferred(*node))
    return store_whole(destination, *node, reshape_sizes, keep);
  // On a device the value is computed there (Note [Pending values on a device]).
  if (!node || !fusable(*node) || destination.device() != kCPU) return false;
  settle_before_write(destination);  // computes `value` too when it reads the destination
  if (!fusable(*node)) return false;
  const PendingPtr source = relayout(node, reshape_sizes);
  const std::vector<int64_t> room = destination.sizes().vec();
  if (source->sizes.size() != room.size()) return false;  // the eager copy_ reports it
  for (std::size_t d = 0; d < room.size(); ++d)
    if (source->sizes[d] != 1 && source->sizes[d] != room[d]) return false;
  const std::vector<Block> blocks = stores_whole(*source, destination, keep)
                                        ? std::vector<Block>{{}}
                                        : plan_blocks(destination.sizes().vec(), destination.dim());
  for_blocks(blocks, [&](const Block& block) {
    const Tensor slot = narrow_block(destination, block);
    if (!keep.defined()) return store_block(*source, block, slot);
    Memo memo;
    const Tensor result = evaluate_block(*source, block, memo).to(destination.dtype());
    slot.copy_(vmap::where(narrow_block(keep, block), result, slot));
  });
  return true;
}

std::optional<Value> reduce_pending(std::size_t op, const std::vector<Input>& inputs) {
  std::size_t position = inputs.size();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (std::holds_alternative<std::vector<Value>>(inputs[k].value)) return std::nullopt;
    if (!std::holds_alternative<Value>(inputs[k].value)) continue;
    if (position != inputs.size()) return std::nullopt;  // one Value operand only
    position = k;
  }
  if (position == inputs.size()) return std::nullopt;
  const Value& x = std::get<Value>(inputs[position].value);
  const PendingPtr& node = Access::pending(x);
  const int64_t levels = x.levels();
  if (!node || !fusable(*node) || levels == 0) return std::nullopt;
  const std::vector<Block> blocks = plan_blocks(node->sizes, levels);
  if (blocks.size() == 1) return std::nullopt;
  auto reduce_block = [&](const Block& block) {
    Memo memo;
    std::vector<Input> block_inputs = inputs;
    block_inputs[position].value =
        Access::make(evaluate_block(*node, block, memo), levels, x.is_cpp_scalar());
    return dispatch(op, std::move(block_inputs)).aligned(levels);
  };
  // The first block gives the result's dtype and per-example sizes.
  const Tensor first = reduce_block(blocks.front());
  std::vector<int64_t> sizes(node->sizes.begin(), node->sizes.begin() + levels);
  for (int64_t d = levels; d < first.dim(); ++d) sizes.push_back(first.size(d));
  const Tensor out = vmap::empty(sizes, first.dtype());
  narrow_block(out, blocks.front()).copy_(first);
  for_blocks(
      blocks, [&](const Block& block) { narrow_block(out, block).copy_(reduce_block(block)); }, 1);
  return Access::make(out, levels, false);
}

std::optional<Tensor> reduce_levels_pending(
    const Value& e, const std::function<Tensor(const Tensor&, std::vector<int64_t>)>& reduce) {
  const PendingPtr& node = Access::pending(e);
  const int64_t levels = e.levels();
  if (!node || !fusable(*node) || levels == 0) return std::nullopt;
  const std::vector<Block> blocks = plan_blocks(node->sizes, levels);
  if (blocks.size() == 1) return std::nullopt;
  std::vector<int64_t> level_dims(static_cast<std::size_t>(levels));
  std::iota(level_dims.begin(), level_dims.end(), 0);
  std::vector<Tensor> partials(blocks.size());
  for_blocks(blocks, [&](const Block& block) {
    Memo memo;
    partials[static_cast<std::size_t>(&block - blocks.data())] =
        reduce(evaluate_block(*node, block, memo), level_dims);
  });
  return reduce(vmap::stack(partials), {0});
}

bool for_each_block_in_order(const Value& e, const std::function<void(const Tensor&)>& visit) {
  const PendingPtr& node = Access::pending(e);
  if (!node || !fusable(*node) || e.levels() == 0) return false;
  const std::vector<Block> blocks = plan_blocks(node->sizes, e.levels());
  if (blocks.size() == 1) return false;
  for (const Block& block : blocks) {
    Memo memo;
    visit(evaluate_block(*node, block, memo));
  }
  return true;
}

void settle_before_write(const Tensor& destination, const Pending* in_place) {
  prune_live_nodes();
  // Copied: materialising never registers nodes, but keep the loop independent of that.
  const std::vector<std::weak_ptr<const Pending>> nodes = live_nodes;
  for (const auto& weak : nodes) {
    const PendingPtr node = weak.lock();
    if (!node || node.get() == in_place) continue;
    if (deferred(*node)
            ? reads(*node, destination)
            : node->value_in_destination && vmap::detail::overlaps(node->value, destination))
      materialise(*node);
  }
}

}  // namespace detail
}  // namespace vmap::batched
