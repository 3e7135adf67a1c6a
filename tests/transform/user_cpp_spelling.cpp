// The rewrite is C++ that compiles wherever the loop sits: a per-example number converted
// to bool is `vb::scalar_cast<bool>` (not `_Bool`); in a function template, a member
// template called on an object the rewrite prints anew takes the `template` keyword
// (`.template item<int64_t>()`); the *_like factories take their options.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
using namespace vmap;

void signs(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float v = x[i].sum().item<float>();
    bool nonzero = v;
    out[i] = x[i].sum() * (nonzero ? 1.0f : -1.0f);
  }
}
// CHECK-LABEL: void signs(
// CHECK: vb::Value nonzero = vb::scalar_cast<bool>(v);  // line 14

template <typename T>
void positives(const Tensor& x, Tensor& out, T threshold) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t n = (x[i] * 2.0f > 0.5f).sum().item<int64_t>();
    out[i] = n + static_cast<int64_t>(threshold);
  }
}
// CHECK-LABEL: void positives(
// CHECK: vb::Value n = vb::fused({{.*}}, vb::at(x, i)).sum().template item<int64_t>();  // line 25

void filled(const Tensor& x, Tensor& wide, Tensor& ints) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float v = x[i].sum().item<float>();
    wide[i] = full_like(x[i], v, kFloat64) + zeros_like(x[i], kFloat64);
    ints[i] = full_like(x[i], v, kInt32) + ones_like(x[i], kInt32);
  }
}
// CHECK-LABEL: void filled(
// CHECK: vb::at(wide, i) = vb::full_like(vb::at(x, i), v, kFloat64) + vb::zeros_like(vb::at(x, i), kFloat64);  // line 36
// CHECK: vb::at(ints, i) = vb::full_like(vb::at(x, i), v, kInt32) + vb::ones_like(vb::at(x, i), kInt32);  // line 37

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) * 0.4f - 1.4f;
  x[1].zero_();
  Tensor out = zeros({4});
  signs(x, out);
  Tensor counts = zeros({4}, kInt64);
  positives(x, counts, 2.0f);
  std::cout << counts << "\n";
  positives(x, counts, 3.0);
  Tensor wide = zeros({4, 3}, kFloat64), ints = zeros({4, 3}, kInt32);
  filled(x, wide, ints);
  std::cout << out << "\n" << counts << "\n" << wide << "\n" << ints << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
