// Scalar helpers (fmin/fmax clip, integer division of the induction variable) and a
// tensor helper with a per-example weight.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

float clip(float v, float lo, float hi) { return std::fmin(std::fmax(v, lo), hi); }

int bucket(int64_t n) { return static_cast<int>(n / 3); }

Tensor blend(const Tensor& a, const Tensor& b, float w) { return a * w + b * (1 - w); }

void apply(const Tensor& x, const Tensor& y, Tensor& out, Tensor& ids, Tensor& mixed) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float m = x[i].mean().item<float>();
    out[i] = clip(m, -1.0f, 1.0f);
    ids[i] = bucket(i * 2);
    float w = clip(m * 0.1f, 0.0f, 1.0f);
    mixed[i] = blend(x[i], y[i], w);
  }
}
// CHECK: static ::vmap::batched::Value _b_clip(::vmap::batched::Value v, float lo, float hi) {
// CHECK: return vb::fmin(vb::fmax(v, lo), hi);  // line 8
// CHECK: static ::vmap::batched::Value _b_blend(const ::vmap::batched::Value& a, const ::vmap::batched::Value& b, ::vmap::batched::Value w) {
// CHECK: return a * w + b * (1 - w);  // line 12
// CHECK-LABEL: void apply(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 16
// CHECK: vb::Value m = vb::at(x, i).mean().item<float>();  // line 17
// Stored alone, a helper's value is a scalar kernel calling it as written; as an
// operand of tensor code (w), its clone.
// CHECK: vb::at(out, i) = vb::fused_scalar([](float m) {
// CHECK-NEXT: return clip(m, -1.0f, 1.0f);
// CHECK-NEXT: }, m);  // line 18
// CHECK-NEXT: vb::at(ids, i) = vb::fused_scalar([](int64_t i) {
// CHECK-NEXT: return bucket(i * 2);
// CHECK-NEXT: }, i);  // line 19
// CHECK: vb::Value w = _b_clip(m * 0.1f, 0.0f, 1.0f);  // line 20
// CHECK: vb::at(mixed, i) = _b_blend(vb::at(x, i), vb::at(y, i), w);  // line 21

int main() {
  Tensor x = arange(15).reshape({5, 3}).to(kFloat) - 7.0;
  Tensor y = (arange(15).reshape({5, 3}).to(kFloat) * 0.4).cos();
  Tensor out = zeros({5});
  Tensor ids = zeros({5}, kInt32);
  Tensor mixed = zeros({5, 3});
  apply(x, y, out, ids, mixed);
  std::cout << out << "\n" << ids << "\n" << mixed << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
