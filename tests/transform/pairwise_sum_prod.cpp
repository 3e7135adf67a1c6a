// Seed workload: a double loop accumulating x[i] * x[j] into one scalar.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

float pairwise_sum_prod(const Tensor& x) {
  float total = 0;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < x.size(0); ++j)
      total += x[i].item<float>() * x[j].item<float>();
  }
  return total;
}
// CHECK-LABEL: float pairwise_sum_prod(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 9
// CHECK-NEXT: const vb::Value i = _b_level0.index();
// CHECK-NEXT: {
// CHECK-NEXT: vb::Level _b_level1(0, x.size(0));  // line 11
// CHECK-NEXT: const vb::Value j = _b_level1.index();
// CHECK-NEXT: vb::accumulate(total, vb::at(x, i).item<float>() * vb::at(x, j).item<float>(), vb::Reduce::add);  // line 12

// The tensor form: accumulate into a 0-d tensor.
Tensor pairwise_sum_prod_tensor(const Tensor& x) {
  Tensor total = zeros({});
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < x.size(0); ++j)
      total += x[i] * x[j];
  return total;
}
// CHECK-LABEL: Tensor pairwise_sum_prod_tensor(
// CHECK: vb::accumulate(total, vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return a * b; }, vb::at(x, i), vb::at(x, j)), vb::Reduce::add);  // line 31

int main() {
  Tensor x = arange(10).to(kFloat) / 4.0;
  std::cout << pairwise_sum_prod(x) << "\n";
  std::cout << pairwise_sum_prod_tensor(x) << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
