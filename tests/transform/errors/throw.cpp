#include <vmap/vmap.hpp>
using namespace vmap;

void fail(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i];
    throw Error("no");
// CHECK: {{.*}}throw.cpp:[[@LINE-1]]:5: error: 'throw' in the body of a vmap loop
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
