// The output is a shifted view of the input the loop reads.
#include <vmap/vmap.hpp>
using namespace vmap;

void shift(Tensor& x) {
  Tensor out = x.narrow(0, 1, x.size(0) - 1);
#pragma vmap
  for (int64_t i = 0; i < out.size(0); ++i)
    out[i] = x[i] + 1;
// CHECK: {{.*}}alias_shifted.cpp:[[@LINE-1]]:14: error: 'out' is a view of 'x', which the loop also reads: the output overlaps an input
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
