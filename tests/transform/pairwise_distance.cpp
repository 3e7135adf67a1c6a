// Seed workload: squared distances between every row of a and every row of b.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void pairwise_distance(const Tensor& a, const Tensor& b, Tensor& squares) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < b.size(0); ++j) {
      squares[i][j] = sum((a[i] - b[j]).pow(2));
    }
  }
}

int main() {
  Tensor a = arange(12).reshape({4, 3}).to(kFloat);
  Tensor b = arange(6).reshape({2, 3}).to(kFloat) * 1.5;
  Tensor squares = zeros({4, 2});
  pairwise_distance(a, b, squares);
  std::cout << squares << "\n";
}

// The overlap fallback runs the original loop without its pragmas. Even the same view is
// unsafe: example (i, j) reads all of a[i], which examples (i, j') write.
// CHECK: if (::vmap::batched::any_overlap(squares, a) ||
// CHECK-NEXT: ::vmap::batched::any_overlap(squares, b)) {
// CHECK-NEXT: {{^    }}for (int64_t i = 0; i < a.size(0); ++i) {
// CHECK-NEXT: {{^      }}for (int64_t j = 0; j < b.size(0); ++j) {
// CHECK-NEXT: {{^        }}squares[i][j] = sum((a[i] - b[j]).pow(2));
// CHECK: } else { // clang-vmap: batched from line 8
// CHECK: vb::Level _b_level1(0, b.size(0));  // line 10
// CHECK-NEXT: const vb::Value j = _b_level1.index();
// CHECK-NEXT: vb::at(squares, i)[j] = vb::sum(vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& c, const auto& d) { return (c - d).pow(2); }, vb::at(a, i), vb::at(b, j)));  // line 11

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
