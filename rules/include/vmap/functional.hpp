// vmap::vmap: batching for callables at run time, on the same rules as the rewritten code
// (an addition to SPEC section 4, which lists only the names the tool's users write).
//
//   auto batched_norm = vmap::vmap([](const vmap::batched::Value& x) { return
//   x.pow(2).sum().sqrt(); }); Tensor norms = batched_norm(rows);              // rows [B, n] ->
//   norms [B] auto pairwise = vmap::vmap([&](const auto& a) {   // nested calls nest
//     return vmap::vmap([&](const auto& b) { return (a - b).abs().sum(); })(points);
//   });
//
// `in_dims[k]` is the dim of argument k that holds the examples (std::nullopt: the same
// for every example; missing entries default to 0); `out_dim` is where the examples go in
// the result. `f` receives vmap::batched::Value arguments and returns a Value (or Tensor).
// Called with Tensors it returns a Tensor; called with Values (inside another vmap) it
// returns a Value, one level deeper.
#pragma once

#include <vmap/batched.hpp>

#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace vmap {

namespace functional_detail {

// The argument as a Value with one more level: its `in_dim` becomes the new level dim.
batched::Value enter_level(const batched::Value& argument, std::optional<int64_t> in_dim,
                           int64_t outer_levels);
// The examples' common size along their in_dims (they must agree).
int64_t batch_size(const std::vector<batched::Value>& arguments,
                   const std::vector<std::optional<int64_t>>& in_dims, int64_t outer_levels);
// The result with the innermost level dim moved to logical dim `out_dim` (expanded when the
// result does not vary per example).
batched::Value leave_level(const batched::Value& result, int64_t out_dim, int64_t outer_levels,
                           int64_t batch);
int64_t active_levels();

template <class T>
inline constexpr bool is_value = std::is_same_v<std::remove_cvref_t<T>, batched::Value>;

}  // namespace functional_detail

template <class F>
auto vmap(F f, std::vector<std::optional<int64_t>> in_dims = {}, int64_t out_dim = 0) {
  return [f = std::move(f), in_dims = std::move(in_dims), out_dim](const auto&... arguments) {
    namespace fd = functional_detail;
    const int64_t outer = fd::active_levels();
    const std::vector<batched::Value> values{batched::Value(arguments)...};
    std::vector<std::optional<int64_t>> dims = in_dims;
    dims.resize(values.size(), 0);
    const int64_t batch = fd::batch_size(values, dims, outer);
    batched::Value result;
    {
      batched::Level level(0, batch);
      std::vector<batched::Value> inner;
      for (std::size_t k = 0; k < values.size(); ++k)
        inner.push_back(fd::enter_level(values[k], dims[k], outer));
      auto call = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return batched::Value(f(inner[I]...));
      };
      result = call(std::index_sequence_for<decltype(arguments)...>{});
    }
    batched::Value out = fd::leave_level(result, out_dim, outer, batch);
    if constexpr ((fd::is_value<decltype(arguments)> || ...)) {
      return out;
    } else {
      return out.physical();
    }
  };
}

}  // namespace vmap
