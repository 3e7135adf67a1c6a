// Functions of this file the loop calls per example, whose every path returns before the
// end of the body: from inside `while (true)` / `for (;;)` / a counted loop, from each case
// of a `switch` (default included), from both branches of an `if`. Each example leaves the
// loop when it returns (the batched loop ends when none is left in it) and the clone ends
// with the results the examples returned (0 of the result type where it runs for no example,
// under an `if` no example takes: a loop no example enters returns nothing). A function
// returning a Tensor needs a `return` at its end for that case (errors/
// tensor_helper_without_final_return.cpp). A C++ scalar result stored alone is a scalar
// kernel that calls the function as written, once per example (Note [Fused control flow] in
// transform/fuse_scalar.cpp); inside tensor code the clone runs.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Collatz steps: the loop ends only through the `return`.
int64_t collatz_steps(int64_t v) {
  int64_t steps = 0;
  while (true) {
    if (v <= 1)
      return steps;
    v = v % 2 == 0 ? v / 2 : 3 * v + 1;
    ++steps;
  }
}
// CHECK-LABEL: batched clone of 'collatz_steps'
// CHECK: vb::Returns _b_returns;
// CHECK: { vb::Loop _b_loop0;
// CHECK-NEXT: while (_b_loop0.next(true)) {
// CHECK: _b_returns.exit(vb::scalar_cast<int64_t>(steps));
// CHECK: return _b_returns.result(vb::scalar_cast<int64_t>(0));  // clang-vmap: every example returned above
// CHECK-NEXT: }

// A tensor halved until it is small: `for (;;)`, the tensor returned; the `return` after
// the loop is what the clone gives where it runs for no example.
Tensor halve_until_small(Tensor v, float limit) {
  for (;;) {
    if (v.abs().amax().item<float>() < limit)
      return v;
    v = v / 2;
  }
  return v;
}
// CHECK-LABEL: batched clone of 'halve_until_small'
// CHECK: for (;;) {
// CHECK-NEXT: if (!_b_loop0.next())
// CHECK-NEXT: break;
// CHECK: return _b_returns.result(v);

// A counted loop that returns from inside, and a last return after it.
int64_t first_multiple(int64_t v, int64_t of) {
  for (int64_t j = 1; j < 5; ++j)
    if ((v * j) % of == 0)
      return j;
  return -1;
}
// CHECK-LABEL: batched clone of 'first_multiple'
// CHECK: if (!_b_loop0.next())
// CHECK: return _b_returns.result(vb::scalar_cast<int64_t>(-1));

// A `switch` that returns in every case and in `default`.
float pick(int64_t code, float v) {
  switch (code) {
  case 0:
    return v;
  case 1:
    return -v;
  default:
    return 2 * v;
  }
}
// CHECK-LABEL: batched clone of 'pick'
// CHECK: _b_returns.exit(vb::scalar_cast<float>(2 * v));
// CHECK-NEXT: }
// CHECK-NEXT: return _b_returns.result(vb::scalar_cast<float>(0));
// CHECK-NEXT: }

// Both branches of an `if` return.
float sign_of(float v) {
  if (v < 0)
    return -1.0f;
  else
    return 1.0f;
}
// CHECK-LABEL: batched clone of 'sign_of'
// CHECK: return _b_returns.result(vb::scalar_cast<float>(0));

// `do { ... } while (true)` left by a return.
int64_t sum_past_20(int64_t v) {
  int64_t s = 0;
  do {
    s += v;
    if (s > 20)
      return s;
  } while (true);
}
// CHECK-LABEL: batched clone of 'sum_past_20'
// CHECK: } while (_b_loop0.next(true));
// CHECK: return _b_returns.result(vb::scalar_cast<int64_t>(0));

void apply(const Tensor& x, const Tensor& codes, Tensor& steps, Tensor& halved,
           Tensor& firsts, Tensor& picked, Tensor& signs, Tensor& sums) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t v = codes[i].item<int64_t>();
    steps[i] = collatz_steps(v);
    halved[i] = halve_until_small(x[i], 1.0f);
    firsts[i] = first_multiple(v, 12);
    picked[i] = pick(v % 4, x[i][0].item<float>());
    signs[i] = sign_of(x[i][1].item<float>());
    sums[i] = sum_past_20(v + 1);
    // In tensor code: the clones, batched.
    steps[i] += codes[i] * 0 + collatz_steps(v);
    firsts[i] += codes[i] * 0 + first_multiple(v, 12);
    sums[i] += codes[i] * 0 + sum_past_20(v + 1);
    signs[i] += x[i][0] * 0 + sign_of(x[i][1].item<float>());
    // No example takes this branch: the clones run for none.
    if (v > 100) {
      steps[i] = collatz_steps(v) * 1000;
      halved[i] = halve_until_small(x[i], 1.0f) * 1000;
      sums[i] = sum_past_20(v) * 1000;
    }
  }
}
// CHECK-LABEL: void apply(
// CHECK: vb::at(steps, i) = vb::fused_scalar([](int64_t v) {
// CHECK-NEXT: return collatz_steps(v);
// CHECK-NEXT: }, v);
// CHECK: vb::at(halved, i) = _b_halve_until_small(vb::at(x, i), 1.0f);
// CHECK: vb::at(steps, i) += vb::at(codes, i) * 0 + _b_collatz_steps(v);

int main() {
  Tensor x = tensor({3.0f, -0.5f, 0.25f, 0.5f, -9.0f, 40.0f, 0.0f, 2.0f, 1.5f, -1.5f})
                 .reshape({5, 2});
  Tensor codes = tensor({int64_t{1}, 6, 7, 27, 12});
  Tensor steps = zeros({5}, kInt64), firsts = zeros({5}, kInt64);
  Tensor halved = zeros({5, 2}), picked = zeros({5}), signs = zeros({5});
  Tensor sums = zeros({5}, kInt64);
  apply(x, codes, steps, halved, firsts, picked, signs, sums);
  std::cout << steps << "\n" << halved << "\n" << firsts << "\n" << picked << "\n"
            << signs << "\n" << sums << "\n";

  // No examples: no loop runs and no example returns.
  Tensor no_x = zeros({0, 2}), no_codes = zeros({0}, kInt64);
  Tensor no_steps = zeros({0}, kInt64), no_firsts = zeros({0}, kInt64);
  Tensor no_halved = zeros({0, 2}), no_picked = zeros({0}), no_signs = zeros({0});
  Tensor no_sums = zeros({0}, kInt64);
  apply(no_x, no_codes, no_steps, no_halved, no_firsts, no_picked, no_signs, no_sums);
  std::cout << no_steps << "\n" << no_halved << "\n" << no_sums << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
