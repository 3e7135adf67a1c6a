// Found by a sweep of new programs: in a same-file function the loop calls, `Tensor w = v;
// w = w * 0.5;` (a copy of a parameter's handle, then rebound to a new tensor) was refused
// as "write to 'v', which is the same for every example"; rebinding a local handle writes
// no elements of the caller's tensor (as in the loop body, where it was batched). An early
// `return` per example and a per-example `while` in the same helper.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

Tensor halve(const Tensor& v) {
  Tensor w = v;
  w = w * 0.5;
  return w + 1;
}

Tensor squash(const Tensor& v, float limit) {
  if (v.abs().amax(0).item<float>() < limit) return v;
  Tensor w = v;
  int k = 0;
  while (w.abs().amax(0).item<float>() >= limit && k < 10) {
    w = w * 0.5;
    ++k;
  }
  if (k > 3) return -w;
  return w + k;
}

void rebind(const Tensor& x, Tensor& out, Tensor& halved, Tensor& squashed) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor w = x[i];
    w = w * 0.5;
    out[i] = w;
    halved[i] = halve(x[i]);
    squashed[i] = squash(x[i], 1.0f) * 2;
  }
}

int main() {
  Tensor x = (arange(15).reshape({5, 3}).to(kFloat) * 0.9).sin() *
             tensor({0.5, 3.0, 40.0, 0.2, 9.0}).unsqueeze(1);
  Tensor out = zeros({5, 3}), halved = zeros({5, 3}), squashed = zeros({5, 3});
  rebind(x, out, halved, squashed);
  std::cout << out << "\n" << halved << "\n" << squashed << "\n" << x << "\n";
}

// CHECK-LABEL: static ::vmap::batched::Value _b_halve(const ::vmap::batched::Value& v) {
// CHECK: vb::Value w = v;  // line 11
// CHECK: w = w * 0.5;  // line 12
// CHECK-LABEL: static ::vmap::batched::Value _b_squash(const ::vmap::batched::Value& v, float limit) {
// CHECK: vb::Value w = v;  // line 18
// CHECK: w = w * 0.5;  // line 21
// CHECK-LABEL: void rebind(
// CHECK: vb::Value w = vb::at(x, i);  // line 31
// CHECK: w = w * 0.5;  // line 32
// CHECK: vb::at(halved, i) = _b_halve(vb::at(x, i));  // line 34
// CHECK: vb::at(squashed, i) = _b_squash(vb::at(x, i), 1.0f) * 2;  // line 35

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
