// A function of this file returning a Tensor whose every path returns before the end of
// its body: where the loop calls it for no example (under an `if` none takes), a loop no
// example enters returns nothing, and no Tensor stands in for the results (a C++ scalar's
// 0 does). A `return` at the end of the body gives the clone that value.
#include <vmap/vmap.hpp>
using namespace vmap;

Tensor halve_until_small(Tensor v, float limit) {
  for (;;) {
    if (v.abs().amax().item<float>() < limit)
      return v;
    v = v / 2;
  }
}
// CHECK: {{.*}}tensor_helper_without_final_return.cpp:[[@LINE-1]]:1: error: a function returning 'Tensor' whose every path returns before the end of its body (add a 'return' at its end) is not supported in the body of a vmap loop

void apply(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = halve_until_small(x[i], 1.0f);
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
