// Calling any op of the table, unbatched or batched, through one uniform signature.
//
// Note [Rule registry]
// registry.cpp holds one binding per op-table entry, in table order (a static_assert
// checks name, form and count): the op itself applied to unbatched arguments (its
// "reference"). The entry's RuleId picks the batching rule; generic rules (pointwise,
// dim-shifting) get the op through the reference and call it on batched physical tensors,
// the rest (rules.hpp) are typed functorch-style functions. The batched API, vmap::vmap
// and the property tests all dispatch through here.
#pragma once

#include <vmap/rules/helpers.hpp>
#include <vmap/rules/op_table.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace vmap::rules {

// One tensor argument. `wrapped_number`: it stands for a C++ scalar (ATen's lowest
// promotion tier), so its logical rank is 0.
struct TensorArg {
  Tensor value;
  BatchDim bdim;
  bool wrapped_number = false;
};

// One argument of a call; std::monostate leaves a defaulted position out.
using Arg = std::variant<std::monostate, TensorArg, std::vector<TensorArg>, int64_t,
                         std::vector<int64_t>, detail::Scalar, bool, Dtype, Device, TensorOptions,
                         std::string>;
using Args = std::span<const Arg>;

// Typed access to the arguments of a call, with LibTorch's defaults for left-out ones.
class CallArgs {
 public:
  explicit CallArgs(Args args) : args_(args) {}
  std::size_t size() const { return args_.size(); }
  bool given(std::size_t i) const {
    return i < args_.size() && !std::holds_alternative<std::monostate>(args_[i]);
  }
  const TensorArg& tensor_arg(std::size_t i) const;
  const Tensor& tensor(std::size_t i) const { return tensor_arg(i).value; }
  // A tensor or a C++ scalar position, the scalar as a wrapped-number 0-d tensor.
  TensorArg operand(std::size_t i) const;
  std::vector<Tensor> tensors(std::size_t i) const;
  const std::vector<TensorArg>& tensor_args(std::size_t i) const;
  int64_t integer(std::size_t i, int64_t fallback = 0) const;
  std::vector<int64_t> integers(std::size_t i) const;  // an int64 or a list of them
  detail::Scalar scalar(std::size_t i) const;          // a Scalar, or a 0-d unbatched tensor
  detail::Scalar scalar(std::size_t i, detail::Scalar fallback) const {
    return given(i) ? scalar(i) : fallback;
  }
  bool flag(std::size_t i, bool fallback = false) const;
  TensorOptions options(std::size_t i) const;
  std::string_view text(std::size_t i, std::string_view fallback) const;
  const Arg& raw(std::size_t i) const { return args_[i]; }

 private:
  const Arg& at(std::size_t i) const;
  Args args_;
};

using Reference = Tensor (*)(const CallArgs&);

// The op of table entry `op` on unbatched arguments.
Tensor call_reference(std::size_t op, Args args);
// The batching rule of table entry `op`: the result and its batch dim.
BatchedResult call_rule(std::size_t op, Args args);
// After op `op` failed on `args` whose tensors lead with `levels` level dims (broadcast
// against each other): runs it on each example in order and lets the first example's error
// out (Note [Errors in per-example shapes] in registry.cpp); returns if none fails.
void throw_first_example_error(std::size_t op, Args args, int64_t levels);

}  // namespace vmap::rules
