// Every independent refusal in a loop is reported, each with its note, as a compiler
// reports every error; the file is still left untouched.
#include <vmap/vmap.hpp>
#include <cstdio>
using namespace vmap;

void several(const Tensor& x, Tensor& out, Tensor& total) {
#pragma vmap
  for (int64_t i = 1; i < x.size(0); ++i) {
    if (x[i].sum().item<float>() > 3)
      break;
// CHECK: {{.*}}several_refusals.cpp:[[@LINE-1]]:7: error: 'break' in the body of a vmap loop
// CHECK: note: a jump out of the vmap loop's body cuts across examples: every example must run the whole body
    total = x[i];
// CHECK: {{.*}}several_refusals.cpp:[[@LINE-1]]:5: error: write to 'total', which is the same for every example, is not a recognised reduction
// CHECK: note: write to a slot of the example
    out[i] = out[i - 1] + x[i];
// CHECK: {{.*}}several_refusals.cpp:[[@LINE-1]]:14: error: loop-carried dependence: 'out' is written per example and read here at a slot of another iteration
// CHECK: note: each example may read only the slots it writes
    std::printf("%f\n", x[i].sum().item<float>());
// CHECK: {{.*}}several_refusals.cpp:[[@LINE-1]]:5: error: I/O in the body of a vmap loop ('printf')
// CHECK: note: use runtime ops
// CHECK: 4 errors generated.
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
