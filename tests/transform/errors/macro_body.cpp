// A per-example read whose `[]` is spelled in a macro body cannot be rewritten there.
#include <vmap/vmap.hpp>
using namespace vmap;
#define ROW_TWICE(t, k) (t)[k] * 2

void rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = ROW_TWICE(x, i);
// CHECK: {{.*}}macro_body.cpp:[[@LINE-1]]:14: error: loop not batched: per-example code spelled inside a macro body must change here
// CHECK: note: write this part of the loop out, or pass the per-example values to the macro as arguments
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
