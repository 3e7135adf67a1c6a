// A read through `narrow` at a per-example start of a tensor the loop writes per example is
// no example's own slot (windows of neighbouring examples overlap; batched, each window is a
// gathered copy): refused, saying so, where it was called a slot of another iteration.
#include <vmap/vmap.hpp>
using namespace vmap;

void scale_by_total(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i] * 2.0f;
    out[i] = out[i] / out.narrow(0, i, 1).sum();
// CHECK: {{.*}}narrow_window_read.cpp:[[@LINE-1]]:23: error: 'out' is written per example and read here through 'narrow' at a per-example start, which is no example's own slot (the windows of neighbouring examples overlap; batched, each is a copy)
// CHECK: note: read the example's own slot by its index ('t[i]', 't.select(0, i)')
  }
}
// CHECK: 1 error generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
