// A Tensor handle rebound for some examples only (a per-example `if`, `?:` or loop) is a view
// of one tensor in one example and a new tensor in another; the batched handle is one value,
// the examples' merged, so an in-place write through it would reach no example's tensor.
// Refused where the handle may share its elements (Note [Handles rebound for some examples]
// in transform/analyse_check.cpp); a handle whose every value is new is accepted.
#include <vmap/vmap.hpp>
using namespace vmap;

void rebound_in_an_if(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor r = out[i];
    if (x[i].item<float>() > 0) r = r * 2;
    r += 10;
// CHECK: {{.*}}rebound_for_some_examples.cpp:[[@LINE-1]]:5: error: in-place write to 'r', which 'r = r * 2' (line 13) makes a different tensor for some examples only: each example's 'r' would need elements of its own
// CHECK: note: write to a new local ('Tensor s = ...'), or make 'r' a copy first ('.clone()')
  }
}

void rebound_by_a_choice(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor r = out[i];
    r = x[i].item<float>() > 0 ? r * 2 : r;
    r.zero_();
// CHECK: {{.*}}rebound_for_some_examples.cpp:[[@LINE-1]]:5: error: in-place write to 'r', which 'r = x[i].item<float>() > 0 ? r * 2 : r' (line 24) makes a different tensor for some examples only
  }
}

void rebound_to_another_output(const Tensor& x, Tensor& out, Tensor& other) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor r = out[i];
    if (x[i].item<float>() < 0) r = other[i];
    r += x[i];
// CHECK: {{.*}}rebound_for_some_examples.cpp:[[@LINE-1]]:5: error: in-place write to 'r', which 'r = other[i]' (line 34) makes a different tensor for some examples only
  }
}

// Every value of s is a new tensor: merged, it is each example's own.
void new_tensors_only(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor s = x[i] * 3;
    if (x[i].item<float>() > 0) s = s * 2;
    s += 10;
    out[i] = s;
  }
}
// CHECK: 3 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
