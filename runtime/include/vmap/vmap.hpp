// The clang-vmap tensor runtime: everything of SPEC section 4.
#pragma once

#include <vmap/detail/promotion.hpp>
#include <vmap/tensor.hpp>
#include <vmap/types.hpp>

#include <type_traits>

// Note [User batching rules]
// `VMAP_BATCHED(score, score_batched);` after both functions are declared, at namespace
// scope, tells clang-vmap that score_batched computes score for a whole batch (SPEC section
// 7): in a vmap loop, `score(a, b)` becomes `score_batched(A, B)`, every argument whose
// parameter of score_batched is a Tensor stacked along a new leading dim (vb::stacked), and
// the result is taken as the per-example results stacked along dim 0. The macro is a
// static_assert that compiles away; clang-vmap finds the rule by the call in it, and a
// compiler checks the parameter lists without the tool: as many parameters, a Tensor of
// score a Tensor of score_batched (a number of score may be one too: it then receives the
// examples' numbers as a 1-d tensor), and score_batched returns a Tensor for score's
// Tensor or number.
namespace vmap::detail {
template <class T>
inline constexpr bool is_tensor_parameter = std::is_same_v<std::remove_cvref_t<T>, Tensor>;

template <class R, class... P, class RB, class... PB>
consteval bool user_rule_arity(R (*)(P...), RB (*)(PB...)) {
  return sizeof...(P) == sizeof...(PB);
}

template <class R, class... P, class RB, class... PB>
consteval bool user_rule_types(R (*)(P...), RB (*)(PB...)) {
  if constexpr (sizeof...(P) != sizeof...(PB))
    return true;  // user_rule_arity says so
  else
    return (is_tensor_parameter<R> || std::is_arithmetic_v<R>) && is_tensor_parameter<RB> &&
           ((!is_tensor_parameter<P> || is_tensor_parameter<PB>) && ...);
}
}  // namespace vmap::detail

#define VMAP_BATCHED(function, batched_function)                                        \
  static_assert(::vmap::detail::user_rule_arity(&function, &batched_function),          \
                "VMAP_BATCHED(" #function ", " #batched_function "): the two functions "  \
                "must take as many parameters");                                        \
  static_assert(::vmap::detail::user_rule_types(&function, &batched_function),          \
                "VMAP_BATCHED(" #function ", " #batched_function "): each Tensor "        \
                "parameter of " #function " must be a Tensor of " #batched_function      \
                ", which must return a Tensor (" #function " a Tensor or a number)")
