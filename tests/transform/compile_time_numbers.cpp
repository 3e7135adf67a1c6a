// A number the compiler computes from a call is a number (issue 31): `-INFINITY` is
// `-(__builtin_inff())`, `NAN` and `HUGE_VAL` are builtin calls too; the tool refused them as
// calls with no batching rule. Each is read as it is written, the same for every example.
// The printed program's results are compared with the loop's as written.
#include <vmap/vmap.hpp>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
using namespace vmap;

void row_maxima(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float m = -INFINITY;
    for (int64_t k = 0; k < x.size(1); ++k) m = std::max(m, x[i][k].item<float>());
    out[i] = m;
  }
}
// CHECK-LABEL: void row_maxima(
// CHECK: vb::Value m = -INFINITY;

void clamped(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const double v = x[i].sum().item<double>();
    double lo = -HUGE_VAL, hi = __builtin_huge_val();
    if (v > 0) lo = v;
    else hi = v;
    const float none = NAN;
    out[i] = (lo > hi ? lo : hi) + (std::isnan(none) ? 1.0 : 0.0) +
             std::min(v, std::numeric_limits<double>::infinity());
  }
}
// CHECK-LABEL: void clamped(
// CHECK-NOT: clang-vmap: loop left as written
// CHECK: } else { // clang-vmap: batched from line

int main() {
  manual_seed(61);
  const Tensor x = randn({5, 3});
  Tensor maxima = zeros({5});
  row_maxima(x, maxima);
  std::cout << maxima << "\n";
  Tensor out = zeros({5}, kDouble);
  clamped(x, out);
  std::cout << out << "\n";
}

// CHECK: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
