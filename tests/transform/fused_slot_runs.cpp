// Runs of statements that store into an example's slot and then update it: one compiled
// kernel whose value is stored once (Note [Slot runs] in transform/fuse.cpp), each store
// converting to the output's dtype as the store as written does.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// A store, then the slot squared in place five times.
void squared_in_place(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i];
    for (int round = 0; round < 5; ++round)
      out[i] = out[i] * out[i];
  }
}
// CHECK-LABEL: void squared_in_place(
// CHECK: vb::at(out, i) = vb::fused_slot([](auto a, const auto& b) {
// CHECK-NEXT: vb::assign(a, b);  // line 12
// CHECK-NEXT: for (int round = 0; round < 5; ++round) {  // line 13
// CHECK-NEXT: vb::assign(a, a * a);  // line 14
// CHECK-NEXT: }
// CHECK-NEXT: return a;
// CHECK-NEXT: }, vb::at(out, i), vb::at(x, i));  // lines 12-13

// Compound updates after the store, and an operand read after it.
void copy_square_add(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    out[i] = a[i];
    for (int round = 0; round < 2; ++round)
      out[i] *= out[i];
    out[i] += b[i];
  }
}
// CHECK-LABEL: void copy_square_add(
// CHECK: vb::at(out, i) = vb::fused_slot([](auto c, const auto& d, const auto& e) {
// CHECK-NEXT: vb::assign(c, d);  // line 30
// CHECK-NEXT: for (int round = 0; round < 2; ++round) {  // line 31
// CHECK-NEXT: c *= c;  // line 32
// CHECK-NEXT: }
// CHECK-NEXT: c += e;  // line 33
// CHECK-NEXT: return c;
// CHECK-NEXT: }, vb::at(out, i), vb::at(a, i), vb::at(b, i));  // lines 30-33

// No store first: the slot's old value is an operand, updated in place.
void update_old_value(const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < b.size(0); ++i) {
    out[i] += b[i];
    out[i] *= 2.0f;
  }
}
// CHECK-LABEL: void update_old_value(
// CHECK: vb::at(out, i) = vb::fused_slot([](auto a, const auto& c) {
// CHECK-NEXT: a += c;  // line 50
// CHECK-NEXT: a *= 2.0f;  // line 51
// CHECK-NEXT: return a;
// CHECK-NEXT: }, vb::at(out, i), vb::at(b, i));  // lines 50-51

// An int output: each store converts to int, as written (int(int(x * 1.5) * 1.5), not
// int(x * 2.25)).
void int_output(const Tensor& x, Tensor& counts) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    counts[i] = x[i] * 1.5f;
    counts[i] = counts[i] * 1.5f;
  }
}
// CHECK-LABEL: void int_output(
// CHECK: vb::at(counts, i) = vb::fused_slot([](auto a, const auto& b) {
// CHECK-NEXT: vb::assign(a, b * 1.5f);  // line 66
// CHECK-NEXT: vb::assign(a, a * 1.5f);  // line 67
// CHECK-NEXT: return a;
// CHECK-NEXT: }, vb::at(counts, i), vb::at(x, i));  // lines 66-67

// A bool output: f = bool(x * 0.5 - 1), then bool(1 - f * 2), not bool(1 - (x * 0.5 - 1) * 2).
void bool_output(const Tensor& x, Tensor& flags) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    flags[i] = x[i] * 0.5f - 1.0f;
    flags[i] = 1.0f - flags[i] * 2.0f;
  }
}
// CHECK-LABEL: void bool_output(
// CHECK: vb::at(flags, i) = vb::fused_slot([](auto a, const auto& b) {
// CHECK-NEXT: vb::assign(a, b * 0.5f - 1.0f);  // line 81
// CHECK-NEXT: vb::assign(a, 1.0f - a * 2.0f);  // line 82
// CHECK-NEXT: return a;
// CHECK-NEXT: }, vb::at(flags, i), vb::at(x, i));  // lines 81-82

// A number and a loop-invariant row stored into each example's row, broadcast.
void broadcast_stores(const Tensor& m, const Tensor& v, Tensor& rows, Tensor& shifted) {
#pragma vmap
  for (int64_t i = 0; i < m.size(0); ++i) {
    rows[i] = 1.0f;
    rows[i] += m[i];
    shifted[i] = v;
    shifted[i] -= m[i][0];
  }
}
// CHECK-LABEL: void broadcast_stores(
// CHECK: vb::at(rows, i) = vb::fused_slot([](auto a, const auto& b) {
// CHECK-NEXT: vb::assign(a, 1.0f);  // line 96
// CHECK-NEXT: a += b;  // line 97
// CHECK-NEXT: return a;
// CHECK-NEXT: }, vb::at(rows, i), vb::at(m, i));  // lines 96-97
// CHECK-NEXT: vb::at(shifted, i) = vb::fused_slot([](auto a, const auto& v, const auto& b) {
// CHECK-NEXT: vb::assign(a, v);  // line 98
// CHECK-NEXT: a -= b;  // line 99
// CHECK-NEXT: return a;
// CHECK-NEXT: }, vb::at(shifted, i), v, vb::at(m, i)[0]);  // lines 98-99

// `r` is another name of the slot: as written `out[i] += r` reads the value just stored.
// The kernel's call compares r's memory with the slot's and runs the statements as written.
void read_through_a_copy(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor r = out[i];
    out[i] = x[i];
    out[i] += r;
  }
}
// CHECK-LABEL: void read_through_a_copy(
// CHECK: vb::Value r = vb::at(out, i);  // line 119
// CHECK-NEXT: vb::at(out, i) = vb::fused_slot([](auto a, const auto& b, const auto& r) {
// CHECK-NEXT: vb::assign(a, b);  // line 120
// CHECK-NEXT: a += r;  // line 121
// CHECK-NEXT: return a;
// CHECK-NEXT: }, vb::at(out, i), vb::at(x, i), r);  // lines 120-121

// A value computed from another tensor after a store would be computed before the kernel,
// ahead of the store (`b` may be `out`): not fused.
void sum_after_store(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    out[i] = a[i] * 2.0f;
    out[i] += b[i].sum();
  }
}
// CHECK-LABEL: void sum_after_store(
// CHECK: vb::at(out, i) = vb::at(a, i) * 2.0f;  // line 137
// CHECK-NEXT: vb::at(out, i) += vb::at(b, i).sum();  // line 138

// Under a per-example `if`: the kernel's store is masked, as the stores as written are.
void masked_run(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (x[i].item<float>() > 1.5f) {
      out[i] = x[i];
      out[i] *= out[i];
    }
  }
}
// CHECK-LABEL: void masked_run(
// CHECK: { vb::Where _b_where0(vb::at(x, i).item<float>() > 1.5f);  // line 149
// CHECK: vb::at(out, i) = vb::fused_slot([](auto a, const auto& b) {
// CHECK-NEXT: vb::assign(a, b);  // line 150
// CHECK-NEXT: a *= a;  // line 151
// CHECK-NEXT: return a;
// CHECK-NEXT: }, vb::at(out, i), vb::at(x, i));  // lines 150-151

int main() {
  Tensor x = tensor({1.0f, 2.0f, 3.0f, 5.0f});
  Tensor near_one = x * 0.1f + 0.8f;
  Tensor out = zeros({4});
  squared_in_place(near_one, out);
  std::cout << out << "\n";

  Tensor a = arange(12).reshape({4, 3}).to(kFloat) * 0.5f;
  Tensor b = ones({4, 3}) * 0.25f;
  Tensor grid = zeros({4, 3});
  copy_square_add(a, b, grid);
  std::cout << grid << "\n";
  // The same tensor as `b` and `out`: `out[i] += b[i]` reads what the store wrote.
  Tensor same = arange(12).reshape({4, 3}).to(kFloat);
  copy_square_add(a, same, same);
  std::cout << same << "\n";

  Tensor old = ones({4, 3});
  update_old_value(b, old);
  std::cout << old << "\n";

  Tensor counts = zeros({4}, kInt64);
  int_output(x, counts);
  std::cout << counts << "\n";

  Tensor flags = zeros({4}, kBool);
  bool_output(x, flags);
  std::cout << flags << "\n";

  Tensor v = tensor({1.0f, 2.0f, 3.0f});
  Tensor rows = zeros({4, 3}), shifted = zeros({4, 3});
  broadcast_stores(a, v, rows, shifted);
  std::cout << rows << "\n" << shifted << "\n";

  Tensor copied = full({4}, 10.0f);
  read_through_a_copy(x, copied);
  std::cout << copied << "\n";

  Tensor summed = arange(12).reshape({4, 3}).to(kFloat);
  sum_after_store(a, summed, summed);
  std::cout << summed << "\n";

  Tensor masked = full({4}, -1.0f);
  masked_run(x, masked);
  std::cout << masked << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
