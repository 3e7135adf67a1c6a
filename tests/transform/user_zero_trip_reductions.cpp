// A zero-trip vmap loop leaves outputs and accumulators as they were.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void maybe_empty(const Tensor& x, int64_t n, Tensor& out, Tensor& acc, float& s) {
#pragma vmap
  for (int64_t i = 0; i < n; ++i) {
    out[i] = x[i] * 2;
    acc += x[i];
    s += x[i].sum().item<float>();
  }
}
// CHECK-LABEL: void maybe_empty(
// CHECK: vb::Level _b_level0(0, n);  // line 8
// CHECK: vb::at(out, i) = vb::at(x, i) * 2;  // line 9
// CHECK: vb::accumulate(acc, vb::at(x, i), vb::Reduce::add);  // line 10
// CHECK: vb::accumulate(s, vb::at(x, i).sum().item<float>(), vb::Reduce::add);  // line 11

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat);
  Tensor out = full({3, 2}, 7.0);
  Tensor acc = full({2}, 1.5);
  float s = 4.0f;
  maybe_empty(x, 0, out, acc, s);
  std::cout << out << "\n" << acc << "\n" << s << "\n";
  maybe_empty(x, 2, out, acc, s);
  std::cout << out << "\n" << acc << "\n" << s << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
