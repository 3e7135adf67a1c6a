// Per-example features of paired vectors, five statements of one loop, each a chain of
// pointwise ops its own compiled kernel (Note [Compiled fusion]): two sums, a mean, a
// store and an accumulator. scripts/compile_time.sh times this file too: a function of
// several fused statements is what a rewritten file's compile time grows with.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

double pair_features(const Tensor& x, const Tensor& y, float margin, Tensor& squared,
                     Tensor& dot, Tensor& gap, Tensor& blended) {
  Tensor total = zeros({}, kDouble);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    squared[i] = (x[i] - y[i]).pow(2).sum();
    dot[i] = (x[i] * y[i]).sum();
    gap[i] = (x[i] - y[i]).abs().clamp(0.0, margin).mean();
    blended[i] = (x[i] * 0.25 + y[i] * 0.75).relu();
    total += (x[i][0] - y[i][0]) * (x[i][1] - y[i][1]);
  }
  return total.item<double>();
}
// CHECK-LABEL: double pair_features(
// CHECK: vb::at(squared, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return (a - b).pow(2); }, vb::at(x, i), vb::at(y, i)).sum();  // line 14
// CHECK-NEXT: vb::at(dot, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return a * b; }, vb::at(x, i), vb::at(y, i)).sum();  // line 15
// CHECK-NEXT: vb::at(gap, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& margin) { return (a - b).abs().clamp(0.0, margin); }, vb::at(x, i), vb::at(y, i), margin).mean();  // line 16
// CHECK-NEXT: vb::at(blended, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return (a * 0.25 + b * 0.75).relu(); }, vb::at(x, i), vb::at(y, i));  // line 17
// CHECK-NEXT: vb::accumulate(total, vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c, const auto& d) { return (a - b) * (c - d); }, vb::at(x, i)[0], vb::at(y, i)[0], vb::at(x, i)[1], vb::at(y, i)[1]), vb::Reduce::add);  // line 18

int main() {
  const Tensor x = (arange(40).reshape({8, 5}).to(kFloat) - 17.0) / 6.0;
  const Tensor y = sin(arange(40).reshape({8, 5}).to(kFloat));
  Tensor squared = zeros({8}), dot = zeros({8}), gap = zeros({8}), blended = zeros({8, 5});
  std::cout << pair_features(x, y, 1.5f, squared, dot, gap, blended) << "\n"
            << squared << "\n" << dot << "\n" << gap << "\n" << blended << "\n";
  // float64 operands: the kernels' float64 loops.
  const Tensor xd = x.to(kDouble), yd = y.to(kDouble);
  Tensor squared_d = zeros({8}, kDouble), dot_d = zeros({8}, kDouble);
  Tensor gap_d = zeros({8}, kDouble), blended_d = zeros({8, 5}, kDouble);
  std::cout << pair_features(xd, yd, 1.5f, squared_d, dot_d, gap_d, blended_d) << "\n"
            << squared_d << "\n" << dot_d << "\n" << gap_d << "\n" << blended_d << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
