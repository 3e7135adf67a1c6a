// A tensor made in the body and filled per example gets one copy per example.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// A scratch tensor allocated in the body and filled per example.
void features(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor f = zeros({3});
    f[0] = x[i].sum();
    f[1] = x[i].amax(0);
    f[2] = x[i].amin(0);
    out[i] = f;
  }
}
// CHECK-LABEL: void features(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 9
// CHECK: vb::Value f = zeros({3});  // line 10
// CHECK: f = vb::where(i == i, f, f);  // clang-vmap: one 'f' per example
// CHECK: f[0] = vb::at(x, i).sum();  // line 11
// CHECK: f[1] = vb::at(x, i).amax(0);  // line 12
// CHECK: f[2] = vb::at(x, i).amin(0);  // line 13
// CHECK: vb::at(out, i) = f;  // line 14

int main() {
  Tensor x = (arange(12).reshape({4, 3}).to(kFloat) * 0.9).sin();
  Tensor out = zeros({4, 3});
  features(x, out);
  std::cout << out << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
