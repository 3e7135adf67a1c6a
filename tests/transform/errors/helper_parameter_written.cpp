// A helper that writes in place into a Tensor parameter taken by value writes the caller's
// argument (a handle to the same elements): refused, saying so (it was called "the same for
// every example", though the argument is the example's own).
#include <vmap/vmap.hpp>
using namespace vmap;

Tensor bumped(Tensor t) {
  t *= 2;
// CHECK: {{.*}}helper_parameter_written.cpp:[[@LINE-1]]:3: error: in-place write to 't', a parameter of the helper, which shares its elements with the caller's argument (a Tensor passed by value is a handle to the same elements)
// CHECK: note: compute a new tensor ('t = t * e' rebinds the parameter), or write into a copy ('.clone()')
  return t;
}

void doubled(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = bumped(x[i] * 1);
// CHECK: note: in 'bumped', called here in a vmap loop (its body is batched with it)
}
// CHECK: 1 error generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
