// An RNN per example: a plain inner loop rebinding a local, constant sub-index stores,
// a metadata local.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void rnn(const Tensor& x, const Tensor& W, const Tensor& U, int steps, Tensor& out,
         Tensor& stats) {
#pragma vmap
  for (int64_t b = 0; b < x.size(0); ++b) {
    Tensor h = zeros({W.size(0)});
    for (int t = 0; t < steps; ++t)
      h = (W.matmul(h) + U.matmul(x[b][t])).tanh();
    out[b] = h;
    stats[b][0] = h.sum();
    stats[b][1] = h.amax(0);
    int64_t n = x[b].size(0);
    stats[b][2] = n;
  }
}
// CHECK-LABEL: void rnn(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 10
// CHECK: vb::Value h = zeros({W.size(0)});  // line 11
// CHECK: for (int t = 0; t < steps; ++t) {  // line 12
// CHECK: h = (vb::matmul(W, h) + vb::matmul(U, vb::at(x, b)[t])).tanh();  // line 13
// CHECK: vb::at(out, b) = h;  // line 14
// CHECK: vb::at(stats, b)[0] = h.sum();  // line 15
// CHECK: vb::at(stats, b)[1] = h.amax(0);  // line 16
// CHECK: int64_t n = vb::at(x, b).size(0);  // line 17
// CHECK: vb::at(stats, b)[2] = n;  // line 18

int main() {
  Tensor x = (arange(24).reshape({2, 4, 3}).to(kFloat) * 0.2).sin();
  Tensor W = (arange(16).reshape({4, 4}).to(kFloat) * 0.1).cos() * 0.5;
  Tensor U = (arange(12).reshape({4, 3}).to(kFloat) * 0.3).sin();
  Tensor out = zeros({2, 4});
  Tensor stats = zeros({2, 3});
  rnn(x, W, U, 4, out, stats);
  std::cout << out << "\n" << stats << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
