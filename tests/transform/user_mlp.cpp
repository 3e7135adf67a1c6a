// A two-layer MLP per example (linear, relu, mv, log_softmax, argmax).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// A two-layer MLP per example, with a residual and argmax prediction.
void mlp(const Tensor& x, const Tensor& W1, const Tensor& b1, const Tensor& W2,
         const Tensor& b2, Tensor& logits, Tensor& pred) {
#pragma vmap
  for (int64_t n = 0; n < x.size(0); ++n) {
    Tensor h = linear(x[n], W1, b1).relu();
    Tensor o = W2.mv(h) + b2;
    logits[n] = log_softmax(o, 0);
    pred[n] = o.argmax(0);
  }
}
// CHECK-LABEL: void mlp(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 10
// CHECK: vb::Value h = vb::linear(vb::at(x, n), W1, b1).relu();  // line 11
// CHECK: vb::Value o = vb::mv(W2, h) + b2;  // line 12
// CHECK: vb::at(logits, n) = vb::log_softmax(o, 0);  // line 13
// CHECK: vb::at(pred, n) = o.argmax(0);  // line 14

int main() {
  Tensor x = (arange(20).reshape({5, 4}).to(kFloat) * 0.37).cos();
  Tensor W1 = (arange(24).reshape({6, 4}).to(kFloat) * 0.11).sin();
  Tensor b1 = full({6}, 0.1);
  Tensor W2 = (arange(18).reshape({3, 6}).to(kFloat) * 0.23).cos();
  Tensor b2 = zeros({3});
  Tensor logits = zeros({5, 3});
  Tensor pred = zeros({5}, kInt64);
  mlp(x, W1, b1, W2, b2, logits, pred);
  std::cout << logits << "\n" << pred << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
