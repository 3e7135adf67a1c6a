// `.item<T>()` is a C++ scalar: a copy of the element, which a later write of the element
// leaves as it was (the batched value was the element's storage itself: `float u =
// a[0].item<float>(); a[0] = 5;` gave u 5). Through a per-example local tensor, an output's
// slot, a swap of two elements (a per-example bubble sort), a counter read then advanced.
// The printed program's results are compared with the loop's as written.
#include <vmap/vmap.hpp>
#include <cstdio>
#include <iostream>
using namespace vmap;
void local_tensor(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor a = x[i].clone();
    float u = a[0].item<float>();
    a[0] = 5.0f;
    out[i] = u;
  }
}
void output_slot(const Tensor& x, Tensor& out, Tensor& old) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float u = out[i][0].item<float>();
    out[i][0] = x[i][0] * 10;
    old[i] = u;
  }
}
void scalar_copy(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float v = x[i][0].item<float>();
    float u = v;
    v += 1;
    v *= 3;
    out[i] = u + v * 100;
  }
}
void swap_sort(Tensor& rows) {
#pragma vmap
  for (int64_t i = 0; i < rows.size(0); ++i)
    for (int64_t pass = 0; pass < rows.size(1); ++pass)
      for (int64_t k = 0; k + 1 < rows.size(1); ++k) {
        float u = rows[i][k].item<float>(), v = rows[i][k + 1].item<float>();
        if (u > v) {
          rows[i][k] = v;
          rows[i][k + 1] = u;
        }
      }
}
void counter(Tensor& cur, Tensor& prev, const Tensor& d) {
#pragma vmap
  for (int64_t i = 0; i < cur.size(0); ++i) {
    int64_t k = cur[i].item<int64_t>();
    cur[i] = k + d[i].item<int64_t>();
    prev[i] = k;
  }
}
int main() {
  Tensor x = tensor({1.0f, 2.0f, 3.0f, 4.0f}).reshape({2, 2});
  Tensor out = zeros({2});
  local_tensor(x, out);
  for (int i = 0; i < 2; ++i) printf("%.6f\n", out[i].item<float>());
  Tensor o2 = tensor({7.0f, 8.0f, 9.0f, 6.0f}).reshape({2, 2}), old = zeros({2});
  output_slot(x, o2, old);
  for (int i = 0; i < 2; ++i) printf("%.6f %.6f\n", old[i].item<float>(), o2[i][0].item<float>());
  scalar_copy(x, out);
  for (int i = 0; i < 2; ++i) printf("%.6f\n", out[i].item<float>());
  manual_seed(3);
  Tensor rows = randn({5, 6});
  swap_sort(rows);
  std::cout << rows << "\n";
  Tensor cur = arange(4), prev = zeros({4}, kInt64), d = arange(4) * 10;
  counter(cur, prev, d);
  std::cout << cur << prev << "\n";
  // As many examples as a pending block holds and more (Note [Items as copies] in
  // rules/src/batched/batched_fused.hpp): their items are read where used, copied before a
  // write. Weighted sums say whether any example's value moved.
  const int64_t many = 70000;
  const Tensor weights = arange(many).to(kDouble).remainder(97) + 1;
  Tensor big = (arange(many * 2).reshape({many, 2}).to(kFloat) * 0.37f).sin();
  Tensor big_out = zeros({many}), big_old = zeros({many});
  local_tensor(big, big_out);
  Tensor slots = big.clone();
  output_slot(big, slots, big_old);
  Tensor big_cur = arange(many) % 13, big_prev = zeros({many}, kInt64);
  counter(big_cur, big_prev, arange(many) % 5);
  for (const Tensor& t : {big_out, big_old, slots.select(1, 0), big_cur, big_prev})
    std::printf("%.6f\n", (t.to(kDouble) * weights).sum().item<double>());
}

// CHECK-LABEL: void local_tensor(
// CHECK: vb::Value u = a[0].item<float>();
// CHECK-LABEL: void swap_sort(
// CHECK: batched from line
// CHECK-LABEL: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
