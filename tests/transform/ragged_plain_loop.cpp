// A plain inner loop whose bound differs per example (ragged rows): it runs under a mask
// until no example is left, as a `while` does; its counter stays one C++ int for all.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void ragged(const Tensor& x, const Tensor& lengths, Tensor& out, Tensor& sums) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t n = lengths[i].item<int64_t>();
    float total = 0.0f;
    for (int64_t k = 0; k < n; ++k) {
      out[i][k] = x[i][k] * 2;
      if (x[i][k].item<float>() < 0.0f)
        continue;
      total += x[i][k].item<float>();
    }
    sums[i] = total;
  }
}

int main() {
  Tensor x = (arange(20).reshape({4, 5}).to(kFloat) - 6.0f) * 0.5f;
  Tensor lengths = tensor({int64_t{0}, 5, 2, 4});
  Tensor out = zeros({4, 5});
  Tensor sums = zeros({4});
  ragged(x, lengths, out, sums);
  std::cout << out << "\n" << sums << "\n";
}

// CHECK: vb::Value n = vb::at(lengths, i).item<int64_t>();  // line 10
// CHECK-NEXT: vb::Value total = 0.0f;  // line 11
// CHECK-NEXT: { vb::Loop _b_loop0;  // line 12
// CHECK-NEXT: for (int64_t k = 0; _b_loop0.next(k < n); ++k) {
// CHECK-NEXT: vb::at(out, i)[k] = vb::at(x, i)[k] * 2;  // line 13
// CHECK-NEXT: { vb::Where _b_where0(vb::at(x, i)[k].item<float>() < 0.0f);  // line 14
// CHECK-NEXT: _b_loop0.skip();  // line 15
// CHECK-NEXT: }
// CHECK-NEXT: total += vb::at(x, i)[k].item<float>();  // line 16
// CHECK-NEXT: _b_loop0.resume();

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
