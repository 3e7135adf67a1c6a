// Seed workload: a Linear layer applied to one vector at a time.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void linear_per_vector(const Tensor& x, const Tensor& weight, const Tensor& bias,
                       Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = linear(x[i], weight, bias);
}
// CHECK-LABEL: void linear_per_vector(
// CHECK: vb::at(out, i) = vb::linear(vb::at(x, i), weight, bias);  // line 10

// The same with matmul written out, and a relu.
void matmul_per_vector(const Tensor& x, const Tensor& weight, const Tensor& bias,
                       Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor h = weight.matmul(x[i]) + bias;
    out[i] = h.relu();
  }
}
// CHECK-LABEL: void matmul_per_vector(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& bias) {
// CHECK-NEXT: auto h = a + bias;  // line 20
// CHECK-NEXT: return h.relu();
// CHECK-NEXT: }, vb::matmul(weight, vb::at(x, i)), bias);  // lines 20-21

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) / 10.0;
  Tensor weight = arange(6).reshape({2, 3}).to(kFloat) - 2.5;
  Tensor bias = tensor({0.5f, -1.0f});
  Tensor out = zeros({4, 2});
  linear_per_vector(x, weight, bias, out);
  std::cout << out << "\n";
  Tensor out2 = zeros({4, 2});
  matmul_per_vector(x, weight, bias, out2);
  std::cout << out2 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
