// Every iteration reads out[0], which iteration 0 writes.
#include <vmap/vmap.hpp>
using namespace vmap;

void scale_by_first(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * out[0];
// CHECK: {{.*}}loop_carried_constant.cpp:[[@LINE-1]]:21: error: loop-carried dependence: 'out' is written per example
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
