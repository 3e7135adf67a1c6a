// Every store form of SPEC section 2.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void store_forms(const Tensor& x, const Tensor& idx, Tensor& a, Tensor& b, Tensor& c) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    a[i][0] = x[i].sum();                        // constant sub-index
    a[i][1] = 7.0;                               // a scalar
    b.select(1, i) = x[i] * 2;                   // select
    c[i].copy_(x[i]);                            // copy_
    c[i] += 1;                                   // in place on the slot
    c[i][idx[i].item<int64_t>()] = -1.0;         // data-dependent position in the slot
  }
}
// CHECK-LABEL: void store_forms(
// CHECK: vb::at(a, i)[0] = vb::at(x, i).sum();  // line 9
// CHECK-NEXT: vb::at(a, i)[1] = 7.0;  // line 10
// CHECK-NEXT: vb::select(b, 1, i) = vb::at(x, i) * 2;  // line 11
// CHECK-NEXT: vb::at(c, i).copy_(vb::at(x, i));  // line 12
// CHECK-NEXT: vb::at(c, i) += 1;  // line 13
// CHECK-NEXT: vb::at(c, i)[vb::at(idx, i).item<int64_t>()] = -1.0;  // line 14

void fill_and_zero(Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < out.size(0); ++i) {
    out[i].fill_(i);
    out[i][0].zero_();
    out[i][1] = 5;
    out[i][1] = 6;                               // several stores: the last wins
  }
}
// CHECK-LABEL: void fill_and_zero(
// CHECK: vb::at(out, i).fill_(i);  // line 28
// CHECK-NEXT: vb::at(out, i)[0].zero_();  // line 29
// CHECK-NEXT: vb::at(out, i)[1] = 5;  // line 30
// CHECK-NEXT: vb::at(out, i)[1] = 6;  // line 31
// CHECK-NOT: unsafe_overlap

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat);
  Tensor idx = tensor({2, 0, 1, 2});
  Tensor a = zeros({4, 2});
  Tensor b = zeros({3, 4});
  Tensor c = zeros({4, 3});
  store_forms(x, idx, a, b, c);
  std::cout << a << "\n" << b << "\n" << c << "\n";
  Tensor out = zeros({3, 4}, kInt64);
  fill_and_zero(out);
  std::cout << out << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
