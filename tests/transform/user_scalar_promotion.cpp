// ATen 0-d promotion survives batching: float32 tensor * double scalar stays float32.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

void mixed(const Tensor& x, const Tensor& xd, Tensor& out, Tensor& outd) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    double s = xd[i].sum().item<double>();
    out[i] = x[i] * s;              // float32 * double scalar stays float32
    outd[i] = xd[i] / (1.0 + std::abs(s));
  }
}
// CHECK-LABEL: void mixed(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 9
// CHECK: vb::Value s = vb::at(xd, i).sum().item<double>();  // line 10
// CHECK: vb::at(out, i) = vb::at(x, i) * s;  // line 11
// CHECK: vb::at(outd, i) = vb::at(xd, i) / (1.0 + vb::abs(s));  // line 12

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat) / 3.0;
  Tensor xd = arange(6).reshape({3, 2}).to(kDouble) / 7.0;
  Tensor out = zeros({3, 2});
  Tensor outd = zeros({3, 2}, kDouble);
  mixed(x, xd, out, outd);
  std::cout.precision(17);
  std::cout << out.dtype() << " " << out << "\n" << outd << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
