// A randomness clause goes on the outermost vmap loop of a nest: the batched code of a nest
// is one block, and the outermost loop's clause covers it all.
#include <vmap/vmap.hpp>
using namespace vmap;

void nested(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap randomness(same)
// CHECK: {{.*}}randomness_nested.cpp:[[@LINE-1]]:1: error: a 'randomness' clause on a vmap loop nested in another: put it on the outermost vmap loop, whose clause covers the loops nested in it
    for (int64_t j = 0; j < x.size(1); ++j)
      out[i][j] = x[i][j] + rand_like(x[i][j]);
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
