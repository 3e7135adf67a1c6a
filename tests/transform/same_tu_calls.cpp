// Calls of functions defined in this file are batched as clones `_b_<name>`, inserted
// after the function; calls with loop-invariant arguments stay plain calls.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

Tensor soft_clip(const Tensor& v, double limit) {
  Tensor scaled = v / limit;
  scaled = scaled.tanh();  // assigned again: a clone, not a kernel's (fuse_helpers.cpp)
  return scaled * limit;
}
// CHECK-LABEL: Tensor soft_clip(
// CHECK: // clang-vmap: batched clone of 'soft_clip' (line 8)
// CHECK-NEXT: static ::vmap::batched::Value _b_soft_clip(const ::vmap::batched::Value& v, double limit) {
// CHECK-NEXT: namespace vb = ::vmap::batched;
// CHECK-NEXT: vb::Value scaled = v / limit;  // line 9
// CHECK-NEXT: scaled = scaled.tanh();  // line 10
// CHECK-NEXT: return scaled * limit;  // line 11
// CHECK-NEXT: }

float squash(float v, float scale) {
  float w = v * scale;
  if (w > 1)
    w = 1 + std::log(w);
  return w;
}
// CHECK-LABEL: float squash(
// CHECK: static ::vmap::batched::Value _b_squash(::vmap::batched::Value v, float scale) {
// CHECK-NEXT: namespace vb = ::vmap::batched;
// CHECK-NEXT: vb::Value w = v * scale;  // line 23
// CHECK-NEXT: { vb::Where _b_where0(w > 1);  // line 24
// CHECK-NEXT: w = 1 + vb::log(w);  // line 25
// CHECK-NEXT: }
// CHECK-NEXT: return w;  // line 26

void clip_rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = soft_clip(x[i], 3.0) + 1;
}
// CHECK-LABEL: void clip_rows(
// CHECK: vb::at(out, i) = _b_soft_clip(vb::at(x, i), 3.0) + 1;  // line 40

void squash_rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i][0] * 0 + squash(x[i].sum().item<float>(), 0.1f);
}
// In tensor code the call is the clone's (stored alone, the value would be a scalar kernel
// calling squash as written).
// CHECK-LABEL: void squash_rows(
// CHECK: [](const auto& a, const auto& b) { return a * 0 + b; }, vb::at(x, i)[0], _b_squash(vb::at(x, i).sum().item<float>(), 0.1f));  // line 48

// Called with loop-invariant arguments only: stays a plain call.
void add_clipped_bias(const Tensor& x, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + soft_clip(bias, 1.0);
}
// CHECK-LABEL: void add_clipped_bias(
// CHECK: vb::at(out, i) = vb::at(x, i) + soft_clip(bias, 1.0);  // line 59

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) - 6.0;
  Tensor out = zeros({4, 3});
  clip_rows(x, out);
  std::cout << out << "\n";
  Tensor out2 = zeros({4});
  squash_rows(x * x, out2);
  std::cout << out2 << "\n";
  Tensor out3 = zeros({4, 3});
  add_clipped_bias(x, tensor({0.5f, 2.0f, -3.0f}), out3);
  std::cout << out3 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
