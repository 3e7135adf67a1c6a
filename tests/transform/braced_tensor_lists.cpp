// Braced tensor lists with per-example and loop-invariant elements (stack, cat).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void summaries(const Tensor& Q, const Tensor& K, const Tensor& bias, Tensor& out,
               Tensor& joined) {
#pragma vmap
  for (int64_t b = 0; b < Q.size(0); ++b) {
    out[b] = stack({Q[b].sum(1), K[b].amax(1), bias}, 0);
    joined[b] = cat({Q[b][0], K[b][1]}, 0);
  }
}
// CHECK-LABEL: void summaries(
// CHECK: vb::Level _b_level0(0, Q.size(0));  // line 9
// CHECK: vb::at(out, b) = vb::stack({vb::at(Q, b).sum(1), vb::at(K, b).amax(1), bias}, 0);  // line 10
// CHECK: vb::at(joined, b) = vb::cat({vb::at(Q, b)[0], vb::at(K, b)[1]}, 0);  // line 11

int main() {
  Tensor Q = arange(24).reshape({2, 3, 4}).to(kFloat);
  Tensor K = (arange(24).reshape({2, 3, 4}).to(kFloat) * 0.5).cos();
  Tensor bias = tensor({1.0f, 2.0f, 3.0f});
  Tensor out = zeros({2, 3, 3});
  Tensor joined = zeros({2, 8});
  summaries(Q, K, bias, out, joined);
  std::cout << out << "\n" << joined << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
