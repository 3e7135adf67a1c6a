// `++`, `--` and compound assignments whose value the code uses, in every place a
// condition sits: `while`, `do`, a `for`'s condition and increment, `if`, `?:`, the right
// of `&&` / `||`, and inside arithmetic. `k++` is the value before the step, `++k` the
// variable after it, and what the right of `&&` or an arm of `?:` writes is written only
// for the examples C++ evaluates it for. The loops end after each example's own trips.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// One result: the loop runs as written, per example, in a scalar kernel.
void post_in_kernel(const Tensor& lim, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < lim.size(0); ++i) {
    int64_t L = lim[i].item<int64_t>();
    int64_t k = 0, n = 0;
    while (k++ < L) n += k;
    out[i] = n;
  }
}
// CHECK-LABEL: void post_in_kernel(
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t L) {
// CHECK: while (k++ < L) n += k;

// Two results of each loop: they run batched, under masks.
void post_and_pre(const Tensor& lim, Tensor& sums, Tensor& ks) {
#pragma vmap
  for (int64_t i = 0; i < lim.size(0); ++i) {
    int64_t L = lim[i].item<int64_t>();
    int64_t k = 0, n = 0;
    while (k++ < L) n += k;
    int64_t m = 0;
    while (++m < L) n += 100 * m;
    int64_t d = 0;
    while (d-- > -L) n += d;
    sums[i] = n;
    ks[i] = k * 10000 + m * 100 + d;
  }
}
// CHECK-LABEL: void post_and_pre(
// CHECK: while (_b_loop0.next(vb::post_increment(k) < L)) {
// CHECK: while (_b_loop1.next((m += 1) < L)) {
// CHECK: while (_b_loop2.next(vb::post_decrement(d) > -L)) {

// `do ... while (k++ < L)`, a compound assignment in a condition, a `for` whose
// condition and increment step per-example variables, and steps inside arithmetic.
void do_for_compound(const Tensor& lim, Tensor& sums, Tensor& ks) {
#pragma vmap
  for (int64_t i = 0; i < lim.size(0); ++i) {
    int64_t L = lim[i].item<int64_t>();
    int64_t k = 0, n = 0;
    do {
      n += k;
    } while (k++ < L);
    int64_t s = 0;
    while ((s += 3) < L) n += s;
    int64_t t = 0;
    for (int64_t j = 0; t++ < L; n += 10 * j++) {
    }
    n += 1000 * --t;
    sums[i] = n;
    ks[i] = k * 10000 + s * 100 + t;
  }
}
// CHECK-LABEL: void do_for_compound(
// CHECK: } while (_b_loop0.next(vb::post_increment(k) < L));
// CHECK: while (_b_loop1.next((s += 3) < L)) {
// CHECK: for (int64_t j = 0; _b_loop2.next(vb::post_increment(t) < L); n += 10 * j++) {
// CHECK: n += 1000 * (t -= 1);

// The right of `&&` / `||` steps only the examples whose left does not decide;
// an `if` on a step; `?:` steps the arm it takes.
void short_circuits(const Tensor& lim, Tensor& sums, Tensor& ks) {
#pragma vmap
  for (int64_t i = 0; i < lim.size(0); ++i) {
    int64_t L = lim[i].item<int64_t>();
    int64_t k = 0, n = 0;
    while (n < 12 && k++ < L) n += k;
    int64_t a = 0;
    if (L > 2 || a++ < 5) n += 100 * a;
    int64_t b = 10;
    int64_t c = L % 2 == 0 ? b++ : --b;
    if (b-- > 9) n += 1000;
    sums[i] = n;
    ks[i] = k * 10000 + a * 1000 + b * 10 + c;
  }
}
// CHECK-LABEL: void short_circuits(
// CHECK: while (_b_loop0.next(vb::logical_and(n < 12, [&] { return vb::post_increment(k) < L; }))) {
// CHECK: { vb::Where _b_where0(vb::logical_or(L > 2, [&] { return vb::post_increment(a) < 5; }));
// CHECK: vb::Value c = vb::where(L % 2 == 0, [&] { return vb::post_increment(b); }, [&] { return (b -= 1); });
// CHECK: { vb::Where _b_where1(vb::post_decrement(b) > 9);

// Steps on both sides of `||` / `&&`, in a `switch`'s value, in an index, in a `?:`
// condition and in the arms of a `?:` on a loop-invariant condition. `k` starts the same
// for every example, but it is declared with the per-example `n`: one declaration has one
// type, so both are per-example values (`k++` on an `int64_t` beside a vb::Value `k`
// did not compile).
void steps_everywhere(const Tensor& lim, const Tensor& x, bool up, Tensor& sums,
                      Tensor& ks, Tensor& rest) {
#pragma vmap
  for (int64_t i = 0; i < lim.size(0); ++i) {
    int64_t L = lim[i].item<int64_t>();
    int64_t k = 0, n = 0;
    int64_t c = up ? k++ : k--;
    if (k++ == 2 || k++ == 5)
      n += 1;
    if (k++ == 1 && k++ == 4)
      n += 10;
    switch (k++) {
    case 3:
      n += 100;
      break;
    default:
      n += 1000;
    }
    int64_t j = 0;
    while (x[i][j++].item<float>() < 3.0f && j < 4)
      n += j;
    int64_t s = 1;
    while ((s *= 2) < L)
      n += s;
    int64_t e = k++ > 4 ? k : -k;
    sums[i] = n;
    ks[i] = k * 100 + j;
    rest[i] = c * 10000 + s * 100 + e;
  }
}
// CHECK-LABEL: void steps_everywhere(
// CHECK: vb::Value k = vb::scalar_cast<int64_t>(0), n = vb::scalar_cast<int64_t>(0);
// CHECK-NEXT: vb::Value c = (up ? vb::Value(vb::post_increment(k)) : vb::Value(vb::post_decrement(k)));
// CHECK-NEXT: { vb::Where _b_where0(vb::logical_or(vb::post_increment(k) == 2, [&] { return vb::post_increment(k) == 5; }));
// CHECK: { vb::Where _b_where1(vb::logical_and(vb::post_increment(k) == 1, [&] { return vb::post_increment(k) == 4; }));
// CHECK: { vb::Switch _b_switch0(vb::post_increment(k), {3});
// CHECK: while (_b_loop0.next(vb::logical_and(vb::at(x, i)[vb::post_increment(j)].item<float>() < 3.0f, [&] { return j < 4; }))) {
// CHECK: while (_b_loop1.next((s *= 2) < L)) {
// CHECK: vb::Value e = vb::where(vb::post_increment(k) > 4, [&] { return k; }, [&] { return -k; });

// A per-example increment of a `for` with no condition: the examples that `continue`
// step too, as C++ goes from `continue` to the increment.
void continue_then_step(const Tensor& lim, Tensor& sums, Tensor& ks) {
#pragma vmap
  for (int64_t i = 0; i < lim.size(0); ++i) {
    int64_t L = lim[i].item<int64_t>();
    int64_t m = 0, n = 0;
    for (;; m += 1) {
      if (m % 2 == 0)
        continue;
      if (m > L)
        break;
      n += m;
    }
    sums[i] = n;
    ks[i] = m;
  }
}
// CHECK-LABEL: void continue_then_step(
// CHECK: { vb::Loop _b_loop0;
// CHECK-NEXT: for (;; m += 1) {
// CHECK-NEXT: if (!_b_loop0.next(true))
// CHECK-NEXT: break;
// CHECK: _b_loop0.skip();
// CHECK: _b_loop0.exit();
// CHECK: n += m;
// CHECK-NEXT: _b_loop0.resume();
// CHECK-NEXT: }

// A function of this file with a post-increment in its loop's condition.
int64_t count_up(int64_t L) {
  int64_t k = 0, n = 0;
  while (k++ < L)
    n += k;
  return n * 100 + k;
}
// CHECK-LABEL: batched clone of 'count_up'
// CHECK: while (_b_loop0.next(vb::post_increment(k) < L)) {

// Its result stored alone is a scalar kernel calling it as written; in tensor code the
// clone runs.
void call_count_up(const Tensor& lim, Tensor& sums) {
#pragma vmap
  for (int64_t i = 0; i < lim.size(0); ++i) {
    sums[i] = count_up(lim[i].item<int64_t>());
    sums[i] += lim[i] * 0 + count_up(lim[i].item<int64_t>());
  }
}
// CHECK-LABEL: void call_count_up(
// CHECK: vb::at(sums, i) = vb::fused_scalar({{.*}}[]({{long|int64_t}} a) {
// CHECK-NEXT: return count_up(a);
// CHECK: vb::at(sums, i) += vb::at(lim, i) * 0 + _b_count_up(vb::at(lim, i).item<int64_t>());

int main() {
  Tensor lim = tensor({int64_t{0}, 1, 3, 5, 8});
  Tensor sums = zeros({5}, kInt64), ks = zeros({5}, kInt64);
  post_in_kernel(lim, sums);
  std::cout << sums << "\n";
  post_and_pre(lim, sums, ks);
  std::cout << sums << "\n" << ks << "\n";
  do_for_compound(lim, sums, ks);
  std::cout << sums << "\n" << ks << "\n";
  short_circuits(lim, sums, ks);
  std::cout << sums << "\n" << ks << "\n";
  Tensor x = arange(20).reshape({5, 4}).to(kFloat).remainder(5.0);
  Tensor rest = zeros({5}, kInt64);
  for (bool up : {true, false}) {
    steps_everywhere(lim, x, up, sums, ks, rest);
    std::cout << sums << "\n" << ks << "\n" << rest << "\n";
  }
  continue_then_step(lim, sums, ks);
  std::cout << sums << "\n" << ks << "\n";
  call_count_up(lim, sums);
  std::cout << sums << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
