// A preprocessor conditional inside a vmap loop (issue 31): the batched code would keep the
// branch the tool's flags select (clang's: `__clang__` is defined), while the loop as written,
// kept for the overlap fallback and compiled by the user's compiler (g++), takes the other.
// Refused at the directive, for every form of conditional, in the loop or in a function the
// loop batches with it; a conditional around a whole loop is fine (the last loop is batched).
#include <vmap/vmap.hpp>
using namespace vmap;
#define SCALE 2

void compiler_branch(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#if __clang__
// CHECK: {{.*}}conditional_in_loop.cpp:[[@LINE-1]]:2: error: a preprocessor conditional inside a vmap loop cannot be batched: the batched code would keep the branch the tool's flags select, while the loop as written, compiled with the compiler's flags, may take another
// CHECK: note: move the conditional outside the loop, with a '#pragma vmap' loop in each branch; conditionals around a whole loop are fine
    out[i] = x[i] * 3;
#else
    out[i] = x[i] * 2;
#endif
  }
}

void ifdef_branch(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor row = x[i];
#ifdef NDEBUG
// CHECK: {{.*}}conditional_in_loop.cpp:[[@LINE-1]]:2: error: a preprocessor conditional inside a vmap loop
    row = row + 1;
#endif
    out[i] = row;
  }
}

void macro_value(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#if SCALE > 1
// CHECK: {{.*}}conditional_in_loop.cpp:[[@LINE-1]]:2: error: a preprocessor conditional inside a vmap loop
    out[i] = x[i] * SCALE;
#endif
}

Tensor shifted(const Tensor& row) {
#if defined(__GNUC__) && !defined(__clang__)
// CHECK: {{.*}}conditional_in_loop.cpp:[[@LINE-1]]:2: error: a preprocessor conditional inside a vmap loop (in 'shifted', which the loop calls and is batched with) cannot be batched
// CHECK: note: move the conditional outside the loop, with a '#pragma vmap' loop in each branch (or out of 'shifted'); conditionals around a whole loop are fine
  return row - 1;
#else
  return row + 1;
#endif
}

void in_a_helper(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = shifted(x[i]);
}

#if SCALE > 1
void around_the_loop(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * SCALE;
}
#endif
// CHECK-NOT: error:

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
