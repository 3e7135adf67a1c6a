// A recursive helper defined above the loop: refused for its recursion (issue 31: the
// refusal said it was defined after the loop).
#include <vmap/vmap.hpp>
using namespace vmap;

Tensor halve(const Tensor& t, int64_t times) {
  if (times == 0)
    return t;
  return halve(t * 0.5, times - 1);
}

Tensor ping(const Tensor& t, int64_t n);
Tensor pong(const Tensor& t, int64_t n) { return n <= 0 ? t : ping(t + 1, n - 1); }
Tensor ping(const Tensor& t, int64_t n) { return n <= 0 ? t : pong(t * 2, n - 1); }

void run(const Tensor& x, Tensor& out, Tensor& other) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = halve(x[i], 3);
    other[i] = pong(x[i], 3);
  }
}
// CHECK: {{.*}}recursive_helper.cpp:9:10: error: call to 'halve' has no batching rule
// CHECK: note: functions defined in this file are batched as clones, but not this one: it calls itself, and a recursive function has no batched form
// CHECK: {{.*}}recursive_helper.cpp:14:63: error: call to 'pong' has no batching rule
// CHECK: note: functions defined in this file are batched as clones, but not this one: it calls itself through 'ping', and a recursive function has no batched form

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
