// Helpers declared at the top of the file and defined below the loops that call them (the
// C way of ordering a file): each is batched as a clone, declared after the helper's own
// declaration and defined after its definition. Two loops share one clone.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

Tensor smooth(const Tensor& t, float weight);
float soft_threshold(float v, float lambda);

void smooth_rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = smooth(x[i], 0.25f);
}

void shrink(const Tensor& x, const Tensor& lambdas, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float lambda = lambdas[i].item<float>();
    out[i] = smooth(x[i], 0.5f) * soft_threshold(x[i].sum().item<float>(), lambda);
  }
}

Tensor smooth(const Tensor& t, float weight) { return t * (1 - weight) + t.mean() * weight; }

float soft_threshold(float v, float lambda) {
  if (std::abs(v) <= lambda) return 0.0f;
  return v > 0 ? v - lambda : v + lambda;
}

int main() {
  Tensor x = arange(-6, 6, 1).to(kFloat32).reshape({3, 4}) / 2.0f;
  Tensor out = zeros({3, 4});
  smooth_rows(x, out);
  std::cout << out << "\n";
  Tensor lambdas = tensor({0.5f, 10.0f, 1.0f});
  shrink(x, lambdas, out);
  std::cout << out << "\n";
}

// CHECK: Tensor smooth(const Tensor& t, float weight);
// CHECK-NEXT: // clang-vmap: batched clone of 'smooth', defined below
// CHECK-NEXT: static ::vmap::batched::Value _b_smooth(const ::vmap::batched::Value& t, float weight);
// CHECK: float soft_threshold(float v, float lambda);
// CHECK-NEXT: // clang-vmap: batched clone of 'soft_threshold', defined below
// CHECK-NEXT: static ::vmap::batched::Value _b_soft_threshold(::vmap::batched::Value v, ::vmap::batched::Value lambda);
// CHECK-LABEL: void smooth_rows(
// CHECK: vb::at(out, i) = _b_smooth(vb::at(x, i), 0.25f);  // line 15
// CHECK-LABEL: void shrink(
// CHECK: vb::at(out, i) = _b_smooth(vb::at(x, i), 0.5f) * _b_soft_threshold(vb::at(x, i).sum().item<float>(), lambda);  // line 22
// CHECK: static ::vmap::batched::Value _b_smooth(const ::vmap::batched::Value& t, float weight) {
// CHECK: static ::vmap::batched::Value _b_soft_threshold(::vmap::batched::Value v, ::vmap::batched::Value lambda) {
// CHECK-NOT: _b_smooth(const ::vmap::batched::Value& t, float weight) {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
