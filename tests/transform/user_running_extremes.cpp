// Running max/min into tensors and C++ scalars (std::max), and a double sum.
#include <vmap/vmap.hpp>
#include <algorithm>
#include <iostream>
using namespace vmap;

void column_extremes(const Tensor& x, Tensor& hi, Tensor& lo, float& best, double& total) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    hi = maximum(hi, x[i]);
    lo = minimum(lo, x[i]);
    float m = x[i].amax(0).item<float>();
    best = std::max(best, m);
    total += x[i].sum().item<double>();
  }
}
// CHECK-LABEL: void column_extremes(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 9
// CHECK: vb::accumulate_rebinding(hi, vb::at(x, i), vb::Reduce::max);  // line 10
// CHECK: vb::accumulate_rebinding(lo, vb::at(x, i), vb::Reduce::min);  // line 11
// CHECK: vb::Value m = vb::at(x, i).amax(0).item<float>();  // line 12
// CHECK: vb::accumulate(best, m, vb::Reduce::max);  // line 13
// CHECK: vb::accumulate(total, vb::at(x, i).sum().item<double>(), vb::Reduce::add);  // line 14

int main() {
  Tensor x = (arange(21).reshape({7, 3}).to(kFloat) * 1.3).sin() * 10.0;
  Tensor hi = full({3}, -1e9);
  Tensor lo = full({3}, 1e9);
  float best = -1e30f;
  double total = 0.5;
  column_extremes(x, hi, lo, best, total);
  std::cout << hi << "\n" << lo << "\n" << best << " " << total << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
