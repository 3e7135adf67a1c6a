// vb::Value and the dispatcher that turns a call on Values into one rule call (vb::Level and
// reads through an index: batched_level.cpp).
//
// Note [Levels to one batch dim]
// Rules see one batch dim; Values carry one dim per level. Pointwise ops need no rule
// call at all: their operands broadcast across the level dims once logical ranks are
// padded, so nothing is materialised. Other ops merge the level dims into one batch dim:
// with one batched operand, its own level sizes (1 where it does not vary) are merged,
// which is a view; with several, each is expanded to the common level sizes first. The
// result's batch dim is split back into the level dims. (dot, and mv / matmul by a vector,
// see each operand's own levels first: Note [Dot products over levels].)
#include "batched_fused.hpp"

#include <vmap/detail/promotion.hpp>
#include <vmap/profile.hpp>
#include <vmap/rules/rules.hpp>

#include <algorithm>
#include <numeric>
#include <sstream>
#include <string>

namespace vmap::batched {
namespace {

using rules::ArgKind;
using rules::kOpTable;
using rules::OpForm;
using rules::RuleId;
using rules::TensorArg;

int64_t logical_rank(const Value& v) {
  return static_cast<int64_t>(Access::physical_sizes(v).size()) - v.levels();
}

std::vector<int64_t> level_sizes_of(const Tensor& aligned, int64_t levels) {
  std::vector<int64_t> sizes;
  for (int64_t k = 0; k < levels; ++k) sizes.push_back(aligned.size(k));
  return sizes;
}

std::vector<int64_t> tail_sizes(const Tensor& t, int64_t from) {
  std::vector<int64_t> sizes;
  for (int64_t d = from; d < t.dim(); ++d) sizes.push_back(t.size(d));
  return sizes;
}

int64_t product(vmap::detail::IntList sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
}

// `aligned` (n level dims) with its level dims merged into one batch dim, or unbatched
// when it does not vary along any level.
TensorArg merge_levels(const Tensor& aligned, int64_t levels,
                       const std::vector<int64_t>& merged_sizes, bool cpp_scalar) {
  const std::vector<int64_t> own = level_sizes_of(aligned, levels);
  std::vector<int64_t> logical = tail_sizes(aligned, levels);
  if (std::ranges::all_of(own, [](int64_t size) { return size == 1; })) {
    Tensor unbatched = aligned;
    for (int64_t k = 0; k < levels; ++k) unbatched = unbatched.squeeze(0);
    return {unbatched, std::nullopt, cpp_scalar};
  }
  Tensor full = own == merged_sizes ? aligned : aligned.expand([&] {
    std::vector<int64_t> sizes = merged_sizes;
    sizes.insert(sizes.end(), logical.begin(), logical.end());
    return sizes;
  }());
  logical.insert(logical.begin(), product(merged_sizes));
  return {full.reshape(logical), 0, cpp_scalar};
}

// Positions whose dtypes ATen promotes together, per pointwise rule.
std::vector<std::size_t> promoted_positions(RuleId rule, std::size_t count) {
  switch (rule) {
    case RuleId::binary_pointwise:
      return {0, 1};
    case RuleId::ternary_where:
      return {1, 2};
    case RuleId::clamp: {
      std::vector<std::size_t> all(count);
      std::iota(all.begin(), all.end(), 0);
      return all;
    }
    default:
      return {};
  }
}

// Per-example reductions: a pending operand is reduced block by block.
bool is_reduction(RuleId rule) {
  return rule == RuleId::reduce_all || rule == RuleId::reduce_dim || rule == RuleId::reduce_dims ||
         rule == RuleId::arg_reduce_all;
}

bool is_pointwise(RuleId rule) {
  return rule == RuleId::unary_pointwise || rule == RuleId::binary_pointwise ||
         rule == RuleId::ternary_where || rule == RuleId::clamp;
}

// Rules whose batched result is the runtime op's own result, batch first, which the op
// computes into a ResultInto destination (Note [Deferred results]).
bool lands_in_destination(RuleId rule) {
  return rule == RuleId::linear || rule == RuleId::matmul || rule == RuleId::mm ||
         rule == RuleId::bmm || rule == RuleId::gather || rule == RuleId::index_select;
}

// A rule's batched result with its batch dim split back into the level dims.
Tensor split_levels(const Tensor& result, rules::BatchDim bdim,
                    const std::vector<int64_t>& merged_sizes) {
  const Tensor front = rules::move_bdim_to_front(result, bdim);
  std::vector<int64_t> sizes = merged_sizes;
  const std::vector<int64_t> rest = tail_sizes(front, 1);
  sizes.insert(sizes.end(), rest.begin(), rest.end());
  return front.reshape(sizes);
}

// The rule call on the merged `args` as a whole node (Note [Deferred results]), or nullopt
// (small, or not batch first): the caller calls it now.
std::optional<Value> deferred_call(std::size_t op, const std::vector<rules::Arg>& args,
                                   const std::vector<int64_t>& merged_sizes, int64_t levels) {
  if (product(merged_sizes) <= 1) return std::nullopt;  // no second example (or none at all)
  std::vector<rules::Arg> probe = args;  // the first example alone
  std::vector<Tensor> inputs;
  bool large = false;
  for (rules::Arg& arg : probe) {
    if (std::holds_alternative<std::vector<TensorArg>>(arg)) return std::nullopt;
    auto* tensor = std::get_if<TensorArg>(&arg);
    if (!tensor) continue;
    inputs.push_back(tensor->value);
    if (!tensor->bdim) continue;
    large = large || tensor->value.numel() >= detail::kBlockElements;
    tensor->value = tensor->value.narrow(*tensor->bdim, 0, 1);
  }
  if (!large) return std::nullopt;
  const auto [one, bdim] = rules::call_rule(op, probe);
  if (bdim != 0) return std::nullopt;
  std::vector<int64_t> batch_first = tail_sizes(one, 1);  // the rule's result, batch first
  batch_first.insert(batch_first.begin(), product(merged_sizes));
  if (product(batch_first) < detail::kBlockElements) return std::nullopt;
  auto compute = [op, args, merged_sizes, batch_first](const Tensor& destination) {
    Tensor slot;
    std::optional<vmap::detail::ResultInto> into;
    if (destination.defined()) {
      slot = destination.view(batch_first);
      into.emplace(slot);
    }
    const auto [result, result_bdim] = rules::call_rule(op, args);
    return split_levels(result, result_bdim, merged_sizes);
  };
  std::vector<int64_t> sizes = merged_sizes;
  sizes.insert(sizes.end(), batch_first.begin() + 1, batch_first.end());
  return Access::make_pending(detail::whole_node(std::move(sizes), one.dtype(), one.device(),
                                                 std::move(inputs), std::move(compute)),
                              levels, false);
}

// `a - b`, a.sub(b), sub(a, b) (`a -= b` is compound's `a - b`): pointwise casts the promoted
// operands before the runtime's sub sees them, so its bool check is made first, on their own
// dtypes (check_bool_subtraction).
bool subtracts(std::size_t op) {
  const rules::OpEntry& entry = kOpTable[op];
  return entry.name == "sub" ||
         (entry.name == "operator-" && entry.form == OpForm::binary_operator);
}

// Pointwise op over Values with `levels` level dims: broadcasting does the batching. The op
// may stay pending (Note [Pending values]); the operands are brought to `levels` level dims
// and a common logical rank, the promoted ones cast to the result type inside the node.
Value pointwise(std::size_t op, const std::vector<Input>& inputs, int64_t levels, Device device) {
  int64_t max_rank = 0;
  for (const Input& input : inputs)
    if (const auto* v = std::get_if<Value>(&input.value); v && v->defined() && !v->is_cpp_scalar())
      max_rank = std::max(max_rank, logical_rank(*v));
  const std::vector<std::size_t> promoted = promoted_positions(kOpTable[op].rule, inputs.size());
  auto value_at = [&](std::size_t position) -> const Value* {
    const auto* v =
        position < inputs.size() ? std::get_if<Value>(&inputs[position].value) : nullptr;
    return v && v->defined() ? v : nullptr;
  };
  // Only C++ scalars among the promoted operands (C++ arithmetic, already of one type):
  // ATen would make them float32 as wrapped numbers, C++ keeps their type.
  bool only_cpp = true;
  for (std::size_t position : promoted)
    if (const Value* v = value_at(position); v && !v->is_cpp_scalar()) only_cpp = false;
  std::vector<vmap::detail::Operand> tagged;
  for (std::size_t position : promoted)
    if (const Value* v = value_at(position))
      tagged.push_back(v->is_cpp_scalar() && !only_cpp
                           ? vmap::detail::number_operand(v->dtype())
                           : vmap::detail::tensor_operand(v->dtype(), logical_rank(*v)));
  const std::optional<Dtype> dtype =
      tagged.empty() ? std::nullopt : std::optional(vmap::detail::result_type(tagged));

  // The call's arguments with the tensor positions left to fill, and each operand's position,
  // cast and dtype.
  std::vector<rules::Arg> arguments;
  std::vector<detail::ProbeKey::Operand> filled;
  std::vector<detail::PendingOperand> operands;
  std::vector<int64_t> logical_ranks;  // each operand's, for an error in its own shape
  for (std::size_t position = 0; position < inputs.size(); ++position) {
    const Input& input = inputs[position];
    const auto* v = std::get_if<Value>(&input.value);
    if (!v || !v->defined()) {
      arguments.push_back(v ? rules::Arg() : std::get<rules::Arg>(input.value));
      continue;
    }
    const int64_t pad = max_rank - (v->is_cpp_scalar() ? 0 : logical_rank(*v));
    const int64_t own_levels = v->levels();
    // The missing level dims and the rank padding are one run of size-1 dims after v's own
    // levels (two captures: a std::function keeps them without an allocation).
    const int64_t ones = levels - own_levels + std::max<int64_t>(pad, 0);
    auto to_rank = [own_levels, ones](std::vector<int64_t> sizes) {
      sizes.insert(sizes.begin() + own_levels, static_cast<std::size_t>(ones), 1);
      return sizes;
    };
    operands.push_back(detail::operand_on(*v, device, to_rank));
    const bool cast =
        dtype && std::ranges::find(promoted, position) != promoted.end() && v->dtype() != *dtype;
    filled.push_back({arguments.size(), cast ? dtype : std::nullopt, v->dtype()});
    logical_ranks.push_back(v->is_cpp_scalar() ? 0 : logical_rank(*v));
    arguments.emplace_back();
  }
  std::optional<detail::ProbeKey> probe_key;  // Note [Probe cache]: no other argument given
  if (std::ranges::all_of(arguments, [](const rules::Arg& argument) {
        return std::holds_alternative<std::monostate>(argument);
      }))
    probe_key = detail::ProbeKey{op, filled};
  auto apply = [op, levels, arguments = std::move(arguments), filled = std::move(filled),
                logical_ranks = std::move(logical_ranks)](const std::vector<Tensor>& tensors) {
    std::vector<rules::Arg> args = arguments;
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      const std::optional<Dtype> cast = filled[k].cast;
      args[filled[k].position] = rules::plain(cast ? tensors[k].to(*cast) : tensors[k]);
    }
    try {
      return rules::call_reference(op, args);
    } catch (const Error&) {
      // Each operand without its rank padding: the level dims, then its own dims.
      for (std::size_t k = 0; k < tensors.size(); ++k) {
        const Tensor& padded = std::get<TensorArg>(args[filled[k].position]).value;
        std::vector<int64_t> sizes(padded.sizes().begin(), padded.sizes().begin() + levels);
        sizes.insert(sizes.end(), padded.sizes().end() - logical_ranks[k], padded.sizes().end());
        args[filled[k].position] = rules::plain(padded.reshape(sizes));
      }
      rules::throw_first_example_error(op, args, levels);
      throw;
    }
  };
  return detail::pointwise_value(std::move(operands), std::move(apply), levels, false,
                                 std::move(probe_key));
}

}  // namespace

// --- Value ---------------------------------------------------------------------------

Value::Value() : home_levels_(active_levels()) {}
Value::~Value() = default;
Value::Value(const Tensor& unbatched) : physical_(unbatched), home_levels_(active_levels()) {}
Value::Value(Tensor physical, int64_t levels, bool cpp_scalar)
    : physical_(std::move(physical)),
      levels_(levels),
      cpp_scalar_(cpp_scalar),
      home_levels_(active_levels()) {}
Value::Value(const Value& other)
    : physical_(other.physical_),
      pending_(other.pending_),
      levels_(other.levels_),
      cpp_scalar_(other.cpp_scalar_),
      home_levels_(active_levels()),
      induction_level_(other.induction_level_),
      place_(other.place_) {}
Value::Value(Value&& other) noexcept
    : physical_(std::move(other.physical_)),
      pending_(std::move(other.pending_)),
      levels_(other.levels_),
      cpp_scalar_(other.cpp_scalar_),
      home_levels_(active_levels()),
      induction_level_(other.induction_level_),
      place_(std::move(other.place_)) {}

Tensor Value::scalar_tensor(vmap::detail::Scalar value, Dtype dtype) {
  return vmap::full({}, value, dtype);
}

const Tensor& Value::physical() const {
  // An item's elements as they are now (Note [Items as copies] in batched_fused.hpp).
  if (pending_ && pending_->alias && !pending_->value.defined())
    return std::get<Tensor>(pending_->operands.front());
  if (pending_) {
    physical_ = detail::materialise(*pending_);
    pending_.reset();
  }
  return physical_;
}

Tensor Value::aligned(int64_t levels) const {
  if (levels < levels_)
    throw Error("vmap: a value of " + std::to_string(levels_) + " levels used where only " +
                std::to_string(levels) + " are active");
  Tensor result = physical();
  for (int64_t k = levels_; k < levels; ++k) result = result.unsqueeze(levels_);
  return result;
}

// Note [One dtype and shape per variable]
// A Value holds every example's tensor in one physical tensor: one dtype, one shape per
// example. A Tensor rebound under a per-example condition to a tensor of another dtype or
// shape (`if (c) v = xi[i];` of an int tensor where v was a float one), or a `?:` whose arms
// differ so, would hold two. So where the sides differ:
// - a rebind that every example takes is a rebind, one that none takes changes nothing (a
//   merge made every example's v the new dtype even where no example took the branch);
// - a rebind that some take merges: the examples it skips are converted to the new dtype,
//   reshaped to the new shape where it has as many elements, else broadcast. That is right where the program makes every example's tensor one
//   dtype and shape again before it reads it (an if/else converting in both branches, a
//   temporary unsqueeze in one, a helper's local), and wrong where it reads it mixed, which
//   is not detected: at the rebind nothing tells which (raising there broke the first kind);
//   shapes that do not broadcast raise vmap::Error naming both kinds;
// - a `?:` whose condition differs between the examples the mask runs raises vmap::Error
//   naming both kinds: its value is read at once (the loop as written raises none).
bool same_dtype_and_shape(const Value& a, const Value& b) {
  return a.dtype() == b.dtype() && a.sizes() == b.sizes();
}

namespace {
bool any_of_held(const Value& test) { return test.physical().any().item<bool>(); }
Error two_kinds(const char* what, const Value& a, const Value& b) {
  std::ostringstream message;
  message << "vmap: " << what << " a tensor of dtype " << a.dtype() << " and shape "
          << vmap::detail::IntList(a.sizes()) << " in some examples and one of dtype "
          << b.dtype() << " and shape " << vmap::detail::IntList(b.sizes())
          << " in others: a batched variable holds one dtype and shape for every example; "
             "convert both to one (.to(dtype), reshape) in the loop";
  return Error(message.str());
}
}  // namespace

ExamplesHeld examples_held(const Value& mask) {
  const Value held = scalar_cast_to(mask, kBool);
  if (!any_of_held(held)) return ExamplesHeld::none;
  return any_of_held(!held) ? ExamplesHeld::some : ExamplesHeld::every;
}

bool every_running_example(const Value& condition, const Value& a, const Value& b) {
  const Value test = scalar_cast_to(condition, kBool);
  const Value* mask = current_mask();
  const bool some_take = any_of_held(mask ? test && *mask : test);
  const bool some_skip = any_of_held(mask ? !test && *mask : !test);
  if (some_take && some_skip) throw two_kinds("a per-example '?:' picks", a, b);
  return some_take;
}

Value& Value::operator=(const Value& other) & {
  const Value* mask = current_mask();
  // A C++ scalar keeps its C++ type (`double h = 0.5; h = 3;` holds 3.0).
  if (!mask && defined() && cpp_scalar_ && other.defined() && other.dtype() != dtype())
    return *this = scalar_cast_to(other, dtype());
  bool every_example_rebinds = !mask || !defined();
  // A tensor of another dtype or shape (Note [One dtype and shape per variable]).
  if (!every_example_rebinds && !cpp_scalar_ && !same_dtype_and_shape(*this, other)) {
    const ExamplesHeld held = examples_held(*mask);
    if (held == ExamplesHeld::none) return *this;
    every_example_rebinds = held == ExamplesHeld::every;
  }
  if (every_example_rebinds) {
    physical_ = other.physical_;
    pending_ = other.pending_;
    levels_ = other.levels_;
    cpp_scalar_ = other.cpp_scalar_;
    induction_level_ = other.induction_level_;
    place_ = other.place_;
    return *this;
  }
  // Examples outside the mask keep the old value; a C++ scalar keeps its C++ type.
  const Value incoming = cpp_scalar_ ? scalar_cast_to(other, dtype()) : other;
  const Value old = cpp_scalar_ ? *this : to(incoming.dtype());
  // Of another shape of as many elements (a temporary unsqueeze): the skipped examples'
  // elements in that shape, which a rebind back to the old one gives back as they were.
  // (Constructed: a Value's assignment is masked.)
  const Value kept =
      !cpp_scalar_ && old.sizes() != incoming.sizes() && old.numel() == incoming.numel()
          ? old.reshape(incoming.sizes())
          : old;
  // The ops' where, not a `?:`'s (batched::where: Note [One dtype and shape per variable]).
  // Shapes that do not broadcast are two kinds no one tensor holds: say so, not where's error.
  const auto merge = [&] {
    return dispatch(op_index("where", OpForm::free_function), {*mask, incoming, kept});
  };
  Value merged = cpp_scalar_ || kept.sizes() == incoming.sizes() ? merge() : [&] {
    try {
      return merge();
    } catch (const Error&) {
      throw two_kinds("a Tensor rebound under a per-example condition holds", incoming, *this);
    }
  }();
  merged.cpp_scalar_ = cpp_scalar_ && other.cpp_scalar_;
  physical_ = merged.physical_;
  pending_ = merged.pending_;
  levels_ = merged.levels_;
  cpp_scalar_ = cpp_scalar_ || merged.cpp_scalar_;
  induction_level_ = -1;
  place_.reset();
  return *this;
}

Value& Value::operator=(const Value& other) && {
  store(*this, other);
  return *this;
}

int64_t Value::dim() const { return cpp_scalar_ ? 0 : logical_rank(*this); }
int64_t Value::size(int64_t dim) const {
  return Access::physical_sizes(
      *this)[static_cast<std::size_t>(rules::wrap_logical_dim("size", dim, this->dim()) + levels_)];
}
std::vector<int64_t> Value::sizes() const {
  const vmap::detail::IntList all = Access::physical_sizes(*this);
  return {all.begin() + levels_, all.end()};
}
int64_t Value::numel() const { return product(sizes()); }
Dtype Value::dtype() const { return Access::physical_dtype(*this); }
Device Value::device() const { return pending_ ? pending_->device : physical().device(); }
bool Value::is_contiguous() const {
  // Each example's elements are contiguous when the logical dims have contiguous strides.
  int64_t expected = 1;
  const Tensor& t = physical();
  for (int64_t d = t.dim() - 1; d >= levels_; --d) {
    if (t.size(d) != 1 && t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

namespace {

// The items of the examples the current mask runs, the others 0: an example that does not
// reach the `.item<T>()` as written (an `if` it skips, the arm of `?:` it does not take) may
// hold a value T cannot take (a NaN for int), and must not make it throw.
Tensor active_items(const Tensor& scalars, int64_t levels) {
  const Value* mask = current_mask();
  if (!mask) return scalars;
  const Value items = Access::make(scalars, levels, true);
  return where(*mask, items, Value(false).to(scalars.dtype())).physical();
}

}  // namespace

Value Value::item_as(Dtype dtype) const {
  if (numel() != 1) {
    // Not where no example runs it (Note [Errors no example raises]).
    if (raised_by_no_example()) return scalar_cast_to(Value(0.0f), dtype);
    throw Error("item: a tensor with " + std::to_string(numel()) +
                " elements cannot be converted to a scalar");
  }
  Tensor scalars = physical().reshape(level_sizes_of(physical(), levels_));
  // as Tensor::item<T>()
  if (vmap::detail::conversion_can_overflow(scalars.dtype(), dtype))
    vmap::detail::check_items_convertible("item", active_items(scalars, levels_), dtype);
  // A copy, as a C++ scalar is (Note [Items as copies] in batched_fused.hpp).
  if (scalars.dtype() != dtype) return Access::make(scalars.to(dtype), levels_, true);
  return detail::alias_value(scalars, levels_, true);
}

void check_fill_value(const char* op, const Value& value, Dtype to) {
  // (The items the mask runs are gathered only where a value may not fit.)
  if (!value.defined() || !value.is_cpp_scalar() ||
      !vmap::detail::conversion_can_overflow(value.dtype(), to))
    return;
  vmap::detail::check_items_convertible(
      op, active_items(value.physical().reshape(level_sizes_of(value.physical(), value.levels())),
                            value.levels()),
      to);
}

void Value::check_items_fit(void (*check)(vmap::detail::Scalar)) const {
  const Tensor host =
      active_items(physical().reshape(level_sizes_of(physical(), levels_)), levels_)
          .to(kCPU)
          .contiguous();
  auto each = [&]<class From>() {
    const From* data = host.data_ptr<From>();
    for (int64_t k = 0; k < host.numel(); ++k) check(vmap::detail::Scalar(data[k]));
  };
  switch (host.dtype()) {
    case kFloat32: each.operator()<float>(); break;
    case kFloat64: each.operator()<double>(); break;
    case kInt32: each.operator()<int32_t>(); break;
    case kInt64: each.operator()<int64_t>(); break;
    case kBool: each.operator()<bool>(); break;
  }
}

Device placed_on(const Value& v) { return v.defined() ? v.device() : kCPU; }

Value follow_device(const Value& v, Device device) {
  if (device == kCPU || !v.is_cpp_scalar() || placed_on(v) == device) return v;
  std::optional<Tensor> there = detail::evaluate_on(v, device);  // Note [Pending values on a device]
  return Access::make(there ? *there : v.physical().to(device), v.levels(), true);
}

namespace detail {

PendingOperand operand_on(
    const Value& v, Device device,
    const std::function<std::vector<int64_t>(std::vector<int64_t>)>& reshape_sizes) {
  const bool one_number = product(Access::physical_sizes(v)) == 1;
  if (device != kCPU && v.is_cpp_scalar() && placed_on(v) == kCPU && one_number)
    return v.physical().reshape({});  // passed to the kernel by value
  return operand_of(follow_device(v, device), reshape_sizes);
}

}  // namespace detail

Value scalar_cast_to(const Value& value, Dtype dtype) {
  if (value.dtype() == dtype && value.is_cpp_scalar()) return value;  // may stay pending
  const Tensor& physical = value.physical();
  return Access::make(physical.dtype() == dtype ? physical : physical.to(dtype), value.levels(),
                      true);
}

// --- dispatch ------------------------------------------------------------------------

namespace {
Value dispatch_op(std::size_t op, std::vector<Input> inputs);
}  // namespace

// Note [Errors only skipped examples raise]
// The batched ops compute every example, the ones a live mask skips too: under `if (q != 0)
// out[i] = x[i].remainder(q);` the examples with q == 0 divide by zero, and under `if (k >=
// 0)` an `index_select` by k reads index -1; as written they never run it. So where an op
// throws under a mask that some example holds, it runs again with each skipped example's
// operands those of the first example that runs (a where over the mask): the skipped ones
// then compute what that one computes, and raise only if it does, which the loop as written
// would raise too. Their values are not kept (stores and rebinds under the mask skip them).
// Only once an error is thrown: no cost when none is.
namespace {

Value as_running_examples(const Value& v, const Value& mask, const std::vector<int64_t>& first) {
  if (!v.defined() || v.levels() == 0) return v;
  Tensor at_first = v.physical();
  for (int64_t k = 0; k < v.levels(); ++k)
    if (at_first.size(k) != 1) at_first = at_first.narrow(k, first[static_cast<std::size_t>(k)], 1);
  const Value merged =
      where(mask, v, Access::make(at_first, v.levels(), v.is_cpp_scalar()));
  return Access::make(merged.physical(), merged.levels(), v.is_cpp_scalar());
}

// The first example `mask` holds for: its position along each active level.
std::vector<int64_t> first_running(const Value& mask) {
  const Tensor held = mask.physical().to(kCPU).to(kBool).contiguous();
  std::vector<int64_t> position(static_cast<std::size_t>(active_levels()), 0);
  const bool* data = held.data_ptr<bool>();
  int64_t flat = 0;
  while (flat < held.numel() && !data[flat]) ++flat;
  for (int64_t k = held.dim(); k-- > 0;) {
    if (k < mask.levels() && k < active_levels())
      position[static_cast<std::size_t>(k)] = flat % held.size(k);
    flat /= held.size(k);
  }
  return position;
}

}  // namespace

Value dispatch(std::size_t op, std::vector<Input> inputs) {
  try {
    return dispatch_op(op, inputs);
  } catch (const Error&) {
    if (raised_by_no_example()) return Value(0.0f);  // Note [Errors no example raises]
    const Value* mask = current_mask();
    if (!mask) throw;
    const std::vector<int64_t> first = first_running(*mask);
    for (Input& input : inputs) {
      if (auto* v = std::get_if<Value>(&input.value))
        input.value.emplace<Value>(as_running_examples(*v, *mask, first));
      else if (auto* list = std::get_if<std::vector<Value>>(&input.value)) {
        std::vector<Value> running;  // constructed anew: a Value's assignment is masked
        for (const Value& item : *list) running.push_back(as_running_examples(item, *mask, first));
        input.value.emplace<std::vector<Value>>(std::move(running));
      }
    }
    return dispatch_op(op, std::move(inputs));
  }
}

namespace {

Value dispatch_op(std::size_t op, std::vector<Input> inputs) {
  const profile::detail::OpScope profiled(kOpTable[op].name);
  int64_t levels = 0;
  auto visit_values = [&](auto&& visitor) {
    for (Input& input : inputs) {
      if (auto* v = std::get_if<Value>(&input.value)) visitor(*v);
      if (auto* list = std::get_if<std::vector<Value>>(&input.value))
        for (Value& item : *list) visitor(item);
    }
  };
  visit_values([&](const Value& v) { levels = std::max(levels, v.levels()); });
  Device device = kCPU;  // kCUDA when a Value is there
  visit_values([&](const Value& v) {
    if (placed_on(v) != kCPU) device = placed_on(v);
  });
  const RuleId rule = kOpTable[op].rule;
  if (subtracts(op)) {
    const auto* a = std::get_if<Value>(&inputs[0].value);
    const auto* b = std::get_if<Value>(&inputs[1].value);
    if (a && b && a->defined() && b->defined())
      check_bool_subtraction("sub", a->dtype(), b->dtype());
  }
  if (is_pointwise(rule)) return pointwise(op, inputs, levels, device);
  // Note [C++ scalars follow the tensors]. Emplaced: assigning a Value under a mask merges.
  if (device != kCPU) {
    for (Input& input : inputs) {
      if (const auto* v = std::get_if<Value>(&input.value)) {
        input.value.emplace<Value>(follow_device(*v, device));
      } else if (const auto* list = std::get_if<std::vector<Value>>(&input.value)) {
        std::vector<Value> followed;
        for (const Value& item : *list) followed.push_back(follow_device(item, device));
        input.value.emplace<std::vector<Value>>(std::move(followed));
      }
    }
  }
  if (is_reduction(rule))
    if (std::optional<Value> reduced = detail::reduce_pending(op, inputs)) return *reduced;
  if (rule == RuleId::dot || rule == RuleId::mv || rule == RuleId::matmul) {
    const auto* x = std::get_if<Value>(&inputs[0].value);
    const auto* y = std::get_if<Value>(&inputs[1].value);
    if (x && y)
      if (std::optional<Value> product = detail::dot_over_levels(rule, *x, *y)) return *product;
  }

  // Note [Levels to one batch dim]
  std::vector<int64_t> common(static_cast<std::size_t>(levels), 1);
  int64_t batched_count = 0;
  visit_values([&](const Value& v) {
    if (!v.defined()) return;
    const Tensor aligned = v.aligned(levels);
    bool varies = false;
    for (int64_t k = 0; k < levels; ++k) {
      const int64_t size = aligned.size(k);
      if (size != 1) varies = true;
      auto& slot = common[static_cast<std::size_t>(k)];
      if (size != 1 && slot != 1 && size != slot)
        throw Error("vmap: values disagree on the size of level " + std::to_string(k));
      if (size != 1) slot = size;
    }
    batched_count += varies ? 1 : 0;
  });
  std::vector<int64_t> merged_sizes = common;
  if (batched_count == 1)  // merge the one batched operand's own sizes: a view
    visit_values([&](const Value& v) {
      if (!v.defined()) return;
      const Tensor aligned = v.aligned(levels);
      const std::vector<int64_t> own = level_sizes_of(aligned, levels);
      if (std::ranges::any_of(own, [](int64_t s) { return s != 1; })) merged_sizes = own;
    });

  std::vector<rules::Arg> args;
  for (const Input& input : inputs) {
    if (const auto* v = std::get_if<Value>(&input.value)) {
      if (!v->defined()) {
        args.emplace_back();
        continue;
      }
      args.emplace_back(merge_levels(v->aligned(levels), levels, merged_sizes, v->is_cpp_scalar()));
    } else if (const auto* list = std::get_if<std::vector<Value>>(&input.value)) {
      std::vector<TensorArg> tensors;
      for (const Value& item : *list)
        tensors.push_back(merge_levels(item.aligned(levels), levels, merged_sizes, false));
      args.emplace_back(std::move(tensors));
    } else {
      args.push_back(std::get<rules::Arg>(input.value));
    }
  }
  if (lands_in_destination(rule))
    if (std::optional<Value> deferred = deferred_call(op, args, merged_sizes, levels))
      return *deferred;
  auto [result, bdim] = rules::call_rule(op, args);
  const bool cpp_scalar = rule == RuleId::item;
  if (!bdim) return Access::make(result, 0, cpp_scalar);
  return Access::make(split_levels(result, bdim, merged_sizes), levels, cpp_scalar);
}

}  // namespace

// Note [One pointwise path]
// The pointwise ops' rules (RuleId unary_pointwise, binary_pointwise, ternary_where, clamp)
// are dispatch itself on one level: each batched argument, its batch dim in front, is a Value
// of that level; an unbatched one a loop-invariant Value; wrapped numbers C++ scalars. So the
// rule property tests (tests/rules) check the code rewritten programs run: the logical-rank
// padding, the promotion (Note [Logical promotion]), pending blocks and all.
}  // namespace vmap::batched

namespace vmap::rules {

BatchedResult pointwise_rule(std::size_t op, const CallArgs& args) {
  std::vector<batched::Input> inputs;
  for (std::size_t position = 0; position < args.size(); ++position) {
    const Arg& arg = args.raw(position);
    const auto* tensor = std::get_if<TensorArg>(&arg);
    if (!tensor) {
      batched::Input input{batched::Value()};
      input.value = arg;
      inputs.push_back(std::move(input));
      continue;
    }
    inputs.emplace_back(tensor->bdim ? batched::Value(move_bdim_to_front(tensor->value, tensor->bdim),
                                                      1, tensor->wrapped_number)
                                     : batched::Value(tensor->value, 0, tensor->wrapped_number));
  }
  const batched::Value result = batched::dispatch(op, std::move(inputs));
  return {result.physical(), result.levels() > 0 ? BatchDim(0) : std::nullopt};
}

}  // namespace vmap::rules
