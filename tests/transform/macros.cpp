// Macros: object-like constants, function-like macros of per-example values (rewritten
// in their arguments, or replaced whole when the expansion is one call), a macro bound.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

#define EPS 1e-3
#define SQ(t) ((t) * (t))
#define ROWS(t) (t).size(0)
#define ROOT(v) std::sqrt(v)
#define HALF(v) (v) / 2.0f

void macro_rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < ROWS(x); ++i)
    out[i] = SQ(x[i]) + EPS;
}
// CHECK-LABEL: void macro_rows(
// CHECK: vb::Level _b_level0(0, ROWS(x));  // line 16
// CHECK: vb::at(out, i) = SQ(vb::at(x, i)) + EPS;  // line 17

void macro_scalars(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float s = x[i].sum().item<float>();
    out[i] = ROOT(std::fabs(s)) + HALF(s);
  }
}
// CHECK-LABEL: void macro_scalars(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 25
// CHECK: vb::Value s = vb::at(x, i).sum().item<float>();  // line 26
// CHECK: vb::at(out, i) = vb::sqrt(vb::fabs(s)) + HALF(s);  // line 27

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat) - 2.0;
  Tensor out = zeros({3, 2});
  macro_rows(x, out);
  Tensor out2 = zeros({3});
  macro_scalars(x, out2);
  std::cout << out << "\n" << out2 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
