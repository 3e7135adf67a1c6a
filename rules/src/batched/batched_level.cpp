// vb::Level, the stack of the loop levels, and reads through an index (Note [Places]): by a
// level's induction variable a view of the level's range, at a position the same for every
// example a view of each example, at a per-example position a gather that remembers its place.
#include "batched_fused.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace vmap::batched {
namespace {

using rules::OpForm;

struct LevelState {
  int64_t start;
  int64_t size;
};
thread_local std::vector<LevelState> level_stack;

}  // namespace

// --- levels -------------------------------------------------------------------------

Level::Level(int64_t start, int64_t end) : depth_(static_cast<int64_t>(level_stack.size())) {
  level_stack.push_back({start, std::max<int64_t>(0, end - start)});
}

Level::~Level() {
  level_stack.pop_back();
  vmap::detail::running_statement = {};  // Note [Errors name the statement]
  if (profile::enabled()) profile::detail::end_statement();  // Note [Profiled statements]
}

int64_t Level::size() const { return level_stack.at(static_cast<std::size_t>(depth_)).size; }

Value Level::index() const {
  const LevelState& state = level_stack.at(static_cast<std::size_t>(depth_));
  std::vector<int64_t> shape(static_cast<std::size_t>(depth_), 1);
  shape.push_back(state.size);
  // Lazy (Note [Pending values]): `x[i]` views x without it.
  std::vector<int64_t> sizes = shape;
  Value index = Access::make_pending(
      detail::pending_source(
          std::move(sizes), kInt64,
          [start = state.start, end = state.start + state.size, shape](Device device) {
            return vmap::arange(start, end, TensorOptions(kInt64).device(device)).reshape(shape);
          }),
      depth_ + 1, true);
  Access::set_induction_level(index, depth_);
  return index;
}

int64_t active_levels() { return static_cast<int64_t>(level_stack.size()); }
int64_t level_size(int64_t level) { return level_stack.at(static_cast<std::size_t>(level)).size; }
int64_t level_start(int64_t level) {
  return level_stack.at(static_cast<std::size_t>(level)).start;
}
bool any_level_empty() {
  return std::ranges::any_of(level_stack, [](const LevelState& s) { return s.size == 0; });
}

// --- reads through an index (Note [Places]) ------------------------------------------

namespace {

// Under a vb::Where, masked-out examples read position 0 (always valid when the dim is
// not empty), so no branch raises an error its examples would not.
Value masked_index(const Value& index) {
  const Value* mask = current_mask();
  if (!mask) return index;
  return where(*mask, index, Value(int64_t{0}).to(index.dtype()));
}

// x.select(dim, i) for the induction variable i of `level` when x does not vary along
// that level: narrow the dim to the level's range and make it the level dim (a view). Built
// from x's own physical tensor, not x.aligned(): x[i], y[j] and out[i][j] of a pairwise loop
// need at most one view each (an unsqueeze), not an unsqueeze per level, a narrow and a
// squeeze (each view is a TensorImpl; 0.8 us of a 100x200x10 pairwise distance's 17).
std::optional<Value> select_by_induction(const Value& x, int64_t dim, const Value& index) {
  const int64_t level = Access::induction_level(index);
  if (level < 0) return std::nullopt;
  const int64_t own_levels = x.levels();
  const int64_t levels = std::max(own_levels, level + 1);
  Tensor physical = x.physical();
  // x[i] with x varying along i: a gather.
  if (level < own_levels && physical.size(level) != 1) return std::nullopt;
  int64_t selected =
      rules::wrap_logical_dim("select", dim, physical.dim() - own_levels) + own_levels;
  const LevelState& state = level_stack.at(static_cast<std::size_t>(level));
  const int64_t start = state.size == 0 ? 0 : state.start;  // zero trips read nothing
  const int64_t extent = physical.size(selected), last = start + state.size - 1;
  // An index out of range raises select's error at the first example that reads it, as the
  // loop as written does (a narrow would name its own start and length).
  if (state.size > 0 && (start < -extent || last >= extent))
    throw Error("select: index " + std::to_string(start < -extent ? start : std::max(start, extent)) +
                " out of range for dim " + std::to_string(selected - own_levels) + " of size " +
                std::to_string(extent));
  // From a negative index past 0 (x[-2] .. x[1]): two runs of x, no one view; a gather.
  if (start < 0 && last >= 0) return std::nullopt;
  if (start != 0 || state.size != extent) physical = physical.narrow(selected, start, state.size);
  if (level < own_levels) {
    physical = physical.squeeze(level);
    --selected;
  }
  for (int64_t k = own_levels; k < level; ++k, ++selected)
    physical = physical.unsqueeze(own_levels);
  // Already in place when x's dim is the level's own (x[i], y[j] of a pairwise loop): the
  // runtime's movedim is a permute of every dim, 7k of a rewritten pairwise distance's 34k
  // fixed instructions.
  if (selected != level) physical = physical.movedim(selected, level);
  return Access::make(physical, levels, false);
}

// x.select(dim, c), x[c] and x.narrow(dim, c, n) at a position the same for every example
// are the same view of each example: one view of x's physical tensor at the dim past the
// level dims. Not through dispatch, which merges the level dims into one batch dim: level
// dims not adjacent in memory (out[i][j] with j from 1 narrows out's dim 1 between them)
// merge only by a copy, and a store into the copy would be lost.
template <class View>
Value invariant_view(const Value& x, const char* op, int64_t dim, View view) {
  return unless_no_example_runs([&] {  // Note [Errors no example raises]
    const int64_t levels = x.levels();
    const Tensor& physical = x.physical();
    const int64_t rank = physical.dim() - levels;
    if (rank == 0) throw Error(std::string(op) + ": cannot be applied to a 0-dim tensor");
    const int64_t logical = rules::wrap_logical_dim(op, dim, rank);
    try {
      return Access::make(view(physical, logical + levels), levels, false);
    } catch (const Error&) {
      // The physical tensor's error numbers its dims past the levels: the first example's
      // view raises the loop's own (the same position on every example).
      Tensor example = physical;
      for (int64_t k = 0; k < levels && example.size(0) > 0; ++k) example = example.select(0, 0);
      if (example.dim() == rank) (void)view(example, logical);
      throw;
    }
  });
}

// x.select(dim, index) at a per-example position, where the index varies along levels x
// does not (`input[i][index[i][j].item<int64_t>()]`): one gather along the dim of x's own
// physical tensor, expanded along those levels as a view. Through dispatch, which merges the
// level dims into one batch dim, x was first copied once per example of the other levels
// (a [1024, 256] input read by a [1024, 32] index: 32 copies of it).
std::optional<Value> select_by_gather(const Value& x, int64_t dim, const Value& index) {
  const int64_t levels = index.levels();
  if (levels <= x.levels() || index.physical().dim() != levels ||
      !vmap::detail::is_integral(index.dtype()))
    return std::nullopt;
  Tensor physical = x.physical();
  for (int64_t l = x.levels(); l < levels; ++l) physical = physical.unsqueeze(l);
  const int64_t rank = physical.dim() - levels;
  if (rank == 0) throw Error("select: cannot be applied to a 0-dim tensor");
  const int64_t selected = rules::wrap_logical_dim("select", dim, rank) + levels;
  const int64_t extent = physical.size(selected);
  const Tensor given = index.physical().dtype() == kInt64 ? index.physical()
                                                          : index.physical().to(kInt64);
  // The level dims broadcast, an empty one (no example) staying empty.
  std::vector<int64_t> sizes = physical.sizes().vec();
  for (int64_t l = 0; l < levels; ++l)
    sizes[l] = sizes[l] == 0 || given.size(l) == 0 ? 0 : std::max(sizes[l], given.size(l));
  if (given.numel() == 0) {  // no example: nothing selected, nothing raised
    sizes.erase(sizes.begin() + selected);
    return Access::make(vmap::empty(sizes, TensorOptions(physical.dtype()).device(physical.device())),
                        levels, false);
  }
  // Gathers at `position` (each in [0, extent)), through a gather that checks each.
  auto gathered_at = [&](const Tensor& position) {
    if (rank == 1) {
      // An element of a 1-d example (`input[i][index[i][j].item<int64_t>()]`): x's rows
      // gathered along themselves, the positions of the levels x lacks (the inner ones) side
      // by side in a row, many picks a row; the general gather below takes one element a row.
      const int64_t own = x.levels();
      std::vector<int64_t> row_sizes(sizes.begin(), sizes.begin() + own);
      int64_t picks = 1;
      for (int64_t l = own; l < levels; ++l) picks *= sizes[l];
      row_sizes.push_back(picks);
      const std::vector<int64_t> level_sizes(sizes.begin(), sizes.begin() + levels);
      std::vector<int64_t> rows = row_sizes;
      rows.back() = extent;
      const Tensor picked = x.physical().expand(rows).gather(
          own, position.expand(level_sizes).reshape(row_sizes));
      return Access::make(picked.reshape(level_sizes), levels, false);
    }
    std::vector<int64_t> shape(sizes.size(), 1);
    for (int64_t l = 0; l < levels; ++l) shape[l] = given.size(l);
    std::vector<int64_t> index_sizes = sizes;
    index_sizes[selected] = 1;
    const Tensor picked =
        physical.expand(sizes).gather(selected, position.reshape(shape).expand(index_sizes));
    return Access::make(picked.squeeze(selected), levels, false);
  };
  // The common case, every position in range and none from the end, is the gather alone;
  // else (its error) the positions are read: those from the end counted from it, or select's
  // error naming the first out of range.
  try {
    return gathered_at(given);
  } catch (const vmap::Error&) {
  }
  const Tensor outside = (given < -extent).logical_or(given >= extent).reshape({-1});
  if (outside.any().item<bool>()) {
    const int64_t bad = given.reshape({-1})[outside.to(kInt64).argmax()].item<int64_t>();
    throw Error("select: index " + std::to_string(bad) + " out of range for dim " +
                std::to_string(selected - levels) + " of size " + std::to_string(extent));
  }
  return gathered_at(vmap::where(given < int64_t{0}, given + extent, given));
}

}  // namespace

Value select(const Value& x, int64_t dim, const Value& index) {
  if (index.levels() == 0 && !index.physical().dim()) {
    const int64_t position = index.physical().item<int64_t>();
    return invariant_view(x, "select", dim, [&](const Tensor& physical, int64_t physical_dim) {
      return physical.select(physical_dim, position);
    });
  }
  if (auto view = select_by_induction(x, dim, index)) return *view;
  const Value position = masked_index(index);
  if (auto gathered = select_by_gather(x, dim, position)) {
    Access::set_place(*gathered, {x, dim, position});
    return *gathered;
  }
  Value result = dispatch(op_index("select", OpForm::member), {x, dim, position});
  Access::set_place(result, {x, dim, position});
  return result;
}

Value select(const Tensor& x, int64_t dim, const Value& index) {
  return select(Value(x), dim, index);
}
Value at(const Tensor& x, const Value& index) { return select(Value(x), 0, index); }
Value at(const Value& x, const Value& index) { return select(x, 0, index); }
// An integer or 0-d tensor selects; an integer tensor indexes dim 0 with each of its
// elements (result: index shape + the remaining dims), as Tensor::operator[] does.
Value Value::operator[](const Value& index) const {
  if (index.is_cpp_scalar() || index.dim() == 0) return batched::select(*this, 0, index);
  std::vector<int64_t> shape = index.sizes();
  const std::vector<int64_t> rest = sizes();
  shape.insert(shape.end(), rest.begin() + 1, rest.end());
  return index_select(0, index.flatten()).reshape(shape);
}
Value Value::select(int64_t dim, const Value& index) const {
  return batched::select(*this, dim, index);
}

Value Value::narrow(int64_t dim, const Value& start, int64_t length) const {
  if (start.levels() == 0) {
    const int64_t first = start.physical().item<int64_t>();
    return invariant_view(*this, "narrow", dim, [&](const Tensor& physical, int64_t physical_dim) {
      return physical.narrow(physical_dim, first, length);
    });
  }
  return dispatch(op_index("narrow", OpForm::member), {*this, dim, masked_index(start), length});
}

}  // namespace vmap::batched
