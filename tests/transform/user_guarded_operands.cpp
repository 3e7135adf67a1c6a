// C++'s guards: `?:` evaluates one arm, `&&` / `||` their right side only where the left
// does not decide. The rewrite evaluates both batched, so an operand that could raise for
// an example that skips it (an integer division by zero, an out-of-range data-dependent
// index, a call of this file's function) runs under the mask of the examples that
// evaluate it (Note [Masked operands] in batched.hpp); pure arithmetic stays a plain
// vb::where. Each function's inputs include the examples the guard protects.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void ternary_division(const Tensor& num, const Tensor& den, Tensor& q) {
#pragma vmap
  for (int64_t i = 0; i < num.size(0); ++i) {
    int64_t n = num[i].item<int64_t>();
    int64_t d = den[i].item<int64_t>();
    q[i] = d == 0 ? int64_t{-1} : n / d;
  }
}
// CHECK-LABEL: void ternary_division(
// CHECK: return d == 0 ? int64_t{-1} : n / d;{{$}}

void short_circuits(const Tensor& num, const Tensor& den, Tensor& both, Tensor& either) {
#pragma vmap
  for (int64_t i = 0; i < num.size(0); ++i) {
    int n = num[i].item<int>();
    int d = den[i].item<int>();
    both[i] = d != 0 && n / d > 1;
    bool skip = d == 0 || n % d == 0;
    either[i] = skip;
  }
}
// CHECK-LABEL: void short_circuits(
// Stored C++ scalars: scalar kernels, whose `&&` and `||` are C++'s own.
// CHECK: vb::at(both, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int d, int n) {
// CHECK-NEXT: return d != 0 && n / d > 1;
// CHECK-NEXT: }, d, n);  // line 27
// CHECK-NEXT: vb::at(either, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int d, int n) {
// CHECK-NEXT: bool skip = d == 0 || n % d == 0;  // line 28
// CHECK-NEXT: return skip;
// CHECK-NEXT: }, d, n);  // lines 28-29

void guarded_rows(const Tensor& table, const Tensor& idx, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < idx.size(0); ++i) {
    int64_t k = idx[i].item<int64_t>();
    out[i] = k >= 0 && k < table.size(0) ? table[k] : zeros({table.size(1)});
  }
}
// CHECK-LABEL: void guarded_rows(
// CHECK: vb::at(out, i) = vb::where(vb::logical_and(k >= 0, k < table.size(0)), [&] { return vb::at(table, k); }, [&] { return zeros({table.size(1)}); });  // line 46

void guarded_elements(const Tensor& values, const Tensor& idx, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < idx.size(0); ++i) {
    int64_t k = idx[i].item<int64_t>();
    float v = k < 0 ? 0.0f : values[k].item<float>();
    if (k >= 0 && values[k].item<float>() > 3.0f) v = -v;
    out[i] = v;
  }
}
// CHECK-LABEL: void guarded_elements(
// The if on a per-example scalar is a scalar kernel (Note [Fused control flow] in
// transform/fuse.cpp); the guarded reads of values run in it where they are written
// (Note [Element reads] in rules/include/vmap/fused_scalar.hpp).
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t k, vb::Elements values) {
// CHECK-NEXT: float v = k < 0 ? 0.0f : values[k].item<float>();  // line 56
// CHECK-NEXT: if (k >= 0 && values[k].item<float>() > 3.0f) v = -v;  // line 57
// CHECK-NEXT: return v;
// CHECK-NEXT: }, vb::at(idx, i).item<int64_t>(), values);  // lines 55-58

int ratio(int n, int d) { return n / d; }

void guarded_call(const Tensor& num, const Tensor& den, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < num.size(0); ++i) {
    int n = num[i].item<int>();
    int d = den[i].item<int>();
    float x = num[i].item<float>();
    out[i] = num[i] * 0 + (d != 0 ? ratio(n, d) : 0);  // in tensor code: batched
    out[i] += x > 0 ? x : 0.5f * x;  // nothing to guard: a plain where
  }
}
// CHECK-LABEL: void guarded_call(
// CHECK: vb::at(num, i), (vb::where(d != 0, [&] { return _b_ratio(n, d); }, [&] { return 0; })));  // line 79
// CHECK: vb::at(out, i) += vb::where(x > 0, x, 0.5f * x);  // line 80

int main() {
  Tensor num = tensor({7, -7, 9, 0, 5, -13}).to(kInt64);
  Tensor den = tensor({2, 2, 0, 3, -2, 0}).to(kInt64);
  Tensor q = zeros({6}, kInt64);
  ternary_division(num, den, q);
  std::cout << q << "\n";
  Tensor both = zeros({6}, kBool), either = zeros({6}, kBool);
  short_circuits(num.to(kInt32), den.to(kInt32), both, either);
  std::cout << both << either << "\n";
  Tensor table = arange(0, 8, 1).to(kFloat32).reshape({4, 2});
  Tensor idx = tensor({0, -1, 3, 7, 2}).to(kInt64);
  Tensor rows = zeros({5, 2});
  guarded_rows(table, idx, rows);
  std::cout << rows << "\n";
  Tensor values = arange(0, 4, 1).to(kFloat32) * 2.0f;
  Tensor idx2 = tensor({0, -1, 3, -5, 2}).to(kInt64);
  Tensor elements = zeros({5});
  guarded_elements(values, idx2, elements);
  std::cout << elements << "\n";
  Tensor called = zeros({6});
  guarded_call(num.to(kInt32), den.to(kInt32), called);
  std::cout << called << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
