// Softmax attention, one query per example, with a loop-invariant scale.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

// Single-head attention, one query at a time.
void attend(const Tensor& Q, const Tensor& K, const Tensor& V, Tensor& out) {
  const int64_t d = Q.size(1);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
#pragma vmap
  for (int64_t q = 0; q < Q.size(0); ++q) {
    Tensor scores = K.matmul(Q[q]) * scale;
    Tensor weights = softmax(scores, 0);
    out[q] = weights.matmul(V);
  }
}
// CHECK-LABEL: void attend(
// CHECK: vb::Level _b_level0(0, Q.size(0));  // line 12
// CHECK: vb::Value scores = vb::matmul(K, vb::at(Q, q)) * scale;  // line 13
// CHECK: vb::Value weights = vb::softmax(scores, 0);  // line 14
// CHECK: vb::at(out, q) = weights.matmul(V);  // line 15

int main() {
  Tensor Q = (arange(12).reshape({3, 4}).to(kFloat) - 5.0) / 10.0;
  Tensor K = (arange(20).reshape({5, 4}).to(kFloat) * 0.3).sin();
  Tensor V = (arange(15).reshape({5, 3}).to(kFloat) * 0.7).cos();
  Tensor out = zeros({3, 3});
  attend(Q, K, V, out);
  std::cout << out << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
