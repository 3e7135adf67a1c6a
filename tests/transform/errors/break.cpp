#include <vmap/vmap.hpp>
using namespace vmap;

void stop_early(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (x[i].sum().item<float>() > 3)
      break;
// CHECK: {{.*}}break.cpp:[[@LINE-1]]:7: error: 'break' in the body of a vmap loop
// CHECK: note: a jump out of the vmap loop's body cuts across examples: every example must run the whole body
    out[i] = x[i];
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
