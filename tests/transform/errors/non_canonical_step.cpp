#include <vmap/vmap.hpp>
using namespace vmap;

void every_other(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); i += 2)
// CHECK: {{.*}}non_canonical_step.cpp:[[@LINE-1]]:38: error: a vmap loop must step its induction variable 'i' by one
    out[i] = x[i];
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
