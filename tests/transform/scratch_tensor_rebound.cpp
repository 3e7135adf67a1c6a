// A scratch tensor declared empty, assigned a tensor the same for every example, then
// filled per example: the copies are made after the assignment.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void f(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t;
    t = zeros({2});
    t[0] = x[i].sum();
    out[i] = t;
  }
}
// CHECK-LABEL: void f(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 9
// CHECK: vb::Value t;  // line 10
// CHECK: t = zeros({2});  // line 11
// CHECK: t = vb::where(i == i, t, t);  // clang-vmap: one 't' per example
// CHECK: t[0] = vb::at(x, i).sum();  // line 12
// CHECK: vb::at(out, i) = t;  // line 13
int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat);
  Tensor out = zeros({3, 2});
  f(x, out);
  std::cout << out << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
