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
// CHECK: vb::Value s = vb::at(x, i).sum().item<float>();  // line 10
// CHECK: vb::Value a = vb::fabs(s);  // line 11
// CHECK: vb::Value r = vb::sqrt(a) + vb::exp(-a / 10.0f);  // line 12
// CHECK: vb::Value sgn = vb::where(s >= 0, 1.0f, -1.0f);  // line 13
// CHECK: vb::at(out, i) = sgn * r + vb::pow(a, 0.5f) * 0.0f + vb::log(1.0f + a);  // line 14

int main() {
  Tensor x = arange(15).reshape({5, 3}).to(kFloat) - 7.0;
  Tensor out = zeros({5});
  score(x, out);
  std::cout << out << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
