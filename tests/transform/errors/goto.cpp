#include <vmap/vmap.hpp>
using namespace vmap;

void jump(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i];
    goto done;
// CHECK: {{.*}}goto.cpp:[[@LINE-1]]:5: error: 'goto' in the body of a vmap loop
  }
done:
  return;
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
