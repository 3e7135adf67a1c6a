// The induction variable used as a number (casts, integer division).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void positions(const Tensor& x, Tensor& out, Tensor& halves, Tensor& mask) {
  const int64_t n = x.size(0);
#pragma vmap
  for (int64_t i = 0; i < n; ++i) {
    out[i] = x[i] * static_cast<float>(i) / n;
    halves[i] = i / 2;
    int64_t k = i * 3 + 1;
    mask[i] = (x[i] > k) | (x[i] < 1);
  }
}
// CHECK-LABEL: void positions(
// CHECK: vb::Level _b_level0(0, n);  // line 9
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& n) { return a * b / n; }, vb::at(x, i), vb::scalar_cast<float>(i), n);  // line 10
// CHECK: vb::at(halves, i) = i / 2;  // line 11
// CHECK: vb::Value k = i * 3 + 1;  // line 12
// CHECK: vb::at(mask, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& k) { return (a > k) | (a < 1); }, vb::at(x, i), k);  // line 13

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat);
  Tensor out = zeros({4, 3});
  Tensor halves = zeros({4}, kInt64);
  Tensor mask = zeros({4, 3}, kBool);
  positions(x, out, halves, mask);
  std::cout << out << "\n" << halves << "\n" << mask << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
