// A slot written by one iteration and read by another: a loop-carried dependence.
#include <vmap/vmap.hpp>
using namespace vmap;

void prefix(Tensor& out) {
#pragma vmap
  for (int64_t i = 1; i < out.size(0); ++i)
    out[i] = out[i - 1] + 1;
// CHECK: {{.*}}loop_carried.cpp:[[@LINE-1]]:14: error: loop-carried dependence: 'out' is written per example and read here at a slot of another iteration
// CHECK: note: each example may read only the slots it writes
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
