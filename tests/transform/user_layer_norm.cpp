// Layer norm per row: locals, mean, sqrt, loop-invariant scale and shift.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

// Layer-norm style: each row centred and scaled by its own std.
void layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, Tensor& out) {
  const double eps = 1e-5;
#pragma vmap
  for (int64_t r = 0; r < x.size(0); ++r) {
    Tensor row = x[r];
    Tensor centred = row - row.mean();
    Tensor var = (centred * centred).mean();
    out[r] = centred / (var + eps).sqrt() * gamma + beta;
  }
}
// CHECK-LABEL: void layer_norm(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 11
// CHECK: vb::Value row = vb::at(x, r);  // line 12
// CHECK: vb::Value centred = row - row.mean();  // line 13
// CHECK: vb::Value var = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& centred) { return centred * centred; }, centred).mean();  // line 14
// CHECK: vb::at(out, r) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& centred, const auto& var, const auto& eps, const auto& gamma, const auto& beta) { return centred / (var + eps).sqrt() * gamma + beta; }, centred, var, eps, gamma, beta);  // line 15

int main() {
  Tensor x = arange(20).reshape({4, 5}).to(kFloat);
  x = x * x / 7.0;
  Tensor gamma = full({5}, 2.0);
  Tensor beta = ones({5});
  Tensor out = zeros({4, 5});
  layer_norm(x, gamma, beta, out);
  std::cout << out << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
