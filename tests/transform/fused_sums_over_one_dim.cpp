// A sum or mean over one dim of a pointwise chain, in the forms a user writes first (Note
// [Which chains are fused] in transform/fuse.cpp): through a local, in a template, with a
// Tensor handle copy and a reference to a loop-invariant tensor, a user name `vb`, keepdim,
// and a dim held in a variable (not a literal: the batched ops).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// A local difference, then its squares summed along the last dim.
void through_a_local(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto difference = x[i] - y;
    out[i] = difference.pow(2).sum(-1);
  }
}
// CHECK-LABEL: void through_a_local(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& y) {
// CHECK-NEXT: auto difference = a - y;
// CHECK-NEXT: return difference.pow(2);
// CHECK-NEXT: }, vb::at(x, i), y).sum(-1);  // lines 13-14

// In a template, a handle copy and a reference of the loop-invariant operand.
template <typename Scale>
void in_a_template(const Tensor& x, const Tensor& y, Scale scale, Tensor& out) {
  Tensor copy = y;
  const Tensor& rows = copy;
#pragma vmap
  for (int64_t vb = 0; vb < x.size(0); ++vb)
    out[vb] = mean((x[vb] * scale - rows).abs(), 1);
}
// CHECK-LABEL: void in_a_template(
// CHECK: vb_1::at(out, vb) = vb_1::mean(vb_1::fused(
// CHECK-SAME: , 1);

// keepdim, and a dim in a variable.
void kept_and_variable(const Tensor& x, const Tensor& y, Tensor& kept, Tensor& variable) {
  const int64_t last = 1;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    kept[i] = (x[i] - y).pow(2).sum(1, true);
    variable[i] = (x[i] - y).pow(2).sum(last);
  }
}
// CHECK-LABEL: void kept_and_variable(
// CHECK: vb::at(kept, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& y) { return (a - y).pow(2); }, vb::at(x, i), y).sum(1, true);  // line 41
// CHECK-NEXT: vb::at(variable, i) = (vb::at(x, i) - y).pow(2).sum(last);  // line 42

int main() {
  Tensor x = (arange(20).reshape({5, 4}).to(kFloat) - 6.0) / 4.0;
  Tensor y = sin(arange(12).reshape({3, 4}).to(kFloat));
  Tensor local = zeros({5, 3}), templated = zeros({5, 3}), doubled = zeros({5, 3}, kDouble);
  Tensor kept = zeros({5, 3, 1}), variable = zeros({5, 3});
  through_a_local(x, y, local);
  in_a_template(x, y, 2.0f, templated);
  in_a_template(x.to(kDouble), y.to(kDouble), 0.5, doubled);
  kept_and_variable(x, y, kept, variable);
  std::cout << local << "\n" << templated << "\n" << doubled << "\n" << kept << "\n"
            << variable << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
