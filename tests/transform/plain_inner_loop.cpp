// A plain inner loop whose trips are independent runs as a level (Note [Plain loops as
// levels]); one that steps through elements with `.item()` into a C++ scalar is a scalar
// kernel (Note [Fused control flow]). Reads may use any induction variable at any position.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void running_dot(const Tensor& x, const Tensor& w, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float acc = 0;
    for (int64_t k = 0; k < x.size(1); ++k)
      acc += x[i][k].item<float>() * w[k].item<float>();
    out[i] = acc;
  }
}
// CHECK-LABEL: void running_dot(
// CHECK: vb::at(out, i) = vb::fused_scalar({{.*}}[](long a, vb::Elements x, int64_t i, vb::Elements w) {
// CHECK-NEXT: float acc = 0;  // line 11
// CHECK-NEXT: for (int64_t k = 0; k < a; ++k)  // line 12
// CHECK-NEXT: acc += x[i][k].item<float>() * w[k].item<float>();
// CHECK-NEXT: return acc;
// CHECK-NEXT: }, vb::over_lanes([](long a, vb::VaryingElements x, vb::Varying<int64_t> i, vb::VaryingElements w) __attribute__((always_inline)) {
// CHECK-NEXT: vb::Varying<float> acc = 0;
// CHECK-NEXT: { const auto _b_view0 = x[i]; for (int64_t k = 0; k < a; ++k)
// CHECK-NEXT: acc += _b_view0[k].item<float>() * w[k].item<float>(); }
// CHECK-NEXT: return acc;
// CHECK-NEXT: }), x.size(1), x, i, w);  // lines 11-14

void column_reads(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(1); ++i) {
    for (int64_t j = 0; j < x.size(0); ++j)
      out[i][j] = x[j][i] + x.select(1, i)[j];
  }
}
// CHECK-LABEL: void column_reads(
// CHECK: vb::Level _b_level1(0, x.size(0));  // line 33
// CHECK-NEXT: const vb::Value j = _b_level1.index();
// CHECK-NEXT: vb::at(out, i)[j] = vb::at(x, j)[i] + vb::select(x, 1, i)[j];  // line 34

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) / 2.0;
  Tensor w = tensor({0.5f, -1.0f, 2.0f});
  Tensor out = zeros({4});
  running_dot(x, w, out);
  std::cout << out << "\n";
  Tensor out2 = zeros({3, 4});
  column_reads(x, out2);
  std::cout << out2 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
