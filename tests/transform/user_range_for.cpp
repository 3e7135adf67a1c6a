// Range-based `for` loops over loop-invariant ranges inside a vmap loop: plain loops (SPEC
// section 2) that stay loops with their bodies batched. A container of tensors the loop
// reads is checked for overlap with the outputs at run time.
#include <vmap/vmap.hpp>
#include <array>
#include <iostream>
#include <vector>
using namespace vmap;

void mix(const Tensor& x, const std::vector<float>& scales, const std::vector<Tensor>& layers,
         Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor h = zeros_like(x[i]);
    for (float s : scales) h += x[i] * s;
    for (const Tensor& w : layers) {
      Tensor z = w.matmul(h).tanh();
      h = h + z;
    }
    for (int64_t power : {1, 2}) h = h + x[i].pow(power);
    out[i] = h;
  }
}
// CHECK-LABEL: void mix(
// CHECK: if (::vmap::batched::unsafe_overlap(out, x) ||
// CHECK-NEXT: ::vmap::batched::any_overlap(out, layers)) { // clang-vmap: inputs may overlap outputs, run as written
// CHECK: } else { // clang-vmap: batched from line 13
// CHECK: vb::Value h = vb::zeros_like(vb::at(x, i));  // line 14
// CHECK-NEXT: for (float s : scales) {  // line 15
// CHECK-NEXT: h += vb::at(x, i) * s;  // line 15
// CHECK-NEXT: }
// CHECK-NEXT: for (const Tensor& w : layers) {  // line 16
// CHECK-NEXT: vb::Value z = vb::matmul(w, h).tanh();  // line 17
// CHECK-NEXT: h = h + z;  // line 18
// CHECK-NEXT: }
// CHECK-NEXT: for (int64_t power : {1, 2}) {  // line 20
// CHECK-NEXT: h = h + vb::at(x, i).pow(power);  // line 20
// CHECK-NEXT: }
// CHECK-NEXT: vb::at(out, i) = h;  // line 21

void gated(const Tensor& x, const std::array<Tensor, 2>& gates, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor acc = x[i];
    for (const auto& g : gates) acc = where(acc > 0, acc * g, acc);
    out[i] = acc.sum();
  }
}
// CHECK-LABEL: void gated(
// CHECK-NEXT: if (::vmap::batched::unsafe_overlap(out, x) ||
// CHECK-NEXT: ::vmap::batched::any_overlap(out, gates)) {
// CHECK: for (const auto& g : gates) {  // line 45
// CHECK-NEXT: acc = vb::where(acc > 0, acc * g, acc);  // line 45

int main() {
  Tensor x = (arange(12).reshape({4, 3}).to(kFloat) - 5.0) / 4.0;
  std::vector<Tensor> layers = {(arange(9).reshape({3, 3}).to(kFloat) - 4.0) / 10.0,
                                ones({3, 3}) / 5.0};
  Tensor out = zeros({4, 3});
  mix(x, {0.5f, 2.0f}, layers, out);
  std::cout << out << "\n";
  // The output is one of the layers: the loop as written reads the rows it replaced, so the
  // rewritten code must run it as written.
  Tensor square = (arange(9).reshape({3, 3}).to(kFloat) - 3.0) / 8.0;
  std::vector<Tensor> aliased = {square};
  mix(square.clone(), {1.0f}, aliased, square);
  std::cout << square << "\n";
  Tensor sums = zeros({4});
  gated(x, {tensor({1.0f, 0.5f, 2.0f}), tensor({0.25f, 1.0f, 1.0f})}, sums);
  std::cout << sums << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
