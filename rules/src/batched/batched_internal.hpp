// Internals shared by the batched_*.cpp files: the level and mask stacks, the dispatcher
// from Values to the op table's rules, and writes into places.
#pragma once

#include <vmap/batched.hpp>
#include <vmap/rules/registry.hpp>

#include <optional>
#include <variant>
#include <vector>

namespace vmap::batched {

namespace detail {
// Where a Value read through a data-dependent index came from: base's logical dim `dim`
// at per-example position `index` (Note [Places]).
struct Place {
  Value base;
  int64_t dim;
  Value index;
};
}  // namespace detail

// Private fields of Value, for the implementation files.
struct Access {
  static Value make(Tensor physical, int64_t levels, bool cpp_scalar) {
    return Value(std::move(physical), levels, cpp_scalar);
  }
  static int64_t induction_level(const Value& v) { return v.induction_level_; }
  static void set_induction_level(Value& v, int64_t level) { v.induction_level_ = level; }
  static const std::shared_ptr<const detail::Place>& place(const Value& v) { return v.place_; }
  static void set_place(Value& v, detail::Place place) {
    v.place_ = std::make_shared<const detail::Place>(std::move(place));
  }
  // Pending values (Note [Pending values], batched_fused.hpp): the node while v is pending
  // (its value may have been computed through another copy), else null.
  static const std::shared_ptr<const detail::Pending>& pending(const Value& v) {
    return v.pending_;
  }
  static Value make_pending(std::shared_ptr<const detail::Pending> node, int64_t levels,
                            bool cpp_scalar) {
    Value v;
    v.pending_ = std::move(node);
    v.levels_ = levels;
    v.cpp_scalar_ = cpp_scalar;
    return v;
  }
  // Physical sizes and dtype, known without computing a pending value. The sizes are
  // borrowed (no vector per call: Value::dim() and size() ask often), valid while v is
  // neither computed nor assigned.
  static vmap::detail::IntList physical_sizes(const Value& v);
  static Dtype physical_dtype(const Value& v);
  static void rebind_physical(const Value& v, Tensor physical, int64_t levels) {
    auto& mutable_value = const_cast<Value&>(v);
    mutable_value.pending_.reset();
    mutable_value.physical_ = std::move(physical);
    mutable_value.levels_ = levels;
    mutable_value.place_.reset();
  }
};

// --- levels and masks (thread-local stacks)
int64_t active_levels();
int64_t level_size(int64_t level);
// The first value of a level's index (its loop's start).
int64_t level_start(int64_t level);
bool any_level_empty();
// The effective mask of the innermost live vb::Where (conjunction with the enclosing
// ones), or nullptr.
const Value* current_mask();
// No level is empty and the live mask, if any, holds for some example.
bool some_example_runs();
// Note [Errors no example raises]
// The batched code runs a statement under a mask no example holds (an `if` no example
// takes, the iterations after an example's `break`) or in a loop of no trips (a level of
// size 0: no example at all): the loop as written never runs it, so
// an op's error there (a shape no example would meet, `matmul` of the wrong sizes or
// `row[7]` of a row of 3 in a branch the data never reaches) is not raised: dispatch and the
// views at a fixed position return a number in its place, and store writes nothing. Asked
// only once an error is thrown: no cost when none is.
bool raised_by_no_example();
// Note [One dtype and shape per variable] (batched_value.cpp): whether two Values hold
// tensors of one dtype and per-example shape; which examples `mask` holds; whether every
// example the current mask runs takes `condition` (false: none), vmap::Error where some do
// and some do not (a `?:` of a and b).
bool same_dtype_and_shape(const Value& a, const Value& b);
enum class ExamplesHeld { none, every, some };
ExamplesHeld examples_held(const Value& mask);
bool every_running_example(const Value& condition, const Value& a, const Value& b);
// op(), or a number in its place where it throws and no example runs it.
template <class Op>
Value unless_no_example_runs(const Op& op) {
  try {
    return op();
  } catch (const Error&) {
    if (raised_by_no_example()) return Value(0.0f);
    throw;
  }
}
// A C++ scalar written into a tensor of `to` (`slot = v`, fill_(v), full_like(x, v),
// masked_fill(m, v)) is Tensor::fill_(Scalar) as written, which raises where `to` cannot hold
// the value ("value cannot be converted to type int64_t without overflow"): so does the
// batched write, for the items of the examples the live mask runs, naming `op`, the op the
// loop calls. A tensor's copy_ converts without the check, as LibTorch's does.
void check_fill_value(const char* op, const Value& value, Dtype to);
// LibTorch's sub_check (vmap::detail::check_subtraction) on the operands' dtypes as written,
// where some example runs the subtraction: a batched op may cast a bool operand (the
// promoted operands of a pointwise node) or reduce it (`acc -= e`) before any op sees it.
void check_bool_subtraction(const char* op, Dtype a, Dtype b);

// --- dispatch: one op-table entry, Values in tensor positions.
struct Input {
  std::variant<rules::Arg, Value, std::vector<Value>> value;
  Input(const Value& v) : value(v) {}
  Input(const std::vector<Value>& list) : value(list) {}
  Input(int64_t v) : value(rules::Arg(v)) {}
  Input(int v) : value(rules::Arg(int64_t{v})) {}
  Input(bool v) : value(rules::Arg(v)) {}
  Input(vmap::detail::IntList list) : value(rules::Arg(list.vec())) {}
  Input(Dtype v) : value(rules::Arg(v)) {}
  Input(Device v) : value(rules::Arg(v)) {}
  Input(TensorOptions v) : value(rules::Arg(v)) {}
  Input(vmap::detail::Scalar v) : value(rules::Arg(v)) {}
  Input(std::string_view v) : value(rules::Arg(std::string(v))) {}
};
Value dispatch(std::size_t op, std::vector<Input> inputs);

namespace detail {
// x.dot(y), x.mv(y) or x.matmul(y) of a matrix or vector by a vector (`rule` says which),
// computed over each operand's own levels (Note [Dot products over levels]); nullopt where
// the rule runs it (other ranks, dtypes, or sizes: its checks and messages).
std::optional<Value> dot_over_levels(rules::RuleId rule, const Value& x, const Value& y);
}  // namespace detail

// Note [C++ scalars follow the tensors]
// A C++ scalar (a literal, an induction variable, arithmetic on them) has no device in the
// source; its tensor is made on the CPU. Where it meets device tensors it follows them, as
// LibTorch's wrapped numbers do: one number joins as a 0-d CPU tensor (the runtime passes it
// to the kernel by value), more (the induction index, a number per example) are copied to
// the device. Pending values are computed on the CPU (Note [Pending values]).
// Where `v` lives, without computing it.
Device placed_on(const Value& v);
// `v` on `device` when it is a C++ scalar on the CPU; otherwise `v` itself.
Value follow_device(const Value& v, Device device);

// Op-table indices resolved at compile time; a typo or a removed entry fails to compile.
consteval std::size_t op_index(std::string_view name, rules::OpForm form, int arity = -1) {
  const std::size_t index = rules::find_op(name, form, arity);
  if (index == rules::kNoOp) throw "no such op-table entry";
  return index;
}
consteval std::size_t op_index(std::string_view name, rules::OpForm form,
                               std::initializer_list<rules::ArgKind> params) {
  const std::size_t index = rules::find_op(name, form, params);
  if (index == rules::kNoOp) throw "no such op-table entry";
  return index;
}

// --- writes (Note [Places])
// Writes `value` into the elements `place` views (or scatters, for a gathered place),
// masked by the current vb::Where.
void store(const Value& place, const Value& value);
// Whether `place` can hold a write of `value` without a materialised copy.
bool can_hold(const Value& place, const Value& value);

// C++ arithmetic on two C++-scalar Values: the common dtype of the usual conversions.
Dtype cpp_common_dtype(Dtype a, Dtype b);

}  // namespace vmap::batched
