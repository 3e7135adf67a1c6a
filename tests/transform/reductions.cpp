// Reductions into loop-invariant tensors and scalars.
#include <vmap/vmap.hpp>
#include <algorithm>
#include <iostream>
using namespace vmap;

void tensor_reductions(const Tensor& x, Tensor& total, Tensor& biggest, Tensor& smallest,
                       Tensor& product) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    total += x[i];
    total -= x[i] * 0.5;
    biggest = maximum(biggest, x[i]);
    smallest = minimum(x[i], smallest);
    product *= x[i] / 4.0 + 1.0;
  }
}
// CHECK-LABEL: void tensor_reductions(
// CHECK: vb::accumulate(total, vb::at(x, i), vb::Reduce::add);  // line 11
// CHECK-NEXT: vb::accumulate(total, vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) { return a * 0.5; }, vb::at(x, i)), vb::Reduce::sub);  // line 12
// CHECK-NEXT: vb::accumulate_rebinding(biggest, vb::at(x, i), vb::Reduce::max);  // line 13
// CHECK-NEXT: vb::accumulate_rebinding(smallest, vb::at(x, i), vb::Reduce::min);  // line 14
// CHECK-NEXT: vb::accumulate(product, vb::at(x, i) / 4.0 + 1.0, vb::Reduce::mul);  // line 15

void scalar_reductions(const Tensor& x, double& sum, float& top, int64_t& count) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float v = x[i].sum().item<float>();
    sum += v;
    top = std::max(top, v);
    count += i;
  }
}
// CHECK-LABEL: void scalar_reductions(
// CHECK: vb::accumulate(sum, vb::scalar_cast<double>(v), vb::Reduce::add);  // line 29
// CHECK-NEXT: vb::accumulate(top, v, vb::Reduce::max);  // line 30
// CHECK-NEXT: vb::accumulate(count, i, vb::Reduce::add);  // line 31

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) - 5.0;
  Tensor total = zeros({3});
  Tensor biggest = full({3}, -100.0);
  Tensor smallest = full({3}, 100.0);
  Tensor product = ones({3});
  tensor_reductions(x, total, biggest, smallest, product);
  std::cout << total << "\n" << biggest << "\n" << smallest << "\n" << product << "\n";
  double sum = 1.0;
  float top = -1000.0f;
  int64_t count = 0;
  scalar_reductions(x, sum, top, count);
  std::cout << sum << " " << top << " " << count << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
