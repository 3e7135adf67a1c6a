// A call of a function this file does not define: it may have side effects.
#include <vmap/vmap.hpp>
using namespace vmap;

void log_row(const Tensor& row, int64_t index);

void logged(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    log_row(x[i], i);
// CHECK: {{.*}}side_effect_call.cpp:[[@LINE-1]]:5: error: call to 'log_row' has no batching rule and cannot run per example
    out[i] = x[i];
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
