// A store through a data-dependent index outside the example's own slot (a scatter).
#include <vmap/vmap.hpp>
using namespace vmap;

void scatter(const Tensor& x, const Tensor& dest, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[dest[i].item<int64_t>()] = x[i];
// CHECK: {{.*}}store_not_own_slot.cpp:[[@LINE-1]]:5: error: store into 'out' does not write only this example's slot: index it by the induction variable 'i' first
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
