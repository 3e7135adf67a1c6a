// Locals accumulated over a plain inner loop (scalar and tensor).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void local_sums(const Tensor& x, Tensor& out, Tensor& rows) {
  const int64_t m = x.size(1);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float s = 0;
    Tensor acc = zeros({});
    for (int64_t j = 0; j < m; ++j) {
      s += x[i][j].item<float>();
      acc += x[i][j] * x[i][j];
    }
    out[i] = s;
    rows[i] = acc;
  }
}
// CHECK-LABEL: void local_sums(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 9
// CHECK: vb::Value s = vb::scalar_cast<float>(0);  // line 10
// CHECK: vb::Value acc = zeros({});  // line 11
// CHECK: for (int64_t j = 0; j < m; ++j) {  // line 12
// CHECK: s += vb::at(x, i)[j].item<float>();  // line 13
// CHECK: acc += vb::at(x, i)[j] * vb::at(x, i)[j];  // line 14
// CHECK: vb::at(out, i) = s;  // line 16
// CHECK: vb::at(rows, i) = acc;  // line 17

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) - 4.0;
  Tensor out = zeros({4});
  Tensor rows = zeros({4});
  local_sums(x, out, rows);
  std::cout << out << "\n" << rows << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
