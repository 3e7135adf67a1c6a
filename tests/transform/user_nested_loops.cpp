// A plain inner loop with an invariant bound, and nested vmap loops.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Outer vmap over batch, plain inner loop over a fixed number of features, and a
// nested vmap loop over columns.
void scale_features(const Tensor& x, const Tensor& w, Tensor& out, Tensor& outer) {
  const int64_t F = x.size(1);
#pragma vmap
  for (int64_t b = 0; b < x.size(0); ++b) {
    for (int64_t f = 0; f < F; ++f)
      out[b][f] = x[b][f] * w[f] + f;
  }
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < w.size(0); ++j)
      outer[i][j] = x[i].sum() * w[j] - i + j;
  }
}
// CHECK-LABEL: void scale_features(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 11
// The plain loop's trips are independent: it runs as a level (Note [Plain loops as levels]).
// CHECK: vb::Level _b_level1(0, F);  // line 12
// CHECK-NEXT: const vb::Value f = _b_level1.index();
// CHECK-NEXT: vb::at(out, b)[f] = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& c, const auto& f) { return a * c + f; }, vb::at(x, b)[f], vb::at(w, f), f);  // line 13
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 16
// CHECK: vb::Level _b_level1(0, w.size(0));  // line 18
// CHECK: vb::at(outer, i)[j] = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& i, const auto& j) { return a * b - i + j; }, vb::at(x, i).sum(), vb::at(w, j), i, j);  // line 19

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat);
  Tensor w = tensor({0.5f, -1.0f, 2.0f});
  Tensor out = zeros({4, 3});
  Tensor outer = zeros({4, 3});
  scale_features(x, w, out, outer);
  std::cout << out << "\n" << outer << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
