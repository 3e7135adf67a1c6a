// Loops that run zero times leave outputs and accumulators as they were.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void maybe_empty(const Tensor& x, int64_t n, Tensor& out, float& total, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < n; ++i) {
    out[i] = x[i] * 2;
    total += x[i].sum().item<float>();
    acc += x[i];
  }
}

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat);
  Tensor out = full({3, 2}, 9.0);
  float total = 4.5f;
  Tensor acc = ones({2});
  maybe_empty(x, 0, out, total, acc);
  std::cout << out << "\n" << total << "\n" << acc << "\n";
  maybe_empty(x, 2, out, total, acc);
  std::cout << out << "\n" << total << "\n" << acc << "\n";
}

// CHECK: vb::Level _b_level0(0, n);  // line 8
// CHECK-NEXT: const vb::Value i = _b_level0.index();
// CHECK-NEXT: vb::at(out, i) = vb::at(x, i) * 2;  // line 9
// CHECK-NEXT: vb::accumulate(total, vb::at(x, i).sum().item<float>(), vb::Reduce::add);  // line 10
// CHECK-NEXT: vb::accumulate(acc, vb::at(x, i), vb::Reduce::add);  // line 11

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
