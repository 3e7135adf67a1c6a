// x.select(0, 0)[i] is x[0][i]: a slot of example 0, which the loop writes per example.
#include <vmap/vmap.hpp>
using namespace vmap;

void other_slot(Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    x[i][0] = x[i].sum();
    x[i][1] = x.select(0, 0)[i];
  }
}
// CHECK: {{.*}}other_slot_through_select.cpp:9:15: error: loop-carried dependence: 'x' is written per example and read here at a slot of another iteration

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
