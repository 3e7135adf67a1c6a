#include <vmap/vmap.hpp>
using namespace vmap;

void skip_ahead(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i];
    i += 1;
// CHECK: {{.*}}induction_written.cpp:[[@LINE-1]]:5: error: the induction variable 'i' is written in the loop body
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
