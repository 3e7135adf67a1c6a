// A reduction in a nested vmap loop into an integer of each example of an outer vmap loop,
// of values C++ converts after every step (a float into an int truncates, an unsigned
// wraps): batched, the inner values are reduced first and combined once, so refused (the
// rewrite summed 0.6 + 0.6 into 1 where C++ truncates each to 0).
#include <vmap/vmap.hpp>
using namespace vmap;

void truncating(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int c = 0;
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      c += x[i].item<float>() * y[j].item<float>();
// CHECK: {{.*}}nested_reduction_conversions.cpp:[[@LINE-1]]:7: error: reduction in a nested vmap loop into the 'int' 'c', which is each example's of an outer vmap loop: C++ converts to 'int' after every step (truncating a float, wrapping an unsigned), the batched reduction once
// CHECK: note: accumulate into a 'double' or 'int64_t' and convert once after the loop, or keep the inner loop unannotated
    out[i] = c;
  }
}

void wrapping(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    unsigned u = 0;
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      u -= (unsigned)(x[i].item<float>() * y[j].item<float>() > 0.0f);
// CHECK: {{.*}}nested_reduction_conversions.cpp:[[@LINE-1]]:7: error: reduction in a nested vmap loop into the 'unsigned int' 'u'
    out[i] = (int64_t)u;
  }
}
// CHECK: 2 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
