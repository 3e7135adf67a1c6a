// The names the rewrite relies on (`vb`, `vmap`, `_b_level0`, `i`, `batched`) declared by
// the user in every scope: a namespace, a class (members read in the loop), a function's
// locals and parameters, a lambda's captures, and a global `batched` spelled `::batched`.
// Each rewritten loop builds and computes what it computes as written.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
using namespace vmap;

float batched = 0.25f;  // global: used as ::batched (user_global_batched.cpp otherwise)

namespace lab {
const float vb = 2.0f;
const int64_t _b_level0 = 3;
namespace vmap {  // hides ::vmap inside lab: the rewrite names ::vmap::batched
const int i = 5;
}

struct Layer {
  float vb = 1.5f;
  int64_t _b_level0 = 2;
  double batched = 0.5;
  // Members read in the body are loop-invariant.
  void apply(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = x[i] * vb + _b_level0 - batched + vmap::i;
  }
};

void with_locals(const Tensor& x, Tensor& out, float vb) {
  const int64_t i = 4;  // shadowed by the loop's own i below
  float batched = ::batched * 4;
#pragma vmap
  for (int64_t k = 0; k < x.size(0); ++k) {
    float _b_level0 = static_cast<float>(k) + batched;
    out[k] = x[k] * vb + _b_level0 + i + lab::vb;
  }
}
}  // namespace lab

void with_lambda(const Tensor& x, Tensor& out) {
  const float vb = 3.0f;
  int64_t _b_level0 = 1;
  auto run = [vb, &_b_level0, &x, &out](float batched) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = x[i] * vb - _b_level0 + batched + ::batched;
  };
  run(0.125f);
}

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat32) - 5;
  Tensor out = zeros({4, 3});
  lab::Layer{}.apply(x, out);
  std::cout << out << "\n";
  lab::with_locals(x, out, -1.0f);
  std::cout << out << "\n";
  with_lambda(x, out);
  std::cout << out << "\n";
}

// CHECK-LABEL: void apply(
// CHECK: namespace vb_1 = ::vmap::batched;
// CHECK-LABEL: void with_locals(
// CHECK: namespace vb_1 = ::vmap::batched;
// CHECK: vb_1::Value _b_level0 = vb_1::scalar_cast<float>(k) + batched;
// CHECK-LABEL: void with_lambda(
// CHECK: namespace vb_1 = ::vmap::batched;

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
