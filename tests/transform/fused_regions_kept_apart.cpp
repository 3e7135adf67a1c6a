// Statements a fused region must not take (Note [Fused regions] in transform/fuse.cpp):
// they keep the batched statements they had, and compute what the loop computes.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

Tensor scaled_by_dot(const Tensor& t) { return t.matmul(t) * t; }  // a library op: a clone

// The local is read after the store.
void read_after(const Tensor& x, Tensor& out, Tensor& again) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i] * 2;
    v = v * v;
    out[i] = v;
    again[i] = v + 1;
  }
}
// CHECK-LABEL: void read_after(
// CHECK: vb::Value v = vb::at(x, i) * 2;  // line 13
// CHECK-NEXT: v = v * v;  // line 14
// CHECK-NEXT: vb::at(out, i) = v;  // line 15
// CHECK-NEXT: vb::at(again, i) = v + 1;  // line 16

// A copy of x's example written in place: x's elements change, as in LibTorch.
void in_place_on_copy(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i];
    v += 1;
    out[i] = v * v + 1;
  }
}
// CHECK-LABEL: void in_place_on_copy(
// CHECK: vb::Value v = vb::at(x, i);  // line 29
// CHECK-NEXT: v += 1;  // line 30
// CHECK-NEXT: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& v) { return v * v + 1; }, v);  // line 31

// A per-example trip count.
void per_example_rounds(const Tensor& x, const Tensor& rounds, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t n = rounds[i].item<int64_t>();
    Tensor v = x[i];
    for (int64_t r = 0; r < n; ++r)
      v = v * v;
    out[i] = v;
  }
}
// CHECK-LABEL: void per_example_rounds(
// CHECK: vb::Value v = vb::at(x, i);  // line 44
// CHECK: vb::at(out, i) = v;  // line 47

// A matmul in the middle: the region starts after it.
void matmul_between(const Tensor& x, const Tensor& w, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor h = x[i] * 2;
    Tensor g = w.matmul(h);
    g = g * g;
    out[i] = g + 1;
  }
}
// CHECK-LABEL: void matmul_between(
// CHECK: vb::Value h = vb::at(x, i) * 2;  // line 58
// CHECK-NEXT: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](auto g) {
// CHECK-NEXT: g = g * g;  // line 60
// CHECK-NEXT: return g + 1;
// CHECK-NEXT: }, vb::matmul(w, h));  // lines 59-61

// A local passed to a function a kernel cannot compute.
void passed_to_helper(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i] * 2;
    v = v + 1;
    out[i] = scaled_by_dot(v) * v;
  }
}
// CHECK-LABEL: void passed_to_helper(
// CHECK: vb::Value v = vb::at(x, i) * 2;  // line 75
// CHECK-NEXT: v = v + 1;  // line 76
// CHECK-NEXT: vb::at(out, i) = _b_scaled_by_dot(v) * v;  // line 77

// A loop that may run zero times reads w: the kernel's shape would be w's broadcast with
// x's even where the loop does not run (the sum of 2 rows of 3 instead of 3).
void maybe_zero_trips(const Tensor& x, const Tensor& w, int rounds, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i];
    for (int r = 0; r < rounds; ++r)
      v = v * w;
    out[i] = v.sum();
  }
}
// CHECK-LABEL: void maybe_zero_trips(
// CHECK: vb::Value v = vb::at(x, i);  // line 90
// CHECK-NEXT: for (int r = 0; r < rounds; ++r) {  // line 91
// CHECK-NEXT: v = v * w;  // line 92
// CHECK-NEXT: }
// CHECK-NEXT: vb::at(out, i) = v.sum();  // line 93

// A local no value reaches the store from (dead), and a reference: they stay outside.
void dead_and_reference(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor unused = y[i] * 3;
    const Tensor& row = x[i];
    Tensor v = row * 2;
    v = v * v;
    out[i] = v;
  }
}
// CHECK-LABEL: void dead_and_reference(
// CHECK: vb::Value unused = vb::at(y, i) * 3;  // line 107
// CHECK-NEXT: const vb::Value& row = vb::at(x, i);  // line 108
// CHECK-NEXT: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& row) {
// CHECK-NEXT: auto v = row * 2;  // line 109
// CHECK-NEXT: v = v * v;  // line 110
// CHECK-NEXT: return v;
// CHECK-NEXT: }, row);  // lines 109-111

// Declared without a value, then assigned: not a declaration a kernel can print.
void declared_then_assigned(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v;
    v = x[i] * 2;
    v = v * v;
    out[i] = v;
  }
}
// CHECK-LABEL: void declared_then_assigned(
// CHECK: vb::Value v;  // line 127
// CHECK-NEXT: v = vb::at(x, i) * 2;  // line 128
// CHECK-NEXT: v = v * v;  // line 129
// CHECK-NEXT: vb::at(out, i) = v;  // line 130

int main() {
  Tensor x = (arange(12).reshape({4, 3}).to(kFloat) - 5.0) / 4.0;
  Tensor a = zeros({4, 3}), b = zeros({4, 3});
  read_after(x, a, b);
  std::cout << a << "\n" << b << "\n";

  Tensor copy = x.clone(), c = zeros({4, 3});
  in_place_on_copy(copy, c);
  std::cout << c << "\n" << copy << "\n";

  Tensor near_one = x / 10.0 + 1.0, d = zeros({4, 3});
  per_example_rounds(near_one, tensor({0, 1, 2, 3}), d);
  std::cout << d << "\n";

  Tensor w = arange(9).reshape({3, 3}).to(kFloat) / 9.0, e = zeros({4, 3});
  matmul_between(x, w, e);
  std::cout << e << "\n";

  Tensor f = zeros({4, 3});
  passed_to_helper(x, f);
  std::cout << f << "\n";

  Tensor scale = tensor({0.5, 1.0, 2.0, -1.0, 0.25, 3.0}).reshape({2, 3}).to(kFloat);
  for (int rounds : {0, 2}) {
    Tensor g = zeros({4});
    maybe_zero_trips(x, scale, rounds, g);
    std::cout << g << "\n";
  }

  Tensor h = zeros({4, 3});
  dead_and_reference(x, x + 1, h);
  std::cout << h << "\n";

  Tensor k = zeros({4, 3});
  declared_then_assigned(x, k);
  std::cout << k << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
