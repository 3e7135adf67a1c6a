#include <vmap/vmap.hpp>
#include <cstdio>
using namespace vmap;

void show(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i];
    std::printf("%d\n", static_cast<int>(i));
// CHECK: {{.*}}io_printf.cpp:[[@LINE-1]]:5: error: I/O in the body of a vmap loop ('printf')
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
