// In-place ops on a slot: -=, a constant sub-index, fill_/zero_ under a per-example if.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void update(const Tensor& g, Tensor& w, Tensor& hits) {
#pragma vmap
  for (int64_t i = 0; i < w.size(0); ++i) {
    w[i] -= g[i] * 0.1;
    w[i][0] = 0.0;
    if (g[i].sum().item<float>() < 0)
      hits[i].fill_(1);
    else
      hits[i].zero_();
  }
}
// CHECK-LABEL: void update(
// CHECK: vb::Level _b_level0(0, w.size(0));  // line 8
// CHECK: vb::at(w, i) -= vb::at(g, i) * 0.1;  // line 9
// CHECK: vb::at(w, i)[0] = 0.0;  // line 10
// CHECK: { vb::Where _b_where0(vb::at(g, i).sum().item<float>() < 0);  // line 11
// CHECK: vb::at(hits, i).fill_(1);  // line 12
// CHECK: vb::at(hits, i).zero_();  // line 14

int main() {
  Tensor g = arange(12).reshape({4, 3}).to(kFloat) - 6.0;
  Tensor w = ones({4, 3});
  Tensor hits = full({4, 2}, 5);
  update(g, w, hits);
  std::cout << w << "\n" << hits << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
