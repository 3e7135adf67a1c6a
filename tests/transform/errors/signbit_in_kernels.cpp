// std::signbit in a loop the tool would run as a scalar kernel is refused, naming a form that
// compiles (a fifth hostile hunt of issue 31): GCC 12 stops with an internal compiler error
// on the kernel's vectorised loop over examples in AVX-512, so the rewrite did not compile
// although the tool said the loop was batched.
#include <vmap/vmap.hpp>
#include <cmath>
using namespace vmap;

void signs(const Tensor& a, Tensor& negative) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    const float x = a[i].item<float>();
    negative[i] = std::signbit(x);
// CHECK-DAG: {{.*}}signbit_in_kernels.cpp:[[@LINE-1]]:19: error: call to 'signbit' has no batching rule and cannot run per example
// CHECK-DAG: {{.*}}signbit_in_kernels.cpp:[[@LINE-2]]:19: note: GCC 12 fails on 'signbit' in a loop it vectorises (an internal compiler error); 'std::copysign(1.0f, x) < 0' is the same test
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
