// Scalar code on item<float>() with <cmath> and a per-example ?: .
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

void score(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float s = x[i].sum().item<float>();
    float a = std::fabs(s);
    float r = std::sqrt(a) + std::exp(-a / 10.0f);
    float sgn = s >= 0 ? 1.0f : -1.0f;
    out[i] = sgn * r + std::pow(a, 0.5f) * 0.0f + std::log(1.0f + a);
  }
}
// CHECK-LABEL: void score(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 9
// The scalar code is one kernel, the user's C++ and <cmath> as written.
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](float s) {
// CHECK-NEXT: float a = std::fabs(s);  // line 11
// CHECK-NEXT: float r = std::sqrt(a) + std::exp(-a / 10.0f);  // line 12
// CHECK-NEXT: float sgn = s >= 0 ? 1.0f : -1.0f;  // line 13
// CHECK-NEXT: return sgn * r + std::pow(a, 0.5f) * 0.0f + std::log(1.0f + a);
// CHECK-NEXT: }, vb::at(x, i).sum().item<float>());  // lines 10-14

int main() {
  Tensor x = arange(15).reshape({5, 3}).to(kFloat) - 7.0;
  Tensor out = zeros({5});
  score(x, out);
  std::cout << out << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
