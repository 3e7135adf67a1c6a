// Pending (not yet computed) values: the lazy induction index and fused pointwise chains.
//
// Note [Pending values]
// Eager batched code pays one full pass through DRAM per pointwise op plus a copy into the
// destination: `out[i] = a[i] + b[i]` allocated arange(n) for `i`, a+b into a temporary and
// then copied it, and `(x[i] - y[j]).pow(2).sum()` materialised [n, m, d] twice. So a Value
// may be *pending*: a small DAG (at most kMaxNodes distinct nodes) of pointwise ops over
// materialised leaf tensors, whose physical sizes and dtype are known without computing it
// (the dtype by running the node's op once on 0-d operands of the operands' dtypes, so it is
// the eager op's own promotion; Note [Probe cache]). The DAG is computed where it is consumed:
//   - stored into a place (store): block by block straight into the destination view (a
//     single op over materialised tensors in one call, stores_whole in batched_fused.cpp);
//   - reduced per example (sum, mean, amax, ... over logical dims): block by block along the
//     level dims, each block reduced by the same rule call, so [n, m, d] never exists;
//   - reduced over the levels by vb::accumulate into a Tensor: each block reduced, then the
//     block results (the only place the summation order differs from eager);
//   - anything else (physical(), aligned(), a non-pointwise op): materialised once into a
//     fresh tensor (block by block), cached in the node, shared by all copies of the Value.
// A block is a slice of the result along its leading dims of about kBlockElements elements
// (L2-sized), so the intermediate tensors of a block stay in cache. Every node of a block
// runs the runtime's own op on the operands' block views, with the casts the eager op would
// make, so results are bit-identical to eager evaluation (a per-example reduction reduces
// each example as before; only vb::accumulate adds block results in another order).
// C++-scalar arithmetic (`j >= i`) may be pending too, except integer division, which raises
// on a zero divisor and so runs where the eager code would raise.
// Blocks run on OpenMP threads, split as the runtime splits an op (for_blocks); runtime ops
// inside a parallel region stay single-threaded.
// Small results (below one block) are computed eagerly: fusion would not pay for itself;
// so are ops with a device (CUDA) operand, whose blocks the runtime would not keep in cache.
//
// Leaves are views of tensors the loop body may write later (`t = x[i] * 2; x[i] = 0;
// out[i] = t;`), so every write through the batched API first materialises the live
// pending values that read the bytes it writes (settle_before_write).
//
// The induction index (Level::index()) is a pending *source*: arange(n) is made only when
// the index is used as a number; `x[i]` views x without it (select_by_induction).
//
// Note [Deferred results]
// A pointwise chain lands in the destination of its store (store_block); a GEMM or a gather
// did not: C++17 evaluates the right side of `out[i] = linear(x[i], w, b)` first, so the
// product was made into a new tensor and then copied into out, a full extra pass that
// hand-written LibTorch code (addmm_out) does not make. So a non-pointwise op whose rule
// lands its result in a destination (lands_in_destination, batched_value.cpp) may stay
// pending too, as a *whole* node: one call of its rule on the merged operands, kept with the
// tensors it reads as leaves, never blocked or fused. Its sizes and dtype come from a probe,
// the same rule call on the first example alone (batch 1: the rule's result has the same
// per-example shape at any batch size, and the probe raises the call's shape and dtype
// errors where eager code would). Then:
//   - stored unmasked into a place: the call runs under ResultInto(the slot), so the runtime
//     op computes into out (Note [Results into a destination]); the node then keeps a view
//     of the slot as its value, and settle_before_write copies it out before the slot is
//     written again, as does any other use (which would have copied it eagerly anyway);
//   - a pointwise op over it and numbers (`.sum().sqrt()`): joins it, one whole node whose
//     call computes the op into the destination (Note [Epilogues of whole nodes] in
//     batched_fused.cpp);
//   - anything else (a masked store, an operand of another op): materialised, as eagerly.
// settle_before_write computes it before any of its leaves is overwritten, as for a chain.
// Data-dependent errors of later examples (an index out of range) are raised where the
// value is computed: the store, or its first other use. Small calls are eager (the probe
// would cost more than the copy it saves).
#pragma once

#include "batched_internal.hpp"

#include <compare>
#include <functional>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

namespace vmap::batched::detail {

inline constexpr int64_t kBlockElements = 32 * 1024;
inline constexpr int64_t kMaxNodes = 16;

struct Pending;
using PendingPtr = std::shared_ptr<const Pending>;
// A materialised tensor of the node's rank (each dim 1 or the node's size) or a child node.
using PendingOperand = std::variant<Tensor, PendingPtr>;
// The eager op(s) of one node on its operands' blocks; a source node gets no operands and
// returns the whole value.
using PendingApply = std::function<Tensor(const std::vector<Tensor>&)>;

struct Pending {
  std::vector<int64_t> sizes;  // physical sizes of the result
  Dtype dtype;
  std::vector<PendingOperand> operands;  // a whole node's: the tensors its call reads
  PendingApply apply;
  // A whole node's call (Note [Deferred results]): the value, computed into `destination`
  // (the value's sizes, read by no operand) where the op can; undefined: a new tensor.
  std::function<Tensor(const Tensor& destination)> compute;
  Device device = kCPU;
  mutable Tensor value;  // set once materialised
  mutable bool value_in_destination = false;  // value views the slot a store computed it into
  // A compiled kernel's store (Note [Slot kernels] in vmap/fused.hpp): each element of its
  // value from its operands' elements at that position alone, so it may compute into a slot
  // it reads as an operand element for element (each is read before it is written).
  bool elementwise = false;
  // A scalar kernel's node: the sum of its elements in double, computed without
  // materialising them (Note [Sums of scalar kernels] in vmap/fused_scalar.hpp); else empty.
  std::function<double()> sum;
  // A source's value made on a given device (Note [Pending values on a device]); `apply`
  // makes it on the CPU.
  std::function<Tensor(Device)> source;
  // Its value is operands[0] as it is when read (alias_value): a use reads that tensor itself;
  // materialising it, as a write to the tensor does first, copies it.
  bool alias = false;
};

// Note [Items as copies]
// `float u = a[0].item<float>(); a[0] = 5;`: u is a copy, as a C++ scalar is; the batched
// item of the examples' elements was a view of them, so the store changed it (a per-example
// swap duplicated elements). Copying every item costs a pass over its elements (an item of
// each of 1e6 inputs, twice a sum's time); most are never written after. So an item is a
// pending node of the elements (alias): a use reads them as they are then, and a write to
// them first copies them (settle_before_write materialises the nodes reading what it writes).
Value alias_value(const Tensor& elements, int64_t levels, bool cpp_scalar);

// A pending source (no operands) made by `make` on the device asked for when first needed.
PendingPtr pending_source(std::vector<int64_t> sizes, Dtype dtype,
                          std::function<Tensor(Device)> make);
// The node's value, computed (block by block) and cached on first use.
const Tensor& materialise(const Pending& node);

// Note [Pending values on a device]
// A pending value of C++ scalars (the induction indices and arithmetic on them: `j >= i`)
// has no device, so it was computed on the CPU, block by block, and copied where it met a
// device tensor: the 1024x1024 triangular mask took 715 us on an H100, nearly all of it
// the host's work and the copies. Where such a value meets a device (stored into a device
// tensor, masking one, an operand of a device op: follow_device), it is computed there
// instead, whole: its sources made on the device, each node's op one launch.
// `v` computed on `device` this way; nothing where v is not pending or holds a whole node
// (Note [Deferred results]: its own call decides where it runs).
std::optional<Tensor> evaluate_on(const Value& v, Device device);

// A whole node (Note [Deferred results]) of physical `sizes` and `dtype` on `device`, whose
// call `compute` reads `inputs`.
PendingPtr whole_node(std::vector<int64_t> sizes, Dtype dtype, Device device,
                      std::vector<Tensor> inputs,
                      std::function<Tensor(const Tensor& destination)> compute,
                      bool elementwise = false, std::function<double()> sum = {});
// The sum in double of `e`'s elements where e is a scalar kernel's node not yet computed
// (Pending::sum), else nothing.
std::optional<double> pending_sum(const Value& e);

// Note [Probe cache]
// A pending node's dtype is the eager op's, learnt by running its op on 0-d operands (Note
// [Pending values]): two ones({}) and a dispatch through the op table, a third of the 0.95 us
// `.sum().sqrt()` took to make its node in a 100x200x10 pairwise distance (perf). The probe's
// result depends only on the call: the op-table entry, where its operands sit among its
// arguments, the casts its `apply` makes and the operands' dtypes, when no other argument is
// given (a text or a number, as div's rounding mode, can change it: those calls are probed
// each time). So pointwise() names such a call by a ProbeKey and the probe runs once per key
// and thread. A probe that raises is not remembered: the op's dtype error is raised on every
// call, where the eager op raises it.
struct ProbeKey {
  struct Operand {
    std::size_t position;       // among the call's arguments
    std::optional<Dtype> cast;  // what `apply` casts it to
    Dtype dtype;
    auto operator<=>(const Operand&) const = default;
  };
  std::size_t op;
  std::vector<Operand> operands;
  auto operator<=>(const ProbeKey&) const = default;
};

// One pointwise op over operands already brought to a common rank (`levels` level dims):
// a pending Value when the result is at least one block, else computed now. `apply` gets
// the operands' tensors in order; `probe_key` names the call for the probe (Note [Probe
// cache]), nullopt: probed each time.
Value pointwise_value(std::vector<PendingOperand> operands, PendingApply apply, int64_t levels,
                      bool cpp_scalar, std::optional<ProbeKey> probe_key);
// `v` as an operand, with its physical sizes mapped by `reshape_sizes` (which only inserts
// or removes size-1 dims): a child node when v is a pending chain, v's own node when it is a
// deferred whole node of the same sizes (pointwise_value joins or materialises it), else the
// reshaped tensor.
PendingOperand operand_of(
    const Value& v, const std::function<std::vector<int64_t>(std::vector<int64_t>)>& reshape_sizes);

// operand_of for an operand of a pointwise op on `device` (where its other operands are):
// a C++ scalar on the CPU follows them (Note [C++ scalars follow the tensors]).
PendingOperand operand_on(
    const Value& v, Device device,
    const std::function<std::vector<int64_t>(std::vector<int64_t>)>& reshape_sizes);

// Writes the pending `value` (fitted to the destination by `reshape_sizes`) into
// `destination` block by block, masked by `keep` (destination coordinates) when defined; a
// whole node in one call, unmasked only. False (nothing written) when the value is not
// pending, reads the destination's bytes, or is a whole node that does not fill it exactly.
bool store_pending(const Tensor& destination, const Value& value,
                   const std::function<std::vector<int64_t>(std::vector<int64_t>)>& reshape_sizes,
                   const Tensor& keep);

// op (a reduction rule) on the one pending Value among `inputs`, block by block along its
// level dims; nullopt when that does not apply (not pending, small, no level dims).
std::optional<Value> reduce_pending(std::size_t op, const std::vector<Input>& inputs);

// The pending `e` reduced over all its level dims by `reduce(tensor, dims)` (sum, amax,
// amin): each block over its level dims, then the stacked block results over dim 0. nullopt
// when e is not pending or fits one block.
std::optional<Tensor> reduce_levels_pending(
    const Value& e, const std::function<Tensor(const Tensor&, std::vector<int64_t>)>& reduce);

// Calls visit(block) with the pending `e`'s values one block at a time, in the flattened
// order of its physical sizes (blocks along its level dims, Note [Pending values]), on this
// thread; false (nothing visited) when e is not a pending chain or fits one block.
bool for_each_block_in_order(const Value& e, const std::function<void(const Tensor&)>& visit);

// Materialises every live pending value whose leaves overlap `destination`, before it is
// written (Note [Pending values]), and copies out a stored whole value that views it (Note
// [Deferred results]).
void settle_before_write(const Tensor& destination, const Pending* in_place = nullptr);

}  // namespace vmap::batched::detail
