// Calls of helper functions of this file (tensor and scalar results).
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

Tensor gelu_approx(const Tensor& t) { return t * sigmoid(t * 1.702); }

float cosine(const Tensor& a, const Tensor& b) {
  float num = dot(a, b).item<float>();
  float den = std::sqrt(dot(a, a).item<float>() * dot(b, b).item<float>());
  return num / (den + 1e-6f);
}
// A kernel computes gelu_approx (Note [Helpers in kernels] in fuse_helpers.cpp): no clone.
// CHECK-NOT: _b_gelu_approx
// CHECK: static ::vmap::batched::Value _b_cosine(const ::vmap::batched::Value& a, const Tensor& b) {
// CHECK: vb::Value num = vb::dot(a, b).item<float>();  // line 10
// CHECK: vb::Value den = vb::sqrt(vb::dot(a, a).item<float>() * dot(b, b).item<float>());  // line 11
// CHECK: return num / (den + 1e-6f);  // line 12

void features(const Tensor& x, const Tensor& ref, Tensor& act, Tensor& sim) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    act[i] = gelu_approx(x[i]);
    sim[i] = cosine(x[i], ref);
  }
}
// CHECK-LABEL: void features(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 23
// CHECK: vb::at(act, i) = vb::fused([](const auto& a) { return [](const auto& t) { return t * vb::sigmoid(t * 1.702); }(a); }, vb::at(x, i));  // line 24
// CHECK: vb::at(sim, i) = _b_cosine(vb::at(x, i), ref);  // line 25

int main() {
  Tensor x = (arange(12).reshape({4, 3}).to(kFloat) - 5.5) / 3.0;
  Tensor ref = tensor({1.0f, 0.0f, -1.0f});
  Tensor act = zeros({4, 3});
  Tensor sim = zeros({4});
  features(x, ref, act, sim);
  std::cout << act << "\n" << sim << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
