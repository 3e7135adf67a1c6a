// An annotated inner loop whose bound depends on the outer induction variable.
#include <vmap/vmap.hpp>
using namespace vmap;

void lower_triangle(Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < out.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < i; ++j)
// CHECK: {{.*}}nested_bound.cpp:[[@LINE-1]]:29: error: the bound of a nested vmap loop depends on the per-example value 'i'
      out[i][j] = 1;
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
