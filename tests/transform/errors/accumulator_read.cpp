// Reading an accumulator inside the loop that reduces into it.
#include <vmap/vmap.hpp>
using namespace vmap;

void running(const Tensor& x, Tensor& out) {
  float total = 0;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    total += x[i].item<float>();
    out[i] = total;
// CHECK: {{.*}}accumulator_read.cpp:[[@LINE-1]]:14: error: accumulator 'total' is read in the loop it reduces over
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
