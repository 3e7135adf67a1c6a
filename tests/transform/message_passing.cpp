// Seed workload: a GNN layer; each node sums its neighbours' features through a
// padded neighbour index (-1 marks padding).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void message_passing(const Tensor& features, const Tensor& neighbours,
                     const Tensor& weight, Tensor& out) {
  const int64_t max_degree = neighbours.size(1);
#pragma vmap
  for (int64_t node = 0; node < features.size(0); ++node) {
    Tensor message = zeros({features.size(1)});
    for (int64_t k = 0; k < max_degree; ++k) {
      int64_t other = neighbours[node][k].item<int64_t>();
      if (other >= 0)
        message += features[other];
    }
    out[node] = relu(matmul(message + features[node], weight));
  }
}

int main() {
  Tensor features = arange(15).reshape({5, 3}).to(kFloat) / 7.0 - 1.0;
  Tensor neighbours = tensor({1, 2, -1, 0, -1, -1, 0, 1, 3, 4, -1, -1, 3, 2, -1})
                          .reshape({5, 3});
  Tensor weight = arange(6).reshape({3, 2}).to(kFloat) - 2.0;
  Tensor out = zeros({5, 2});
  message_passing(features, neighbours, weight, out);
  std::cout << out << "\n";
}

// CHECK: vb::Value message = zeros({features.size(1)});  // line 12
// CHECK-NEXT: for (int64_t k = 0; k < max_degree; ++k) {  // line 13
// CHECK-NEXT: vb::Value other = vb::at(neighbours, node)[k].item<int64_t>();  // line 14
// CHECK-NEXT: { vb::Where _b_where0(other >= 0);  // line 15
// CHECK-NEXT: message += vb::at(features, other);  // line 16
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: vb::at(out, node) = vb::relu(vb::matmul(message + vb::at(features, node), weight));  // line 18

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
