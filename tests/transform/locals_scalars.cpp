// Per-example locals and C++ scalars: item<T>(), <cmath>, casts, and the induction
// variable used as a number.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

void scale_rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto row = x[i];
    float norm = std::sqrt(row.pow(2).sum().item<float>());
    const float scale = 1.0f / (norm + 1.0f);
    double shift = std::exp(-0.5 * i);
    out[i] = row * scale + shift;
  }
}
// CHECK-LABEL: void scale_rows(
// CHECK: vb::Value row = vb::at(x, i);  // line 11
// CHECK-NEXT: vb::Value norm = vb::sqrt(vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& row) { return row.pow(2); }, row).sum().item<float>());  // line 12
// CHECK-NEXT: const vb::Value scale = 1.0f / (norm + 1.0f);  // line 13
// CHECK-NEXT: vb::Value shift = vb::exp(-0.5 * vb::scalar_cast<double>(i));  // line 14
// CHECK-NEXT: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& row, const auto& scale, const auto& shift) { return row * scale + shift; }, row, scale, shift);  // line 15

void scalar_arithmetic(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int i = 0; i < 4; ++i) {
    int half = i / 2;
    float v = x[i].item<float>();
    int truncated = (int)v;
    out[i] = v * half + truncated;
  }
}
// CHECK-LABEL: void scalar_arithmetic(
// The body is one scalar kernel: the C++ as written, per example.
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int i, float v) {
// CHECK-NEXT: int half = i / 2;  // line 28
// CHECK-NEXT: int truncated = (int)v;  // line 30
// CHECK-NEXT: return v * half + truncated;
// CHECK-NEXT: }, i, vb::at(x, i).item<float>());  // lines 28-31

// Loop-invariant locals stay C++ values.
void invariant_locals(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const double factor = 2.0;
    Tensor twice = x[i] * factor;
    out[i] = twice;
  }
}
// CHECK-LABEL: void invariant_locals(
// CHECK: const double factor = 2.0;  // line 46
// CHECK-NEXT: vb::Value twice = vb::at(x, i) * factor;  // line 47

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) / 3.0;
  Tensor out = zeros({4, 3});
  scale_rows(x, out);
  std::cout << out << "\n";
  Tensor y = tensor({1.5f, -2.7f, 3.2f, 0.9f});
  Tensor out2 = zeros({4});
  scalar_arithmetic(y, out2);
  std::cout << out2 << "\n";
  Tensor out3 = zeros({4, 3});
  invariant_locals(x, out3);
  std::cout << out3 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
