#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void show(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    std::cout << i;
// CHECK: {{.*}}io_stream.cpp:[[@LINE-1]]:5: error: I/O in the body of a vmap loop ('operator<<')
    out[i] = x[i];
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
