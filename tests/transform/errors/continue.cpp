#include <vmap/vmap.hpp>
using namespace vmap;

void skip(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (i == 2)
      continue;
// CHECK: {{.*}}continue.cpp:[[@LINE-1]]:7: error: 'continue' in the body of a vmap loop
    out[i] = x[i];
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
