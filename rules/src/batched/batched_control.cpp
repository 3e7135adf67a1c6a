// Writes into places, vb::Where masks, the control frames (vb::Loop, vb::Switch, vb::Returns),
// `k++` whose value is used, and vb::accumulate. The per-example fallback, user batching rules
// and the aliasing check are batched_fallback.cpp; the unsigned integer forms,
// batched_unsigned.cpp.
#include "batched_fused.hpp"

#include <vmap/profile.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace vmap::batched {
namespace {

// Values here are only ever constructed, never assigned: assignment to a Value is masked
// by the innermost frame itself. An empty optional is every example (no mask).
struct MaskFrame {
  std::optional<Value> outer;      // the enclosing mask at entry, less the examples that left
  Value condition;                 // a vb::Where's
  std::optional<Value> effective;  // the examples that run here now
  std::optional<Value> running;    // a vb::Loop's examples that have not left it
  bool is_loop = false;
};
thread_local std::vector<MaskFrame> mask_stack;

// The physical sizes of a value with `from` level dims given exactly `levels` level dims and
// `rank` logical dims (size-1 dims added); throws when it differs along a level the
// destination does not have.
std::vector<int64_t> fit_sizes(std::vector<int64_t> sizes, int64_t from, int64_t levels,
                               int64_t rank) {
  if (from > levels) {
    for (int64_t k = from - 1; k >= levels; --k) {
      if (sizes[static_cast<std::size_t>(k)] != 1)
        throw Error(
            "vmap: a value that differs per example of an inner level is written "
            "into a place shared by those examples (the last write would win)");
      sizes.erase(sizes.begin() + k);
    }
  } else {
    sizes.insert(sizes.begin() + from, static_cast<std::size_t>(levels - from), 1);
  }
  const int64_t missing = rank - (static_cast<int64_t>(sizes.size()) - levels);
  sizes.insert(sizes.begin() + levels, static_cast<std::size_t>(std::max<int64_t>(missing, 0)), 1);
  return sizes;
}

// v fitted (fit_sizes) and on `device`: the destination's, for a write (copy_ crosses
// devices too), or the values' a mask selects (Note [C++ scalars follow the tensors]).
Tensor fit(const Value& v, int64_t levels, int64_t rank, Device device) {
  const Tensor t = follow_device(v, device).physical().to(device);
  const std::vector<int64_t> sizes = fit_sizes(t.sizes().vec(), v.levels(), levels, rank);
  return sizes == t.sizes().vec() ? t : t.reshape(sizes);
}

// A destination dim of size 1 at a level where the value differs: one slot for many
// examples (functorch refuses such writes too).
void check_not_shared(const Tensor& destination, const std::vector<int64_t>& value,
                      int64_t levels) {
  for (int64_t k = 0; k < levels; ++k)
    if (destination.size(k) == 1 && value[static_cast<std::size_t>(k)] != 1)
      throw Error(
          "vmap: writing a value that differs per example into a tensor shared by all "
          "examples; write into a per-example slot (out[i]) instead");
}

void write_into(const Tensor& destination, int64_t levels, const Value& value) {
  const int64_t rank = destination.dim() - levels;
  const int64_t from = value.levels();
  check_not_shared(destination, fit_sizes(Access::physical_sizes(value).vec(), from, levels, rank),
                   levels);
  Tensor keep;
  if (const Value* mask = current_mask()) {
    keep = fit(*mask, levels, rank, destination.device());
    check_not_shared(destination, keep.sizes().vec(), levels);
  }
  // A pending value goes straight into the destination (Note [Pending values]).
  auto fitted = [=](std::vector<int64_t> sizes) {
    return fit_sizes(std::move(sizes), from, levels, rank);
  };
  if (detail::store_pending(destination, value, fitted, keep)) return;
  detail::settle_before_write(destination);
  Tensor source = fit(value, levels, rank, destination.device());
  if (source.dtype() != destination.dtype()) source = source.to(destination.dtype());
  if (keep.defined()) source = vmap::where(keep, source, destination);
  destination.copy_(source);
}

// base[..., index, ...] = value for each example: a one-hot mask over the indexed dim.
void scatter_into(const detail::Place& origin, const Value& value) {
  const Tensor& destination = origin.base.physical();
  detail::settle_before_write(destination);
  const int64_t levels = origin.base.levels();
  // A slot x[i] that is no view of x: the tool stores only into an example's own slot, so
  // this is an induction variable whose range crosses 0 (`for (i = -2; i < 2; ++i)`: rows 2,
  // 3, 0, 1; select_by_induction).
  if (origin.index.levels() > levels)
    throw Error(
        "vmap: a store into x[i] where the loop's range of i crosses 0 (negative indices count "
        "from the end: the examples' slots are not one view of x); start the loop at 0");
  const int64_t rank = destination.dim() - levels;
  const int64_t dim = rules::wrap_logical_dim("store", origin.dim, rank) + levels;
  const Device device = destination.device();
  // A negative index counts from the end, as the select that made the place took it (and
  // checked it in range).
  const Tensor given = fit(origin.index, levels, rank, device);
  const Tensor position = vmap::where(given < int64_t{0}, given + destination.size(dim), given);
  std::vector<int64_t> shape(static_cast<std::size_t>(destination.dim()), 1);
  shape[static_cast<std::size_t>(dim)] = destination.size(dim);
  Tensor hit = vmap::arange(destination.size(dim), device).reshape(shape) == position;
  Tensor source = fit(value, levels, rank - 1, device).unsqueeze(dim);
  check_not_shared(destination, hit.sizes().vec(), levels);
  check_not_shared(destination, source.sizes().vec(), levels);
  if (const Value* mask = current_mask()) hit = hit & fit(*mask, levels, rank, device);
  destination.copy_(vmap::where(hit, source.to(destination.dtype()), destination));
}

Value as_condition(const Value& condition) { return scalar_cast_to(condition, kBool); }

// std::fmax / std::fmin pick between signed zeros and skip NaNs by position: only a C++
// scalar accumulator, folded in loop order, reduces with them (clang-vmap refuses the
// others).
Error cpp_scalars_only(Reduce op) {
  return Error(std::string("vmap: ") + (op == Reduce::fmax ? "fmax" : "fmin") +
               " reduces into a C++ scalar accumulator only");
}

vmap::detail::Scalar identity_of(Reduce op, Dtype dtype) {
  const bool floating = vmap::detail::is_floating(dtype);
  const double infinity = std::numeric_limits<double>::infinity();
  switch (op) {
    case Reduce::add:
    case Reduce::sub:
      return int64_t{0};
    case Reduce::mul:
      return int64_t{1};
    case Reduce::max:
      if (dtype == kBool) return false;
      if (floating) return -infinity;
      return dtype == kInt32 ? int64_t{std::numeric_limits<int32_t>::min()}
                             : std::numeric_limits<int64_t>::min();
    case Reduce::min:
      if (dtype == kBool) return true;
      if (floating) return infinity;
      return dtype == kInt32 ? int64_t{std::numeric_limits<int32_t>::max()}
                             : std::numeric_limits<int64_t>::max();
    case Reduce::fmax:  // a NaN is skipped
    case Reduce::fmin:
      return std::numeric_limits<double>::quiet_NaN();
  }
  return int64_t{0};
}

// Product over dim 0 by halving: log2(n) multiplications, never a loop over examples.
Tensor product_over_front(Tensor values) {
  Tensor result = vmap::ones_like(values.select(0, 0));
  while (values.size(0) > 1) {
    const int64_t half = values.size(0) / 2;
    if (values.size(0) % 2 == 1) result = result * values.select(0, values.size(0) - 1);
    values = values.narrow(0, 0, half) * values.narrow(0, half, half);
  }
  return values.size(0) == 1 ? result * values.select(0, 0) : result;
}

// A pending e (Note [Pending values]) reduced block by block over every level, when it
// varies along all of them (nothing to expand) and no mask applies.
std::optional<Tensor> reduce_pending_levels(const Value& e, int64_t keep, Reduce op) {
  const int64_t levels = active_levels();
  if (keep != 0 || op == Reduce::mul || current_mask() || e.levels() != levels) return std::nullopt;
  const vmap::detail::IntList sizes = Access::physical_sizes(e);
  for (int64_t k = 0; k < levels; ++k)
    if (sizes[static_cast<std::size_t>(k)] != level_size(k)) return std::nullopt;
  return detail::reduce_levels_pending(e, [op](const Tensor& t, std::vector<int64_t> dims) {
    return op == Reduce::max ? t.amax(dims) : op == Reduce::min ? t.amin(dims) : t.sum(dims);
  });
}

// e over every active level from `keep` on (expanded first: an example that does not vary
// along a level still counts once per iteration), masked-out examples as the identity.
Tensor reduce_levels(const Value& e, int64_t keep, Reduce op) {
  if (op == Reduce::fmax || op == Reduce::fmin) throw cpp_scalars_only(op);
  const int64_t levels = active_levels();
  if (auto reduced = reduce_pending_levels(e, keep, op)) return *reduced;
  const int64_t rank = e.is_cpp_scalar() ? 0 : e.physical().dim() - e.levels();
  Tensor values = e.aligned(levels);
  std::vector<int64_t> full = values.sizes().vec();
  for (int64_t k = keep; k < levels; ++k) full[static_cast<std::size_t>(k)] = level_size(k);
  values = values.expand(full);
  if (const Value* mask = current_mask()) {
    const Tensor identity = vmap::full({}, identity_of(op, values.dtype()), values.dtype());
    values = vmap::where(fit(*mask, levels, rank, values.device()), values, identity);
  }
  std::vector<int64_t> dims(static_cast<std::size_t>(levels - keep));
  std::iota(dims.begin(), dims.end(), keep);
  if (dims.empty()) return values;
  switch (op) {
    case Reduce::add:
    case Reduce::sub:
      return values.sum(dims);
    case Reduce::max:
      return values.amax(dims);
    case Reduce::min:
      return values.amin(dims);
    case Reduce::fmax:  // refused above
    case Reduce::fmin:
      break;
    case Reduce::mul: {
      std::vector<int64_t> merged = values.sizes().vec();
      merged.erase(merged.begin() + keep, merged.begin() + levels);
      Tensor front = values.movedim(std::vector<int64_t>(dims), [&] {
        std::vector<int64_t> to(dims.size());
        std::iota(to.begin(), to.end(), 0);
        return to;
      }());
      const int64_t count = std::accumulate(full.begin() + keep, full.begin() + levels, int64_t{1},
                                            std::multiplies<>());
      front = front.reshape([&] {
        std::vector<int64_t> sizes{count};
        sizes.insert(sizes.end(), merged.begin(), merged.end());
        return sizes;
      }());
      return product_over_front(front);
    }
  }
  return values;
}

// \p promote: the result takes ATen's promoted dtype, as `acc = maximum(acc, e)` rebinds acc
// to; else acc's own, as an in-place update keeps it.
Tensor combine(const Tensor& acc, const Tensor& reduced, Reduce op, bool promote = false) {
  switch (op) {
    case Reduce::add:
      return acc + reduced;
    case Reduce::sub:
      return acc - reduced;
    case Reduce::mul:
      return acc * reduced;
    case Reduce::max:
      return vmap::maximum(acc, promote ? reduced : reduced.to(acc.dtype()));
    case Reduce::min:
      return vmap::minimum(acc, promote ? reduced : reduced.to(acc.dtype()));
    case Reduce::fmax:
    case Reduce::fmin:
      throw cpp_scalars_only(op);
  }
  return acc;
}

}  // namespace

// --- places ----------------------------------------------------------------------------

void store(const Value& place, const Value& value) {
  if (any_level_empty()) return;  // no example runs, nothing is written
  try {
    if (const auto& origin = Access::place(place)) {
      check_fill_value("fill_", value, origin->base.dtype());
      return scatter_into(*origin, value);
    }
    check_fill_value("fill_", value, place.dtype());
    write_into(place.physical(), place.levels(), value);
  } catch (const Error&) {
    if (!raised_by_no_example()) throw;  // Note [Errors no example raises]
  }
}

bool can_hold(const Value& place, const Value& value) {
  if (Access::place(place)) return true;
  const Tensor& destination = place.physical();
  const int64_t levels = place.levels();
  auto varies_beyond = [&](const Value& v) {  // from the sizes: a pending v stays pending
    const vmap::detail::IntList sizes = Access::physical_sizes(v);
    for (int64_t k = 0; k < v.levels(); ++k) {
      const bool destination_has = k < levels && destination.size(k) != 1;
      if (sizes[static_cast<std::size_t>(k)] != 1 && !destination_has) return true;
    }
    return false;
  };
  if (varies_beyond(value)) return false;
  const Value* mask = current_mask();
  return !mask || !varies_beyond(*mask);
}

// --- masks -------------------------------------------------------------------------------

const Value* current_mask() {
  if (mask_stack.empty() || !mask_stack.back().effective) return nullptr;
  return &*mask_stack.back().effective;
}

bool some_example_runs() {
  if (any_level_empty()) return false;
  const Value* mask = current_mask();
  return mask == nullptr || fit(*mask, active_levels(), 0, kCPU).to(kBool).any().item<bool>();
}

bool raised_by_no_example() { return !some_example_runs(); }

void check_bool_subtraction(const char* op, Dtype a, Dtype b) {
  if ((a == kBool || b == kBool) && some_example_runs()) vmap::detail::check_subtraction(op, a, b);
}

namespace {

std::optional<Value> copy_of_current_mask() {
  const Value* mask = current_mask();
  return mask ? std::optional<Value>(*mask) : std::nullopt;
}

Value both(const std::optional<Value>& mask, const Value& condition) {
  return mask ? logical_and(*mask, condition) : condition;
}

// Values in frames are constructed anew, never assigned (a Value's assignment is masked).
void set_mask(std::optional<Value>& mask, const std::optional<Value>& value) {
  mask.reset();
  if (value) mask.emplace(*value);
}

// A jump (Note [Control masks]): the examples of the current mask leave every frame from
// `target` up; a `continue` keeps them in its loop's running set.
void leave(std::size_t target, bool keep_running) {
  const Value* current = current_mask();
  const Value staying = current ? logical_not(*current) : Value(false);
  for (std::size_t f = target; f < mask_stack.size(); ++f) {
    MaskFrame& frame = mask_stack[f];
    if (f > target) frame.outer.emplace(both(frame.outer, staying));
    if (frame.is_loop && !(f == target && keep_running))
      frame.running.emplace(both(frame.running, staying));
    frame.effective.emplace(both(frame.effective, staying));
  }
}

std::size_t push_frame(std::optional<Value> effective, bool is_loop) {
  MaskFrame frame{copy_of_current_mask(), Value(true), std::move(effective), std::nullopt, is_loop};
  if (is_loop) set_mask(frame.running, frame.outer);
  mask_stack.push_back(std::move(frame));
  return mask_stack.size() - 1;
}

// Whether any example is in `mask` (on a device: one reduction and one read).
bool any_example(const std::optional<Value>& mask) {
  if (any_level_empty()) return false;
  return !mask || mask->physical().any().item<bool>();
}

}  // namespace

Where::Where(const Value& condition) {
  const Value test = as_condition(condition);
  const std::optional<Value> outer = copy_of_current_mask();
  MaskFrame frame{outer, test, both(outer, test), std::nullopt};
  mask_stack.push_back(std::move(frame));
}

Where::~Where() { mask_stack.pop_back(); }

void Where::flip() {
  MaskFrame& frame = mask_stack.back();
  frame.effective.emplace(both(frame.outer, logical_not(frame.condition)));
}

// --- loops, switches, early returns (Note [Control masks]) -------------------------------

Loop::Loop(std::source_location where)
    : frame_(push_frame(copy_of_current_mask(), true)), where_(where) {}
Loop::~Loop() { mask_stack.pop_back(); }

bool Loop::next(const Value& condition) {
  MaskFrame& frame = mask_stack.at(frame_);
  frame.running.emplace(both(frame.running, as_condition(condition)));
  set_mask(frame.effective, frame.running);
  return any_example(frame.running);
}

bool Loop::next() {
  resume();
  return any_example(mask_stack.at(frame_).running);
}

void Loop::exit() { leave(frame_, false); }
void Loop::skip() { leave(frame_, true); }

// The iteration's last statement ends: the loop's condition, tested next, counts toward
// the loop's line (Note [Profiled statements]).
void Loop::resume() {
  profile_line(where_);
  MaskFrame& frame = mask_stack.at(frame_);
  set_mask(frame.effective, frame.running);
}

Switch::Switch(const Value& value, std::vector<int64_t> labels)
    : frame_(push_frame(Value(false), false)), value_(value), labels_(std::move(labels)) {}
Switch::~Switch() { mask_stack.pop_back(); }

void Switch::enter(int64_t label) {
  MaskFrame& frame = mask_stack.at(frame_);
  frame.effective.emplace(
      logical_or(*frame.effective, both(frame.outer, as_condition(value_ == Value(label)))));
}

void Switch::enter_default() {
  std::optional<Value> unmatched;  // every example while there are no labels
  for (const int64_t label : labels_)
    unmatched.emplace(both(unmatched, as_condition(value_ != Value(label))));
  MaskFrame& frame = mask_stack.at(frame_);
  const Value joining =
      unmatched ? both(frame.outer, *unmatched) : frame.outer.value_or(Value(true));
  frame.effective.emplace(logical_or(*frame.effective, joining));
}

void Switch::exit() { leave(frame_, false); }

Returns::Returns() : frame_(push_frame(copy_of_current_mask(), false)) {}
Returns::~Returns() { mask_stack.pop_back(); }

void Returns::exit(const Value& result) {
  result_ = result;  // masked: the examples returning now take it
  leave(frame_, false);
}

void Returns::exit() { leave(frame_, false); }

Value Returns::result(const Value& last) {
  result_ = last;
  return result_;
}

namespace {

// A C++ scalar's compound assignment rebinds it (Value::operator=), so a handle copy keeps
// the old elements; any other value is written in place and is copied first.
Value stepped(Value& value, int step) {
  const Value old = value.is_cpp_scalar() ? value : value.clone();
  value += step;
  return old;
}

}  // namespace

Value post_increment(Value& value) { return stepped(value, 1); }
Value post_decrement(Value& value) { return stepped(value, -1); }

// --- accumulators ----------------------------------------------------------------------

void accumulate(Tensor& acc, const Value& e, Reduce op) {
  if (any_level_empty() || !some_example_runs()) return;  // the loop as written adds nothing
  if (op == Reduce::sub) check_bool_subtraction("sub_", acc.dtype(), e.dtype());
  const Tensor reduced = reduce_levels(e, 0, op);
  detail::settle_before_write(acc);
  if (op == Reduce::add)
    acc += reduced;
  else if (op == Reduce::sub)
    acc -= reduced;
  else if (op == Reduce::mul)
    acc *= reduced;
  else
    acc.copy_(combine(acc, reduced, op));
}

namespace {

// A Value accumulator's physical tensor at its `keep` leading levels, and e reduced over the
// levels below them, broadcastable to it.
std::pair<Tensor, Tensor> reduced_into(const Value& acc, const Value& e, Reduce op,
                                       int64_t keep) {
  const Tensor current = acc.aligned(keep);
  Tensor reduced = reduce_levels(e, keep, op);
  for (int64_t r = reduced.dim() - keep; r < current.dim() - keep; ++r)
    reduced = reduced.unsqueeze(keep);
  return {current, reduced};
}

}  // namespace

void accumulate(Value& acc, const Value& e, Reduce op) {
  if (any_level_empty()) return;
  if (op == Reduce::sub && !acc.is_cpp_scalar())  // C++ subtracts bools as ints
    check_bool_subtraction("sub_", acc.dtype(), e.dtype());
  const int64_t keep = std::max(acc.levels(), acc.home_levels());
  const auto [current, reduced] = reduced_into(acc, e, op, keep);
  const Tensor updated = combine(current, reduced, op).to(acc.dtype());
  if (!acc.is_cpp_scalar() && keep == acc.levels() && updated.sizes() == current.sizes()) {
    detail::settle_before_write(current);
    current.copy_(updated);  // in place, like the Tensor it stands for
    return;
  }
  Access::rebind_physical(acc, updated, keep);
}

void accumulate_rebinding(Tensor& acc, const Value& e, Reduce op) {
  if (!some_example_runs()) return;  // no example assigns: acc keeps its handle
  if (op == Reduce::sub) check_bool_subtraction("sub", acc.dtype(), e.dtype());
  acc = combine(acc, reduce_levels(e, 0, op), op, /*promote=*/true);
}

void accumulate_rebinding(Value& acc, const Value& e, Reduce op) {
  if (any_level_empty()) return;
  if (op == Reduce::sub && !acc.is_cpp_scalar())
    check_bool_subtraction("sub", acc.dtype(), e.dtype());
  const int64_t keep = std::max(acc.levels(), acc.home_levels());
  const auto [current, reduced] = reduced_into(acc, e, op, keep);
  Access::rebind_physical(acc, combine(current, reduced, op, /*promote=*/true), keep);
}

namespace {

// Calls visit(data, count, stride, flags, flag_stride) for the values of the per-example
// scalar e in loop order, a run at a time: data[n * stride] for n < count (data a const
// float* or a const T*: values of other dtypes converted to T), each example run only where
// flags[n * flag_stride] (the live mask's; flags null: every one). The visitor folds a run in
// a local, in registers. Read where e's values are, expanded along the levels e does not
// vary along, never copied per example: a 4096 x 4096 float product folded into a float
// accumulator was three copies of 64-128 MB, 1.25 s (now 11 ms).
template <class T, class Visit>
void for_each_run_in_order(const Value& e, Visit&& visit) {
  const int64_t levels = active_levels();
  if (e.numel() != 1) throw Error("vmap: a C++ scalar accumulator needs a scalar per example");
  auto readable = [](const Tensor& t) {  // float or T
    return t.dtype() == kFloat32 || t.dtype() == vmap::detail::dtype_of<T>
               ? t
               : t.to(vmap::detail::dtype_of<T>);
  };
  auto with_data = [](const Tensor& t, const auto& use) {
    if (t.dtype() == kFloat32)
      use(t.data_ptr<float>());
    else
      use(t.data_ptr<T>());
  };
  std::vector<int64_t> full, own;
  for (int64_t k = 0; k < levels; ++k) full.push_back(level_size(k));
  // A pending e that varies along every level, with no mask: its blocks are in loop order,
  // and none outlives its fold (a 4096 x 4096 product was a 64 MB tensor, page faults and
  // all).
  const vmap::detail::IntList sizes = Access::physical_sizes(e);
  if (current_mask() == nullptr && e.levels() == levels &&
      std::equal(full.begin(), full.end(), sizes.begin()) &&
      detail::for_each_block_in_order(e, [&](const Tensor& block) {
        const Tensor values = readable(block).contiguous();
        with_data(values, [&](const auto* data) {
          visit(data, values.numel(), int64_t{1}, static_cast<const bool*>(nullptr), int64_t{0});
        });
      }))
    return;
  Tensor values = e.aligned(levels).to(kCPU);  // read on the host: device values come over
  for (int64_t k = 0; k < levels; ++k) own.push_back(values.size(k));
  // Converted before it is expanded: one value per example e has, not per iteration.
  values = readable(values.reshape(own)).expand(full);
  Tensor keep;
  if (const Value* mask = current_mask()) keep = fit(*mask, levels, 0, kCPU).to(kBool).expand(full);
  const bool* flags = keep.defined() ? keep.data_ptr<bool>() : nullptr;
  if (levels == 0) {
    with_data(values,
              [&](const auto* data) { visit(data, int64_t{1}, int64_t{0}, flags, int64_t{0}); });
    return;
  }
  // Runs along the innermost level; the levels outside it stepped through as an odometer.
  const auto last = static_cast<std::size_t>(levels - 1);
  std::vector<int64_t> step, flag_step;  // per level, 0 along a level e (or the mask) lacks
  for (int64_t k = 0; k < levels; ++k) {
    step.push_back(values.stride(k));
    flag_step.push_back(keep.defined() ? keep.stride(k) : 0);
  }
  const int64_t runs =
      std::accumulate(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(last), int64_t{1},
                      std::multiplies<>());
  with_data(values, [&](const auto* data) {
    std::vector<int64_t> index(last, 0);
    int64_t at = 0, flag_at = 0;
    for (int64_t r = 0; r < runs; ++r) {
      visit(data + at, full[last], step[last], flags == nullptr ? nullptr : flags + flag_at,
            flag_step[last]);
      for (std::size_t k = last; k-- > 0;) {  // the next run in loop order
        at += step[k];
        flag_at += flag_step[k];
        if (++index[k] < full[k]) break;
        at -= step[k] * full[k];
        flag_at -= flag_step[k] * full[k];
        index[k] = 0;
      }
    }
  });
}

// Note [fmax and fmin on ties]
// glibc's fmax / fmin (x86-64: a NaN check, then maxsd / minsd) return the first operand only
// where it is larger (smaller) or the second is NaN: on equal zeros of different sign, the
// second. C leaves that sign unspecified, so GCC takes std::fmax as commutative and may call
// it with the operands swapped (GCC 12 -O3 did, in the fold below); written out, the pick
// keeps the library's order. (A program as written compiled by GCC may get the other zero;
// BatchedApi tests compare with the library's own calls, should another one differ.)
template <class F>
F c_library_fmax(F a, F b) {
  return a > b || b != b ? a : b;
}
template <class F>
F c_library_fmin(F a, F b) {
  return a < b || b != b ? a : b;
}
// std::fmax's type on T: float stays float, the rest is double.
template <class T>
using Floating = std::conditional_t<std::is_same_v<T, float>, float, double>;

template <class T>
T fold(T acc, T value, Reduce op) {
  switch (op) {
    case Reduce::add:
      return acc + value;
    case Reduce::sub:
      return acc - value;
    case Reduce::mul:
      return acc * value;
    case Reduce::max:
      return std::max(acc, value);
    case Reduce::min:
      return std::min(acc, value);
    case Reduce::fmax:  // on integers, in double as C++ calls it
      return static_cast<T>(c_library_fmax<Floating<T>>(acc, value));
    case Reduce::fmin:
      return static_cast<T>(c_library_fmin<Floating<T>>(acc, value));
  }
  return acc;
}

// What the C++ accumulator of type `type` holds after an assignment of `value`.
double narrow_to(double value, Dtype type) {
  if (type == kFloat32) return static_cast<float>(value);
  if (type == kInt32) return static_cast<int32_t>(value);
  if (type == kInt64) return static_cast<double>(static_cast<int64_t>(value));
  if (type == kBool) return value != 0.0;
  return value;
}

}  // namespace

// Folds the examples in loop order with C++ semantics, so float sums match the loop bit for
// bit; one conversion op, the rest is plain C++ over the examples' values. Except where the
// order cannot matter to the user: a double accumulator's sum (or difference) with no live
// mask is e reduced over every level (a pending e block by block) and then folded in,
// as a Tensor accumulator's is: the sum rounds as a reordered double sum, within SPEC's
// float tolerance (a float accumulator keeps the loop's order: its own rounding drifts
// further than that at a few million terms; std::max skips a NaN the reduction would keep).
// Folding each example's value made
// `total += x[i].item<double>() * y[j].item<double>()` at 4096 x 4096 a 128 MB vector of
// the products, three times over: 846 ms.
void accumulate_scalar(double& acc, Dtype acc_type, const Value& e, Reduce op) {
  if (any_level_empty()) return;
  const bool sums = op == Reduce::add || op == Reduce::sub;
  if (acc_type == kFloat64 && sums && current_mask() == nullptr && e.numel() == 1) {
    // Each element converted to double first, as `total += e` converts it.
    if (const std::optional<double> sum = detail::pending_sum(e))
      acc = fold(acc, *sum, op);
    else
      acc = fold(acc, reduce_levels(e.to(kFloat64), 0, op).item<double>(), op);
    return;
  }
  if (acc_type == kFloat32 && e.dtype() == kFloat32) {
    // float op= float in float, as the loop does (rounded once either way): no conversions
    // on the chain of dependent adds.
    auto narrow = static_cast<float>(acc);
    for_each_run_in_order<float>(e, [&](const auto* data, int64_t count, int64_t stride,
                                        const bool* flags, int64_t flag_stride) {
      float folded = narrow;
      for (int64_t n = 0; n < count; ++n)
        if (flags == nullptr || flags[n * flag_stride])
          folded = fold(folded, static_cast<float>(data[n * stride]), op);
      narrow = folded;
    });
    acc = narrow;
    return;
  }
  for_each_run_in_order<double>(e, [&](const auto* data, int64_t count, int64_t stride,
                                       const bool* flags, int64_t flag_stride) {
    double folded = acc;
    for (int64_t n = 0; n < count; ++n)
      if (flags == nullptr || flags[n * flag_stride])
        folded = narrow_to(fold(folded, static_cast<double>(data[n * stride]), op), acc_type);
    acc = folded;
  });
}

void accumulate_scalar(int64_t& acc, Dtype acc_type, const Value& e, Reduce op) {
  if (any_level_empty()) return;
  // int op= float computes in float (C++'s usual arithmetic conversions), converted back to
  // the accumulator's type every time: at 2^24, `s += 1.0f` leaves s as it is.
  if (e.dtype() == kFloat32) {
    for_each_run_in_order<float>(e, [&](const auto* data, int64_t count, int64_t stride,
                                        const bool* flags, int64_t flag_stride) {
      int64_t folded = acc;
      for (int64_t n = 0; n < count; ++n) {
        if (flags != nullptr && !flags[n * flag_stride]) continue;
        const float value = fold(static_cast<float>(folded), static_cast<float>(data[n * stride]), op);
        folded = acc_type == kInt32  ? static_cast<int32_t>(value)
                 : acc_type == kBool ? value != 0.0f
                                     : static_cast<int64_t>(value);
      }
      acc = folded;
    });
    return;
  }
  if (vmap::detail::is_floating(e.dtype())) {  // int op= double, converted back every time
    double wide = static_cast<double>(acc);
    accumulate_scalar(wide, acc_type, e, op);
    acc = static_cast<int64_t>(wide);
    return;
  }
  for_each_run_in_order<int64_t>(e, [&](const auto* data, int64_t count, int64_t stride,
                                        const bool* flags, int64_t flag_stride) {
    int64_t folded = acc;
    for (int64_t n = 0; n < count; ++n) {
      if (flags != nullptr && !flags[n * flag_stride]) continue;
      folded = fold(folded, static_cast<int64_t>(data[n * stride]), op);
      if (acc_type == kInt32) folded = static_cast<int32_t>(folded);
      if (acc_type == kBool) folded = folded != 0;
    }
    acc = folded;
  });
}

}  // namespace vmap::batched
