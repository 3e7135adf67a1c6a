// Ported from nanoGPT's CausalSelfAttention, one head at a time: scaled scores, the causal
// mask with masked_fill(-inf), softmax, and the weighted values; then the heads of each
// sequence of a batch (two vmap levels).
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
#include <limits>
using namespace vmap;

void heads(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& causal, Tensor& y) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(2)));
#pragma vmap
  for (int64_t h = 0; h < q.size(0); ++h) {
    Tensor att = q[h].matmul(k[h].transpose(0, 1)) * scale;
    att = att.masked_fill(causal.logical_not(), -std::numeric_limits<float>::infinity());
    att = softmax(att, -1);
    y[h] = att.matmul(v[h]);
  }
}
// CHECK-LABEL: void heads(
// CHECK: vb::softmax(att, -1)

void batch_heads(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& causal, Tensor& y) {
#pragma vmap
  for (int64_t b = 0; b < q.size(0); ++b)
#pragma vmap
    for (int64_t h = 0; h < q.size(1); ++h) {
      Tensor att = matmul(q[b][h], k[b][h].transpose(-2, -1)) / std::sqrt(static_cast<double>(q.size(3)));
      att = masked_fill(att, causal == 0, -1e9);
      y[b][h] = matmul(att.softmax(-1), v[b][h]);
    }
}
// CHECK-LABEL: void batch_heads(
// CHECK: vb::Level _b_level1

int main() {
  const int64_t batch = 2, n_head = 3, T = 5, hs = 4;
  Tensor q = (arange(batch * n_head * T * hs).reshape({batch, n_head, T, hs}).to(kFloat) * 0.13).sin();
  Tensor k = (arange(batch * n_head * T * hs).reshape({batch, n_head, T, hs}).to(kFloat) * 0.29).cos();
  Tensor v = (arange(batch * n_head * T * hs).reshape({batch, n_head, T, hs}).to(kFloat) * 0.07).sin();
  Tensor causal = ones({T, T}).tril().to(kBool);
  Tensor y1 = zeros({n_head, T, hs});
  heads(q[0], k[0], v[0], causal, y1);
  Tensor y2 = zeros({batch, n_head, T, hs});
  batch_heads(q, k, v, causal.to(kFloat), y2);
  std::cout << y1 << "\n" << y2 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
