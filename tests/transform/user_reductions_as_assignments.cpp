// SPEC 7: reductions written as assignments (`s = s + e`, `s = e + s`, `s = s - e`,
// `m = std::max(m, e)`, `m = std::min(m, e)`, `m = maximum(m, e)`) into Tensors and C++
// scalars, with the meaning of the loop: a Tensor is rebound (a handle copied before the
// loop keeps the old elements; the dtype promotes), float scalars fold in loop order, and
// std::fmax / std::fmin skip a NaN as C++ does.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
#include <limits>
using namespace vmap;

void sums(const Tensor& x, const Tensor& y, Tensor& total, Tensor& count, float& s, double& d,
          int64_t& n) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      total = total + x[i] * y[j];
      count = (x[i] * y[j] > 0.0f) + count;
      s = s + x[i].dot(y[j]).item<float>();
      d = x[i].sum().item<double>() * 0.1 + d;
      n = n - (i + 2 * j);
    }
  }
}
// CHECK-LABEL: void sums(
// CHECK: vb::accumulate_rebinding(total, {{.*}}, vb::Reduce::add);  // line 18
// CHECK: vb::accumulate_rebinding(count, {{.*}}, vb::Reduce::add);  // line 19
// CHECK: vb::accumulate(s, vb::at(x, i).dot(vb::at(y, j)).item<float>(), vb::Reduce::add);  // line 20
// CHECK: vb::accumulate(d, vb::at(x, i).sum().item<double>() * 0.1, vb::Reduce::add);  // line 21
// CHECK-NEXT: vb::accumulate(n, vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t i, int64_t j) {
// CHECK-NEXT: return i + 2 * j;
// CHECK-NEXT: }, i, j), vb::Reduce::sub);  // line 22

void extremes(const Tensor& x, Tensor& hi, Tensor& lo, float& top, float& bottom, float& ftop,
              double& fbottom, int& widest) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    hi = maximum(hi, x[i]);
    lo = minimum(x[i], lo);
    float v = x[i].sum().item<float>();
    top = std::max(top, v);
    bottom = std::min(bottom, v);
    ftop = std::fmax(ftop, v);
    fbottom = std::fmin(fbottom, static_cast<double>(v));
    widest = std::max(static_cast<int>(x[i].size(0) * (i % 3)), widest);
  }
}
// CHECK-LABEL: void extremes(
// CHECK: vb::accumulate_rebinding(hi, vb::at(x, i), vb::Reduce::max);  // line 39
// CHECK: vb::accumulate_rebinding(lo, vb::at(x, i), vb::Reduce::min);  // line 40
// CHECK: vb::accumulate(top, v, vb::Reduce::max);  // line 42
// CHECK: vb::accumulate(bottom, v, vb::Reduce::min);  // line 43
// CHECK: vb::accumulate(ftop, v, vb::Reduce::fmax);  // line 44
// CHECK: vb::accumulate(fbottom, vb::scalar_cast<double>(v), vb::Reduce::fmin);  // line 45
// CHECK: vb::accumulate(widest, vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](long a, int64_t i) {
// CHECK-NEXT: return static_cast<int>(a * (i % 3));
// CHECK-NEXT: }, vb::at(x, i).size(0), i), vb::Reduce::max);  // line 46

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) * 0.25f - 1.0f;
  Tensor y = arange(9).reshape({3, 3}).to(kFloat) * -0.5f + 1.0f;
  Tensor total = zeros({3});
  Tensor kept = total;  // a handle to the old elements: the assignment rebinds `total`
  Tensor count = zeros({3}, kInt64);  // becomes int64 + bool: int64
  float s = 0.5f;
  double d = 1.0;
  int64_t n = 100;
  sums(x, y, total, count, s, d, n);
  std::cout << total << "\n" << kept << "\n" << count << "\n" << s << " " << d << " " << n
            << "\n";

  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor hi = full({3}, -5.0f), lo = full({3}, 5.0f);
  Tensor hi_before = hi;
  x[1][1] = nan;  // the second example sums to NaN
  float top = -100.0f, bottom = 100.0f, ftop = nan;
  double fbottom = std::numeric_limits<double>::quiet_NaN();
  int widest = -1;
  extremes(x, hi, lo, top, bottom, ftop, fbottom, widest);
  std::cout << hi << "\n" << lo << "\n" << hi_before << "\n";
  std::cout << top << " " << bottom << " " << ftop << " " << fbottom << " " << widest << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
