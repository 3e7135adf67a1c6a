// Assigning a loop-invariant variable is not a reduction.
#include <vmap/vmap.hpp>
using namespace vmap;

float last_value(const Tensor& x) {
  float last = 0;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    last = x[i].item<float>();
// CHECK: {{.*}}invariant_write.cpp:[[@LINE-1]]:5: error: write to 'last', which is the same for every example, is not a recognised reduction
// CHECK: note: write to a slot of the example
  return last;
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
