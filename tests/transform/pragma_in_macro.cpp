// _Pragma("vmap") from a macro, alone or with the loop header.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

#define VMAP _Pragma("vmap")
#define FOR_EACH_ROW(i, t) _Pragma("vmap") for (int64_t i = 0; i < (t).size(0); ++i)

void twice(const Tensor& x, Tensor& out, Tensor& out2) {
  VMAP
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * 2;
  FOR_EACH_ROW(r, x) {
    out2[r] = x[r] + 1;
  }
}
// CHECK-LABEL: void twice(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 11
// CHECK: vb::at(out, i) = vb::at(x, i) * 2;  // line 12
// CHECK: vb::Level _b_level0(0, (x).size(0));  // line 13
// CHECK: vb::at(out2, r) = vb::at(x, r) + 1;  // line 14

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat);
  Tensor out = zeros({3, 2});
  Tensor out2 = zeros({3, 2});
  twice(x, out, out2);
  std::cout << out << "\n" << out2 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
