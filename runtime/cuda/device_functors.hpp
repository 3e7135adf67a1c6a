// The dispatch from a DeviceOp (Note [Device ops] in backend.hpp) and its operands' dtypes to
// the scalar functor that computes it (vmap/detail/scalar_functors.hpp), for the CUDA
// backend's elementwise kernels and the emulated backend of the tests.
#pragma once

#include "backend.hpp"

#include <vmap/detail/scalar_functors.hpp>

#include <type_traits>

namespace vmap::detail::scalar_functors {

// Calls visit(functor, Type<Out>{}, Type<In>{}...) for the functor of `op` when the dtypes are
// the ones the CPU engine runs it with; returns false (visiting nothing) otherwise.
template <class Visitor>
bool visit_device_op(DeviceOp op, Dtype out, const Dtype* in, int inputs, Visitor&& visit) {
  // out = f(T, ..., T), out's type `Result` (T itself when Result is void).
  auto uniform = [&]<int arity, class F, class Result = void>(
                     F functor, std::integral_constant<int, arity>, Type<Result> = {}) {
    if (inputs != arity) return false;
    for (int j = 1; j < arity; ++j)
      if (in[j] != in[0]) return false;
    return visit_type(in[0], [&]<class T>(Type<T>) {
      using Out = std::conditional_t<std::is_void_v<Result>, T, Result>;
      if constexpr (!accepts_type<F, T>()) {
        return false;
      } else {
        if (out != DtypeOf<Out>::value) return false;
        if constexpr (arity == 1) visit(functor, Type<Out>{}, Type<T>{});
        else if constexpr (arity == 2) visit(functor, Type<Out>{}, Type<T>{}, Type<T>{});
        else visit(functor, Type<Out>{}, Type<T>{}, Type<T>{}, Type<T>{});
        return true;
      }
    });
  };
  constexpr std::integral_constant<int, 1> one;
  constexpr std::integral_constant<int, 2> two;
  constexpr std::integral_constant<int, 3> three;
  auto all_bool = [&](int arity) {
    if (inputs != arity || out != kBool) return false;
    for (int j = 0; j < inputs; ++j)
      if (in[j] != kBool) return false;
    return true;
  };
  switch (op) {
    case DeviceOp::fill: return false;  // sent as convert from a constant (device_ops.cpp)
    case DeviceOp::convert:
      if (inputs != 1) return false;
      return visit_type(out, [&]<class To>(Type<To>) {
        return visit_type(in[0], [&]<class From>(Type<From>) {
          return visit(Convert<To>{}, Type<To>{}, Type<From>{}), true;
        });
      });
    case DeviceOp::add: return uniform(Add{}, two);
    case DeviceOp::sub: return uniform(Sub{}, two);
    case DeviceOp::mul: return uniform(Mul{}, two);
    case DeviceOp::div: return uniform(Div{}, two);
    case DeviceOp::div_trunc: return uniform(DivTrunc{}, two);
    case DeviceOp::remainder_trunc: return uniform(RemainderTrunc{}, two);
    case DeviceOp::add_scaled: return uniform(AddScaled{}, three);
    case DeviceOp::sub_scaled: return uniform(SubScaled{}, three);
    case DeviceOp::maximum: return uniform(Maximum{}, two);
    case DeviceOp::minimum: return uniform(Minimum{}, two);
    case DeviceOp::pow: return uniform(Pow{}, two);
    case DeviceOp::bitwise_and: return uniform(BitwiseAnd{}, two);
    case DeviceOp::bitwise_or: return uniform(BitwiseOr{}, two);
    case DeviceOp::logical_and:
      if (!all_bool(2)) return false;
      return visit(LogicalAnd{}, Type<bool>{}, Type<bool>{}, Type<bool>{}), true;
    case DeviceOp::logical_or:
      if (!all_bool(2)) return false;
      return visit(LogicalOr{}, Type<bool>{}, Type<bool>{}, Type<bool>{}), true;
    case DeviceOp::logical_not:
      if (!all_bool(1)) return false;
      return visit(LogicalNot{}, Type<bool>{}, Type<bool>{}), true;
    case DeviceOp::neg: return uniform(Neg{}, one);
    case DeviceOp::abs: return uniform(Abs{}, one);
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) \
  case DeviceOp::name: return uniform(Functor{}, one);
#define VMAP_BINARY_OP(name, Functor, domain) \
  case DeviceOp::name: return uniform(Functor{}, two);
#define VMAP_COMPARISON_OP(name, Functor, symbol) \
  case DeviceOp::name: return uniform(Functor{}, two, Type<bool>{});
#include <vmap/detail/pointwise_ops.def>
    case DeviceOp::where:
      if (inputs != 3 || in[0] != kBool || in[1] != in[2] || out != in[1]) return false;
      return visit_type(out, [&]<class T>(Type<T>) {
        return visit(Where{}, Type<T>{}, Type<bool>{}, Type<T>{}, Type<T>{}), true;
      });
    case DeviceOp::clamp: return uniform(Clamp{}, three);
  }
  return false;
}

}  // namespace vmap::detail::scalar_functors
