// std::fmax / std::fmin and std::max / std::min of per-example C++ floating-point scalars
// pick between equal zeros of different sign, and skip or keep NaNs, as the calls as written
// do: the C library's fmax / fmin return the second operand on ties (Note [fmax and fmin on
// ties] in rules/src/batched/batched_control.cpp), std::max / std::min the first; float and
// double, elementwise and folded in loop order. Every pair of -0, +0, NaN and 1 is an example,
// so each call meets its operands in both orders. One call per pair of operands: GCC takes
// fmax as commutative and would merge std::fmax(x, y) with std::fmax(y, x) in the program as
// written.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
#include <limits>
#include <vector>
using namespace vmap;

void picks(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    float x = a[i].item<float>(), y = b[i].item<float>();
    double dx = a[i].item<double>(), dy = b[i].item<double>();
    out[i][0] = std::fmax(x, y);
    out[i][1] = std::fmin(x, y);
    out[i][2] = std::fmax(dx, dy);
    out[i][3] = std::fmin(dx, dy);
    out[i][4] = std::max(x, y);
    out[i][5] = std::min(x, y);
    out[i][6] = std::max(dx, dy);
    out[i][7] = std::min(dx, dy);
  }
}
// CHECK-LABEL: void picks(
// CHECK: vb::at(out, i)[0] = vb::fmax(x, y);  // line 21
// CHECK: vb::at(out, i)[1] = vb::fmin(x, y);  // line 22
// CHECK: vb::at(out, i)[2] = vb::fmax(dx, dy);  // line 23
// CHECK: vb::at(out, i)[3] = vb::fmin(dx, dy);  // line 24
// CHECK: vb::at(out, i)[4] = vb::max(x, y);  // line 25
// CHECK: vb::at(out, i)[7] = vb::min(dx, dy);  // line 28

void folds(const Tensor& a, float& top, float& bottom) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    float v = a[i].item<float>();
    top = std::fmax(top, v);
    bottom = std::fmin(bottom, v);
  }
}
// CHECK-LABEL: void folds(
// CHECK: vb::accumulate(top, v, vb::Reduce::fmax);  // line 43
// CHECK: vb::accumulate(bottom, v, vb::Reduce::fmin);  // line 44

void print(float v) { std::cout << " " << (std::signbit(v) ? "-" : "+") << std::fabs(v); }

int main() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> values{-0.0f, 0.0f, nan, 1.0f};
  std::vector<float> as, bs;
  for (float p : values)
    for (float q : values) {
      as.push_back(p);
      bs.push_back(q);
    }
  const auto n = static_cast<int64_t>(as.size());
  Tensor a = from_blob(as.data(), {n}, kFloat32).clone();
  Tensor b = from_blob(bs.data(), {n}, kFloat32).clone();
  Tensor out = zeros({n, 8});
  picks(a, b, out);
  for (int64_t i = 0; i < n; ++i) {
    print(as[i]);
    print(bs[i]);
    std::cout << " ->";
    for (int64_t k = 0; k < 8; ++k) print(out[i][k].item<float>());
    std::cout << "\n";
  }
  // From either zero over ties both ways and a NaN.
  std::vector<float> run{-0.0f, 0.0f, nan, -0.0f, 0.0f, -0.0f};
  Tensor x = from_blob(run.data(), {6}, kFloat32).clone();
  for (float start : {0.0f, -0.0f})
    for (int64_t length = 1; length <= 6; ++length) {
      float top = start, bottom = start;
      folds(x.narrow(0, 0, length), top, bottom);
      print(top);
      print(bottom);
      std::cout << "\n";
    }
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
