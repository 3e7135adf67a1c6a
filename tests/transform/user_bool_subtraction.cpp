// LibTorch refuses subtraction with a bool tensor on either side ("Subtraction, the `-`
// operator, with a bool tensor is not supported"), in `a - b`, `a.sub(b)`, `s - a`, `a -= b`
// and `acc -= b`; the batched program raises the same vmap::Error the loop as written
// raises, in every form, eager, fused, stored in place and reduced; a C++ bool scalar
// subtracts as an int.
#include <vmap/vmap.hpp>
#include <functional>
#include <iostream>
#include <string>
using namespace vmap;

void tensors(const Tensor& m, const Tensor& n, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < m.size(0); ++i)
    out[i] = m[i] - n[i];
}
// CHECK-LABEL: void tensors(
// CHECK: vb::at(out, i) = vb::at(m, i) - vb::at(n, i);

void float_minus_bool(const Tensor& x, const Tensor& m, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] - m[i];
}
// CHECK-LABEL: void float_minus_bool(
// CHECK: vb::at(out, i) = vb::at(x, i) - vb::at(m, i);

void bool_minus_number(const Tensor& m, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < m.size(0); ++i)
    out[i] = m[i] - 1;
}
// CHECK-LABEL: void bool_minus_number(
// CHECK: vb::at(out, i) = vb::at(m, i) - 1;

void member_sub(const Tensor& x, const Tensor& m, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].sub(m[i]);
}
// CHECK-LABEL: void member_sub(
// CHECK: vb::at(out, i) = vb::at(x, i).sub(vb::at(m, i));

void number_minus_bool(const Tensor& m, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < m.size(0); ++i)
    out[i] = 1.5f - m[i];
}
// CHECK-LABEL: void number_minus_bool(
// CHECK: vb::at(out, i) = 1.5f - vb::at(m, i);

void in_place(const Tensor& x, const Tensor& m, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i] * 2.0f;
    out[i] -= m[i];
  }
}
// A slot run (a compiled kernel): its subtraction with a bool throws, the batched ops raise.
// CHECK-LABEL: void in_place(
// CHECK: a -= c;
// CHECK: }, vb::at(out, i), vb::at(x, i), vb::at(m, i));

void comparisons(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = (x[i] > 0.0f) - (x[i] < 1.0f);
}
// CHECK-LABEL: void comparisons(
// CHECK: vb::at(out, i) = vb::fused(

void chain(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor a = x[i] * 2.0f + 1.0f;
    Tensor b = a > 2.0f;
    out[i] = a - b;
  }
}
// CHECK-LABEL: void chain(
// CHECK: vb::at(out, i) = vb::fused(

void local_in_place(const Tensor& x, const Tensor& m, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor d = x[i] > 0.0f;
    d -= m[i];
    out[i] = d;
  }
}
// CHECK-LABEL: void local_in_place(
// CHECK: d -= b;

void reduce(const Tensor& m, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < m.size(0); ++i)
    acc -= m[i];
}
// CHECK-LABEL: void reduce(
// CHECK: vb::accumulate(acc, vb::at(m, i), vb::Reduce::sub);

void reduce_compared(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc -= x[i] * 2.0f > 1.0f;
}
// CHECK-LABEL: void reduce_compared(
// CHECK: vb::accumulate(acc, vb::fused(
// CHECK-SAME: vb::Reduce::sub);

void reduce_assigned(const Tensor& m, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < m.size(0); ++i)
    acc = acc - m[i];
}
// CHECK-LABEL: void reduce_assigned(
// CHECK: vb::accumulate_rebinding(acc, vb::at(m, i), vb::Reduce::sub);

void cpp_bools(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    bool p = x[i].sum().item<float>() > 0.0f;
    out[i][0] = p - true;
  }
}
// CHECK-LABEL: void cpp_bools(
// CHECK: vb::at(out, i)[0] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](float a) {
// CHECK-NEXT: bool p = a > 0.0f;  // line 122
// CHECK-NEXT: return p - true;
// CHECK-NEXT: }, vb::at(x, i).sum().item<float>());  // lines 122-123

// No example takes the branch: nothing raises, as written or batched.
void untaken_branch(const Tensor& x, const Tensor& m, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    if (x[i].sum().item<float>() > 1000.0f) out[i] = x[i] - m[i];
}
// CHECK-LABEL: void untaken_branch(
// CHECK: vb::Where _b_where0(
// CHECK-NEXT: vb::at(out, i) = vb::at(x, i) - vb::at(m, i);

void untaken_reduction(const Tensor& x, const Tensor& m, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    if (x[i].sum().item<float>() > 1000.0f) acc -= m[i];
}
// CHECK-LABEL: void untaken_reduction(
// CHECK: vb::Where _b_where0(
// CHECK-NEXT: vb::accumulate(acc, vb::at(m, i), vb::Reduce::sub);

void run(const char* name, const std::function<void()>& f) {
  try {
    f();
    std::cout << name << ": ran\n";
  } catch (const Error& e) {
    // On a line of its own: the batched error starts with the statement's file:line.
    std::cout << name << ":\n" << e.what() << "\n";
  }
}

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat32) - 5.0f;
  Tensor m = x > 0.0f, n = x < 2.0f;
  // Each form on fresh outputs: the loop as written stops at the first example, the
  // batched one at the statement, with different partial stores.
  Tensor out = zeros({4, 3}), acc = zeros({3});
  run("tensors", [&] { tensors(m, n, out); });
  run("float_minus_bool", [&] { float_minus_bool(x, m, out); });
  run("bool_minus_number", [&] { bool_minus_number(m, out); });
  run("member_sub", [&] { member_sub(x, m, out); });
  run("number_minus_bool", [&] { number_minus_bool(m, out); });
  run("in_place", [&] { in_place(x, m, out); });
  run("comparisons", [&] { comparisons(x, out); });
  run("chain", [&] { chain(x, out); });
  run("local_in_place", [&] { local_in_place(x, m, out); });
  run("reduce", [&] { reduce(m, acc); });
  run("reduce_compared", [&] { reduce_compared(x, acc); });
  run("reduce_assigned", [&] { reduce_assigned(m, acc); });
  out = zeros({4, 3});
  acc = zeros({3});
  run("untaken_branch", [&] { untaken_branch(x, m, out); });
  run("untaken_reduction", [&] { untaken_reduction(x, m, acc); });
  run("cpp_bools", [&] { cpp_bools(x, out); });
  std::cout << out << "\n" << acc << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
