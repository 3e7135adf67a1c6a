// ATen's type promotion, usable on *logical* operands: the batching rules see physical tensors
// with extra batch dims but must promote as the per-example code would (a per-example 0-d
// tensor is still 0-d there), so promotion takes tagged dtypes, not tensors.
//
// Note [Promotion tiers]
// ATen promotes in three tiers: dimensioned tensors, then 0-d tensors, then wrapped numbers
// (C++ scalars). A lower tier only changes the result when it is of a higher category
// (bool < integral < floating); then the two are promoted with the usual lattice. Wrapped
// floating numbers count as the default dtype (float32), wrapped integers as int64. So
// float32 * float64-0d stays float32, int32 + int64-0d stays int32, int32 * 2.5 is float32,
// and int32 + float64-0d is float64.
#pragma once

#include <vmap/types.hpp>

#include <initializer_list>
#include <optional>

namespace vmap::detail {

enum class OperandKind : int8_t { tensor, zero_dim, wrapped_number };

struct Operand {
  Dtype dtype;
  OperandKind kind;
};

constexpr Operand tensor_operand(Dtype dtype, int64_t logical_dim) {
  return {dtype, logical_dim == 0 ? OperandKind::zero_dim : OperandKind::tensor};
}
constexpr Operand number_operand(Dtype dtype) { return {dtype, OperandKind::wrapped_number}; }

// 0 = bool, 1 = integral, 2 = floating.
constexpr int category(Dtype dtype) { return is_floating(dtype) ? 2 : is_integral(dtype) ? 1 : 0; }

// The promotion lattice of the five dtypes (torch.promote_types).
constexpr Dtype promote_types(Dtype a, Dtype b) {
  if (a == b) return a;
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  // Same category, different dtypes: the wider one.
  return element_size(a) >= element_size(b) ? a : b;
}

// May a value of dtype `from` be stored into dtype `to` by an in-place op (torch.can_cast)?
constexpr bool can_cast(Dtype from, Dtype to) { return category(from) <= category(to); }

namespace promotion_internal {
constexpr std::optional<Dtype> join(std::optional<Dtype> a, Dtype b) {
  return a ? promote_types(*a, b) : b;
}
// ATen's combine_categories(higher, lower).
constexpr std::optional<Dtype> combine(std::optional<Dtype> higher, std::optional<Dtype> lower) {
  if (!lower) return higher;
  if (!higher) return lower;
  if (is_floating(*higher)) return higher;
  if (*higher == kBool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}
}  // namespace promotion_internal

template <class Range>
constexpr Dtype result_type(const Range& operands) {
  std::optional<Dtype> dimensioned, zero_dim, wrapped;
  for (const Operand& operand : operands) {
    switch (operand.kind) {
      case OperandKind::tensor:
        dimensioned = promotion_internal::join(dimensioned, operand.dtype);
        break;
      case OperandKind::zero_dim:
        zero_dim = promotion_internal::join(zero_dim, operand.dtype);
        break;
      case OperandKind::wrapped_number:
        // A C++ `int` is a Scalar, int64, as any integer: a bool tensor * 2 is int64.
        wrapped = promotion_internal::join(
            wrapped, is_floating(operand.dtype)   ? kFloat32
                     : is_integral(operand.dtype) ? kInt64
                                                  : operand.dtype);
        break;
    }
  }
  using promotion_internal::combine;
  return combine(dimensioned, combine(zero_dim, wrapped)).value_or(kFloat32);
}

constexpr Dtype result_type(std::initializer_list<Operand> operands) {
  return result_type<std::initializer_list<Operand>>(operands);
}

// LibTorch's sub_check, in its order: subtraction (`-`, sub, `-=`) with a bool operand on
// either side throws vmap::Error naming `op` (Note [The op the user called]). Checked on the
// operands' own dtypes: after promotion a bool operand is no longer bool (the batched ops
// cast the promoted operands first).
void check_subtraction(const char* op, Dtype a, Dtype b);

static_assert(result_type({tensor_operand(kFloat32, 1), tensor_operand(kFloat64, 0)}) == kFloat32);
static_assert(result_type({tensor_operand(kInt32, 1), tensor_operand(kInt64, 0)}) == kInt32);
static_assert(result_type({tensor_operand(kInt32, 1), number_operand(kFloat64)}) == kFloat32);
static_assert(result_type({tensor_operand(kInt32, 1), tensor_operand(kFloat64, 0)}) == kFloat64);
static_assert(result_type({tensor_operand(kBool, 1), number_operand(kInt64)}) == kInt64);
static_assert(result_type({tensor_operand(kBool, 1), number_operand(kInt32)}) == kInt64);

}  // namespace vmap::detail
