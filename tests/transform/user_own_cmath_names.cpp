// Functions of the user's own named like <cmath>'s (a global max, a sqrt of an integer):
// the rewrite calls them as written, never the library's function of that name.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

// The one of larger magnitude, not std::max.
float max(float a, float b) { return std::fabs(a) > std::fabs(b) ? a : b; }
// The square root of a count, rounded down, not std::sqrt.
int64_t sqrt(int64_t n) {
  int64_t r = 0;
  while ((r + 1) * (r + 1) <= n) ++r;
  return r;
}

void extremes(const Tensor& x, Tensor& peak, Tensor& roots, Tensor& scaled) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float m = 0.0f;
    for (int64_t k = 0; k < x.size(1); ++k) m = max(m, x[i][k].item<float>());
    peak[i] = m;
    roots[i] = sqrt(i * 7);
    float s = x[i].sum().item<float>();
    scaled[i] = x[i] * max(s, 1.5f);
  }
}
// The user's max, as an operand of tensor code: its clone, not vb::max.
// CHECK: static ::vmap::batched::Value _b_max(::vmap::batched::Value a, float b) {
// CHECK: return vb::where(vb::fabs(a) > std::fabs(b), a, b);  // line 9
// CHECK-LABEL: void extremes(
// In scalar kernels, the calls as written.
// CHECK: for (int64_t k = 0; k < a; ++k) m = max(m, x[i][k].item<float>());  // line 21
// CHECK: return sqrt(i * 7);
// CHECK: vb::at(scaled, i) = vb::at(x, i) * _b_max(s, 1.5f);  // line 25
// CHECK-NOT: vb::max(
// CHECK-NOT: vb::sqrt(

int main() {
  Tensor x = (arange(60).reshape({20, 3}).to(kFloat) * 0.7).sin() * 4.0;
  Tensor peak = zeros({20});
  Tensor roots = zeros({20}, kInt64);
  Tensor scaled = zeros({20, 3});
  extremes(x, peak, roots, scaled);
  std::cout << peak << "\n" << roots << "\n" << scaled << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
