// A random factory in the body of a vmap loop without a randomness clause is refused at the
// call, the note naming both clauses; in a helper the loop calls too. manual_seed stays
// refused with a clause (it would reseed the one generator every example shares).
#include <vmap/vmap.hpp>
using namespace vmap;

void noisy(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + randn({x.size(1)});
// CHECK: {{.*}}random_factory.cpp:[[@LINE-1]]:21: error: random factory 'randn' in the body of a vmap loop: the generator is shared state
// CHECK: note: add a clause to the pragma: '#pragma vmap randomness(different)' draws each example's own numbers (not the sequence of the loop as written), '#pragma vmap randomness(same)' one draw shared by every example
}

Tensor dropout(const Tensor& row) { return row * bernoulli(row, 0.9) / 0.9; }
// CHECK: {{.*}}random_factory.cpp:[[@LINE-1]]:50: error: random factory 'bernoulli' in the body of a vmap loop: the generator is shared state
// CHECK: note: add a clause to the pragma

void masked(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = dropout(x[i]);
// CHECK: {{.*}}random_factory.cpp:[[@LINE-1]]:14: note: in 'dropout', called here in a vmap loop
}

void reseeded(const Tensor& x, Tensor& out) {
#pragma vmap randomness(different)
  for (int64_t i = 0; i < x.size(0); ++i) {
    manual_seed(7);
// CHECK: {{.*}}random_factory.cpp:[[@LINE-1]]:5: error: random factory 'manual_seed' in the body of a vmap loop: the generator is shared state
// CHECK: note: draw the random numbers for all examples before the loop
    out[i] = x[i] + rand_like(x[i]);
  }
}

// With randomness(different), a helper that draws but takes no per-example argument would
// run once for all examples (its draw shared): refused, saying what to pass.
Tensor noise(int64_t n) { return randn({n}); }

void shared_helper(const Tensor& x, Tensor& out) {
#pragma vmap randomness(different)
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + noise(x.size(1));
// CHECK: {{.*}}random_factory.cpp:[[@LINE-1]]:21: error: call to 'noise' has no batching rule and cannot run per example
// CHECK: note: functions defined in this file are batched as clones, but not this one: it draws random numbers but takes no per-example argument, so it would draw once for all examples; pass it a per-example value, or draw in the loop
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
