// Seed workload: elementwise add, one element per example (scalars). Names vmap/batched.hpp only in this comment: the tool must still add the include.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void add_1d(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
    out[i] = a[i] + b[i];
}
// CHECK-LABEL: void add_1d(
// CHECK: vb::at(out, i) = vb::at(a, i) + vb::at(b, i);  // line 9

// The loop bound written with `<=` and `!=`.
void add_1d_bounds(const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t last = a.size(0) - 1;
#pragma vmap
  for (int64_t i = 0; i <= last; i++)
    out[i] = a[i] + b[i];
#pragma vmap
  for (auto k = 0; k != 2; k += 1)
    out[k] = out[k] * 2;
}
// CHECK-LABEL: void add_1d_bounds(
// CHECK: vb::Level _b_level0(0, (last) + 1);  // line 18
// CHECK: vb::Level _b_level0(0, 2);  // line 21
// CHECK-NEXT: const vb::Value k = _b_level0.index();
// CHECK-NEXT: vb::at(out, k) = vb::at(out, k) * 2;  // line 22

int main() {
  Tensor a = arange(8).to(kFloat);
  Tensor b = arange(8).to(kFloat) * 0.25;
  Tensor out = zeros({8});
  add_1d(a, b, out);
  std::cout << out << "\n";
  Tensor out2 = zeros({8});
  add_1d_bounds(a, b, out2);
  std::cout << out2 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
