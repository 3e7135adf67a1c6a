#include <vmap/vmap.hpp>
using namespace vmap;

void grow(const Tensor& x, Tensor& out) {
  int64_t n = 3;
#pragma vmap
  for (int64_t i = 0; i < n; ++i) {
// CHECK: {{.*}}bound_written.cpp:[[@LINE-1]]:27: error: the bound of a vmap loop must not change in the loop, but 'n' does
    out[i] = x[i];
    n = 2;
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
