// Seed workload: x = x * x five times on a per-example local, in the forms users write it.
// Each is one fused region (Note [Fused regions] in transform/fuse.cpp): the statements
// inside one compiled kernel, one pass over the batch.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Five literal statements on a copy of the example.
void five_statements(const Tensor& input, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i) {
    Tensor x = input[i];
    x = x * x;
    x = x * x;
    x = x * x;
    x = x * x;
    x = x * x;
    out[i] = x;
  }
}
// CHECK-LABEL: void five_statements(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](auto x) {
// CHECK-NEXT: x = x * x;  // line 13
// CHECK-NEXT: x = x * x;  // line 14
// CHECK-NEXT: x = x * x;  // line 15
// CHECK-NEXT: x = x * x;  // line 16
// CHECK-NEXT: x = x * x;  // line 17
// CHECK-NEXT: return x;
// CHECK-NEXT: }, vb::at(input, i));  // lines 12-18

// The sample's form: a plain inner loop with a literal trip count.
void loop_form(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor value = x[i];
    for (int round = 0; round < 5; ++round)
      value = value * value;
    out[i] = value;
  }
}
// CHECK-LABEL: void loop_form(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](auto value) {
// CHECK-NEXT: for (int round = 0; round < 5; ++round) {  // line 36
// CHECK-NEXT: value = value * value;  // line 37
// CHECK-NEXT: }
// CHECK-NEXT: return value;
// CHECK-NEXT: }, vb::at(x, i));  // lines 35-38

// The first square in the declaration, with `auto`.
void auto_local(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto y = x[i] * x[i];
    y = y * y;
    y = y * y;
    y = y * y;
    y = y * y;
    out[i] = y;
  }
}
// CHECK-LABEL: void auto_local(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) {
// CHECK-NEXT: auto y = a * a;  // line 53
// CHECK-NEXT: y = y * y;  // line 54
// CHECK: y = y * y;  // line 57
// CHECK-NEXT: return y;
// CHECK-NEXT: }, vb::at(x, i));  // lines 53-58

// Compound assignments on a local the first op made (not a copy of x's elements).
void compound(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i] * x[i];
    v *= v;
    v *= v;
    v *= v;
    v *= v;
    out[i] = v;
  }
}
// CHECK-LABEL: void compound(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) {
// CHECK-NEXT: auto v = a * a;  // line 73
// CHECK-NEXT: v *= v;  // line 74
// CHECK: v *= v;  // line 77
// CHECK-NEXT: return v;
// CHECK-NEXT: }, vb::at(x, i));  // lines 73-78

// A clone has elements of its own: squared in place, x is not written.
void clone_in_place(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i].clone();
    for (int round = 0; round < 5; ++round)
      v *= v;
    out[i] = v;
  }
}
// CHECK-LABEL: void clone_in_place(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](auto v) {
// CHECK-NEXT: for (int round = 0; round < 5; ++round) {  // line 94
// CHECK-NEXT: v *= v;  // line 95
// CHECK-NEXT: }
// CHECK-NEXT: return v;
// CHECK-NEXT: }, vb::at(x, i));  // lines 93-96

// The number of rounds a parameter: passed to the kernel as a number.
void rounds_parameter(const Tensor& x, int rounds, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor value = x[i];
    for (int round = 0; round < rounds; ++round) {
      value = value * value;
    }
    out[i] = value;
  }
}
// CHECK-LABEL: void rounds_parameter(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](auto value, const auto& rounds) {
// CHECK-NEXT: for (int round = 0; round < rounds; ++round) {  // line 112
// CHECK-NEXT: value = value * value;  // line 113
// CHECK-NEXT: }
// CHECK-NEXT: return value;
// CHECK-NEXT: }, vb::at(x, i), rounds);  // lines 111-115

int main() {
  // Near 1, so that the 32nd power neither underflows nor overflows.
  Tensor input = (arange(12).reshape({4, 3}).to(kFloat) / 60.0) + 0.85;
  Tensor a = zeros({4, 3}), b = zeros({4, 3}), c = zeros({4, 3}), d = zeros({4, 3});
  five_statements(input, a);
  loop_form(input, b);
  auto_local(input, c);
  compound(input, d);
  std::cout << a << "\n" << b << "\n" << c << "\n" << d << "\n";
  Tensor cloned = zeros({4, 3});
  clone_in_place(input, cloned);
  std::cout << cloned << "\n";
  for (int rounds : {0, 1, 5}) {
    Tensor e = zeros({4, 3});
    rounds_parameter(input, rounds, e);
    std::cout << e << "\n";
  }
  // float64: the same kernels on double elements.
  Tensor wide = input.to(kDouble), f = zeros({4, 3}, kDouble), g = zeros({4, 3}, kDouble);
  loop_form(wide, f);
  five_statements(wide, g);
  std::cout << f << "\n" << g << "\n";
  // The input is read only: the parameter `auto value` is a copy.
  std::cout << input << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
