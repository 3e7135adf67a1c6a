// `break` and `continue` in plain inner loops and in per-example `while` loops: the
// examples that jump leave (or skip the rest of the iteration) under a mask; the others
// run on. A jump on a loop-invariant condition stays a C++ jump.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// The first position whose value exceeds the example's threshold (a search loop).
void first_above(const Tensor& x, const Tensor& threshold, Tensor& position) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t found = -1;
    for (int64_t j = 0; j < x.size(1); ++j) {
      if (x[i][j].item<float>() > threshold[i].item<float>()) {
        found = j;
        break;
      }
    }
    position[i] = found;
  }
}
// CHECK-LABEL: void first_above(
// The search reads x at the position it has reached: one scalar kernel, the loop as
// written (Note [Element reads]).
// CHECK: vb::at(position, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](long a, vb::Elements x, int64_t i, vb::Elements threshold) {
// CHECK-NEXT: int64_t found = -1;  // line 12
// CHECK-NEXT: for (int64_t j = 0; j < a; ++j) {  // line 13
// CHECK-NEXT: if (x[i][j].item<float>() > threshold[i].item<float>()) {
// CHECK-NEXT: found = j;
// CHECK-NEXT: break;
// CHECK: return found;
// CHECK-NEXT: }, x.size(1), x, i, threshold);  // lines 12-19

// Sum of the positive entries, skipping the others with `continue`; a range-based loop
// that some examples leave early (so its other `break`, the same for every example, is
// masked too); a loop whose only `break` is the same for every example stays as written.
void positive_sum(const Tensor& x, const std::vector<float>& weights, Tensor& sums,
                  Tensor& weighted) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float total = 0.0f;
    for (int64_t j = 0; j < x.size(1); ++j) {
      float v = x[i][j].item<float>();
      if (v <= 0.0f)
        continue;
      total += v;
    }
    sums[i] = total;
    Tensor acc = zeros_like(x[i]);
    int64_t k = 0;
    for (float w : weights) {
      if (w == 0.0f)
        break;
      if (x[i][k].item<float>() < -1.5f)
        break;
      acc = acc + x[i] * w;
      ++k;
    }
    for (float w : weights) {
      if (w == 0.0f)
        break;
      acc = acc + w;
    }
    weighted[i] = acc;
  }
}
// CHECK-LABEL: void positive_sum(
// CHECK: vb::at(sums, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](long a, vb::Elements x, int64_t i) {
// CHECK: float v = x[i][j].item<float>();
// CHECK-NEXT: if (v <= 0.0f)
// CHECK-NEXT: continue;
// CHECK-NEXT: total += v;
// CHECK: for (float w : weights) {
// CHECK-NEXT: if (!_b_loop0.next())
// CHECK: if (w == 0.0f) {  // line 52
// CHECK-NEXT: _b_loop0.exit();  // line 53
// CHECK: { vb::Where _b_where0(vb::at(x, i)[k].item<float>() < -1.5f);  // line 54
// CHECK-NEXT: _b_loop0.exit();  // line 55
// CHECK: for (float w : weights) {  // line 59
// CHECK-NEXT: if (w == 0.0f) {  // line 60
// CHECK-NEXT: break;  // line 61

// Collatz steps with a cap: `break` and `continue` inside a per-example `while`.
void collatz(const Tensor& start, Tensor& steps, Tensor& odd_steps) {
#pragma vmap
  for (int64_t i = 0; i < start.size(0); ++i) {
    int64_t n = start[i].item<int64_t>();
    int64_t count = 0;
    int64_t odd = 0;
    while (n != 1) {
      ++count;
      if (count > 50)
        break;
      if (n % 2 == 0) {
        n = n / 2;
        continue;
      }
      n = 3 * n + 1;
      ++odd;
    }
    steps[i] = count;
    odd_steps[i] = odd;
  }
}
// CHECK-LABEL: void collatz(
// CHECK: { vb::Loop _b_loop0;  // line 90
// CHECK-NEXT: while (_b_loop0.next(n != 1)) {
// CHECK-NEXT: count += 1;  // line 91
// CHECK-NEXT: { vb::Where _b_where0(count > 50);  // line 92
// CHECK-NEXT: _b_loop0.exit();  // line 93
// CHECK: n = n / 2;  // line 95
// CHECK-NEXT: _b_loop0.skip();  // line 96
// CHECK: odd += 1;  // line 99
// CHECK-NEXT: _b_loop0.resume();

int main() {
  Tensor x = tensor({0.5f, 2.0f, -1.0f, 3.0f, -2.0f, 0.1f, 0.2f, 0.3f, 4.0f, 4.0f, 4.0f,
                     4.0f, -0.5f, -0.5f, 1.5f, 0.0f})
                 .reshape({4, 4});
  Tensor threshold = tensor({1.0f, 0.25f, 3.5f, 10.0f});
  Tensor position = zeros({4}, kInt64);
  first_above(x, threshold, position);
  std::cout << position << "\n";

  Tensor sums = zeros({4});
  Tensor weighted = zeros({4, 4});
  positive_sum(x, {1.0f, 0.5f, 2.0f, 0.0f, 3.0f}, sums, weighted);
  std::cout << sums << "\n" << weighted << "\n";

  Tensor start = tensor({int64_t{1}, 2, 3, 7, 27, 97, 6});
  Tensor steps = zeros({7}, kInt64);
  Tensor odd_steps = zeros({7}, kInt64);
  collatz(start, steps, odd_steps);
  std::cout << steps << "\n" << odd_steps << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
