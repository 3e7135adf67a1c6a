// `if` on a per-example condition becomes a mask; on a loop-invariant one it stays.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void masked(const Tensor& x, Tensor& out, Tensor& flags) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float s = x[i].sum().item<float>();
    Tensor y = x[i];
    if (s > 10) {
      y = y * 2;
      flags[i] = 1;                  // a store in one branch only
    } else if (s > 3) {
      y = y - 1;
    } else {
      y = -y;
    }
    out[i] = y;
  }
}
// CHECK-LABEL: void masked(
// CHECK: vb::Value s = vb::at(x, i).sum().item<float>();  // line 9
// CHECK-NEXT: vb::Value y = vb::at(x, i);  // line 10
// CHECK-NEXT: { vb::Where _b_where0(s > 10);  // line 11
// CHECK-NEXT: {
// CHECK-NEXT: y = y * 2;  // line 12
// CHECK-NEXT: vb::at(flags, i) = 1;  // line 13
// CHECK-NEXT: }
// CHECK-NEXT: _b_where0.flip();
// CHECK-NEXT: { vb::Where _b_where1(s > 3);  // line 14
// CHECK-NEXT: {
// CHECK-NEXT: y = y - 1;  // line 15
// CHECK-NEXT: }
// CHECK-NEXT: _b_where1.flip();
// CHECK-NEXT: {
// CHECK-NEXT: y = -y;  // line 17
// CHECK: vb::at(out, i) = y;  // line 19

void invariant_if(const Tensor& x, bool twice, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (twice)
      out[i] = x[i] * 2;
    else
      out[i] = x[i];
  }
}
// CHECK-LABEL: void invariant_if(
// CHECK: if (twice) {  // line 43
// CHECK-NEXT: vb::at(out, i) = vb::at(x, i) * 2;  // line 44
// CHECK-NEXT: } else {
// CHECK-NEXT: vb::at(out, i) = vb::at(x, i);  // line 46

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) - 2.0;
  Tensor out = zeros({4, 3});
  Tensor flags = zeros({4}, kInt64);
  masked(x, out, flags);
  std::cout << out << "\n" << flags << "\n";
  Tensor out2 = zeros({4, 3});
  invariant_if(x, true, out2);
  std::cout << out2 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
