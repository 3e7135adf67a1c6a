// Per-example scalar code compiled whole: what rewritten code calls for a region of
// per-example control flow over C++ scalars (Note [Fused control flow] in transform/fuse_scalar.cpp).
//
// Note [Scalar kernels]
// A per-example `while` over C++ scalars (Mandelbrot's escape loop) runs batched with masks
// (Note [Control masks]): every iteration is several runtime ops over every example, and
// the loop runs the largest trip count of them all. Where the tool sees that a region's
// values are all C++ scalars (per-example elements read with `.item<T>()`, numbers the same
// for every example, the region's own locals) and its result is one per-example value, it
// prints the region as written in a lambda whose parameters have the C++ types the code
// declares,
//
//   vb::at(vb::at(counts, y), x) = vb::fused_scalar([](float cr, float ci, int max_iter) {
//     float zr = 0.0f, zi = 0.0f;
//     int k = 0;
//     while (k < max_iter && zr * zr + zi * zi < 4.0f) { ... }
//     return k;
//   }, vb::at(re, x).item<float>(), vb::at(im, y).item<float>(), max_iter);
//
// and vb::fused_scalar calls it once per example, as the loop written per example does
// (ISPC's "uniform"/"varying" split, done per lane: each lane is independent, so no masks
// are needed inside): every active level at its full size, examples in chunks on OpenMP
// threads taken dynamically (each example runs its own number of iterations). Its operands
// are read as the parameters' C++ types (each per-example one converted once, before the
// loop, to the dtype that holds it), the result is a per-example C++ scalar of the lambda's
// return type. Under a live vb::Where (the region inside a per-example `if`, or in a batched
// clone called under one) only the active examples run: an inactive one might loop forever.
// On a device the operands are copied to the CPU and the result back. Results are those of
// the code as written (the same C++ on the same types), to the bit.
#pragma once

#include <vmap/batched.hpp>

#include <array>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace vmap::batched {

namespace detail {

// The operands of a scalar kernel, each per-example one a contiguous CPU tensor over every
// active level at its full size, in the dtype asked for it.
struct ScalarKernelLayout {
  int64_t levels = 0;
  std::vector<int64_t> sizes;  // every active level's size
  int64_t count = 1;           // their product
  std::vector<Tensor> operands;
  Tensor active;  // bool [sizes], the live vb::Where's mask; undefined when none is live
  Device device = kCPU;  // where the operands live, and the result goes
};
ScalarKernelLayout plan_scalar_kernel(const std::vector<Value>& operands,
                                      const std::vector<Dtype>& dtypes);
// Calls body(begin, end) over [0, count) in small chunks that OpenMP threads take as they
// finish the one before (the examples' costs differ).
void parallel_chunks(int64_t count, const std::function<void(int64_t, int64_t)>& body);
// `result` (of the layout's sizes, on the CPU) as a per-example C++ scalar.
Value scalar_kernel_value(const ScalarKernelLayout& layout, const Tensor& result);

template <class Call>
struct KernelSignature;
template <class Lambda, class R, class... P>
struct KernelSignature<R (Lambda::*)(P...) const> {
  using Result = std::remove_cvref_t<R>;
  using Parameters = std::tuple<std::remove_cvref_t<P>...>;
};
// The element type of the dtype that holds a C++ scalar of type T (cpp_dtype's).
template <class T>
using HeldAs = std::conditional_t<
    std::is_same_v<T, bool>, bool,
    std::conditional_t<std::is_floating_point_v<T>,
                       std::conditional_t<(sizeof(T) <= 4), float, double>,
                       std::conditional_t<(sizeof(T) <= 4 && std::is_signed_v<T>), int32_t,
                                          int64_t>>>;

}  // namespace detail

// The per-example scalar code `kernel` (a lambda with typed parameters) on `args`: Values
// (per-example C++ scalars) and numbers, one per parameter. Note [Scalar kernels].
template <class Kernel, class... Args>
Value fused_scalar(const Kernel& kernel, const Args&... args) {
  const profile::detail::OpScope profiled("fused scalar");
  using Signature = detail::KernelSignature<decltype(&Kernel::operator())>;
  using Parameters = typename Signature::Parameters;
  using R = typename Signature::Result;
  static_assert(std::tuple_size_v<Parameters> == sizeof...(Args),
                "vb::fused_scalar: one argument per parameter of the kernel");
  using Operands = std::tuple<std::conditional_t<std::is_arithmetic_v<Args>, Args, Value>...>;
  const Operands operands(args...);
  constexpr std::size_t kCount = sizeof...(Args);
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    std::vector<Value> values;
    std::vector<Dtype> dtypes;
    (
        [&] {
          if constexpr (std::is_same_v<std::tuple_element_t<I, Operands>, Value>) {
            values.push_back(std::get<I>(operands));
            dtypes.push_back(detail::cpp_dtype<std::tuple_element_t<I, Parameters>>());
          }
        }(),
        ...);
    const detail::ScalarKernelLayout layout = detail::plan_scalar_kernel(values, dtypes);
    // Each parameter's elements (a per-example operand) or null (a number).
    std::array<const void*, kCount> data{};
    std::size_t next = 0;
    ((data[I] = std::is_same_v<std::tuple_element_t<I, Operands>, Value>
                    ? layout.operands[next++].raw_data()
                    : nullptr),
     ...);
    const auto argument = [&]<std::size_t J>(std::integral_constant<std::size_t, J>, int64_t p) {
      using P = std::tuple_element_t<J, Parameters>;
      if constexpr (std::is_same_v<std::tuple_element_t<J, Operands>, Value>)
        return static_cast<P>(static_cast<const detail::HeldAs<P>*>(data[J])[p]);
      else
        return static_cast<P>(std::get<J>(operands));
    };
    using Held = detail::HeldAs<R>;
    Tensor result = vmap::empty(layout.sizes, vmap::detail::dtype_of<Held>);
    Held* out = result.template data_ptr<Held>();
    const bool* active = layout.active.defined() ? layout.active.template data_ptr<bool>() : nullptr;
    detail::parallel_chunks(layout.count, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p)
        out[p] = !active || active[p]
                     ? static_cast<Held>(
                           kernel(argument(std::integral_constant<std::size_t, I>{}, p)...))
                     : Held{};
    });
    return detail::scalar_kernel_value(layout, result);
  }(std::index_sequence_for<Args...>{});
}

}  // namespace vmap::batched
