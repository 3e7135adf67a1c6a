// Any argument of an op may vary per example, optional ones included: an ensemble of
// models (`linear(data, W[m], b[m])`, torch.func's model-ensembling tutorial), clamp
// with per-example bounds (C++ numbers or tensors, one bound left out), full_like with a
// per-example value.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
using namespace vmap;

// Every model of the ensemble on the same minibatch.
void ensemble_same_data(const Tensor& data, const Tensor& W, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t m = 0; m < W.size(0); ++m)
    out[m] = linear(data, W[m], b[m]);
}
// CHECK-LABEL: void ensemble_same_data(
// CHECK: vb::at(out, m) = vb::linear(data, vb::at(W, m), vb::at(b, m));  // line 14

// Each model on its own minibatch, then a nonlinearity and a shared output layer.
void ensemble_own_data(const Tensor& data, const Tensor& W, const Tensor& b,
                       const Tensor& head, Tensor& out) {
#pragma vmap
  for (int64_t m = 0; m < W.size(0); ++m) {
    Tensor hidden = linear(data[m], W[m], b[m]).relu();
    out[m] = linear(hidden, head);
  }
}
// CHECK-LABEL: void ensemble_own_data(
// CHECK: vb::Value hidden = vb::linear(vb::at(data, m), vb::at(W, m), vb::at(b, m)).relu();  // line 24
// CHECK-NEXT: vb::at(out, m) = vb::linear(hidden, head);  // line 25

// A per-model bias with a shared weight.
void shared_weight(const Tensor& data, const Tensor& W, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t m = 0; m < b.size(0); ++m)
    out[m] = linear(data, W, b[m]);
}
// CHECK-LABEL: void shared_weight(
// CHECK: vb::at(out, m) = vb::linear(data, W, vb::at(b, m));  // line 36

void clamp_scalar_bounds(const Tensor& x, const Tensor& lo, const Tensor& hi, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float lo_i = lo[i].item<float>();
    out[i] = clamp(x[i], lo_i, hi[i].item<float>());
  }
}
// CHECK-LABEL: void clamp_scalar_bounds(
// CHECK: vb::at(out, i) = vb::clamp(vb::at(x, i), lo_i, vb::at(hi, i).item<float>());  // line 45

void clamp_tensor_bounds(const Tensor& x, const Tensor& lo, const Tensor& hi, Tensor& out,
                         Tensor& floor_only, Tensor& ceiling_only) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i].clamp(lo[i], hi[i]);
    floor_only[i] = x[i].clamp(lo[i].amin().item<float>());
    ceiling_only[i] = clamp(x[i], std::nullopt, hi[i]);
  }
}
// CHECK-LABEL: void clamp_tensor_bounds(
// CHECK: vb::at(out, i) = vb::at(x, i).clamp(vb::at(lo, i), vb::at(hi, i));  // line 55
// CHECK-NEXT: vb::at(floor_only, i) = vb::at(x, i).clamp(vb::at(lo, i).amin().item<float>());  // line 56
// CHECK-NEXT: vb::at(ceiling_only, i) = vb::clamp(vb::at(x, i), std::nullopt, vb::at(hi, i));  // line 57

void fill_like(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float mean = x[i].mean().item<float>();
    out[i] = full_like(x[i], mean) - x[i];
  }
}
// CHECK-LABEL: void fill_like(
// CHECK: vb::at(out, i) = vb::full_like(vb::at(x, i), mean) - vb::at(x, i);  // line 69

int main() {
  const int64_t models = 3, batch = 4, in = 5, width = 6;
  Tensor data = (arange(batch * in).reshape({batch, in}).to(kFloat) * 0.37).sin();
  Tensor W = (arange(models * width * in).reshape({models, width, in}).to(kFloat) * 0.11).cos();
  Tensor b = arange(models * width).reshape({models, width}).to(kFloat) * 0.1 - 0.8;
  Tensor same = zeros({models, batch, width});
  ensemble_same_data(data, W, b, same);

  Tensor own_data = (arange(models * batch * in).reshape({models, batch, in}).to(kFloat) * 0.21).sin();
  Tensor head = (arange(2 * width).reshape({2, width}).to(kFloat) * 0.3).cos();
  Tensor own = zeros({models, batch, 2});
  ensemble_own_data(own_data, W, b, head, own);

  Tensor shared = zeros({models, batch, width});
  shared_weight(data, W[0], b, shared);

  Tensor x = (arange(20).reshape({4, 5}).to(kFloat) * 0.7).sin() * 3;
  Tensor lo = tensor({-1.0f, -0.5f, 0.0f, -2.0f});
  Tensor hi = tensor({1.0f, 0.5f, 2.0f, 0.25f});
  Tensor scalar_bounds = zeros({4, 5});
  clamp_scalar_bounds(x, lo, hi, scalar_bounds);
  Tensor lo_rows = (arange(20).reshape({4, 5}).to(kFloat) * 0.3).cos() - 1;
  Tensor hi_rows = lo_rows + 1.5;
  Tensor tensor_bounds = zeros({4, 5}), floor_only = zeros({4, 5}), ceiling_only = zeros({4, 5});
  clamp_tensor_bounds(x, lo_rows, hi_rows, tensor_bounds, floor_only, ceiling_only);

  Tensor centred = zeros({4, 5});
  fill_like(x, centred);
  std::cout << same << "\n" << own << "\n" << shared << "\n" << scalar_bounds << "\n"
            << tensor_bounds << "\n" << floor_only << "\n" << ceiling_only << "\n" << centred
            << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
