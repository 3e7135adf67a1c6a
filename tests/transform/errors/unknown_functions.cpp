// Calls the tool cannot batch are named, with what to do: a function declared but
// defined in another file, and a call through a function pointer.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <cstdio>
using namespace vmap;

float score(const Tensor& row);  // defined in another file

void rank(const Tensor& x, Tensor& out, Tensor (*transform)(const Tensor&)) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i][0] = score(x[i]);
// CHECK: {{.*}}unknown_functions.cpp:[[@LINE-1]]:17: error: call to 'score' has no batching rule and cannot run per example
// CHECK: {{.*}}unknown_functions.cpp:[[@LINE-2]]:17: note: 'score' is declared but not defined in this file: define it here (its body is then batched with the loop), or ask for a batching rule for it
    out[i][1] = transform(x[i]).sum();
// CHECK: {{.*}}unknown_functions.cpp:[[@LINE-1]]:17: error: call to 'transform' has no batching rule and cannot run per example
  }
}

// A refusal inside a function of this file that the loop calls: also noted at the call.
Tensor noisy(const Tensor& t) {
  std::printf("scaling\n");
// CHECK: {{.*}}unknown_functions.cpp:[[@LINE-1]]:3: error: I/O in the body of a vmap loop ('printf')
  return t * 2;
}

void doubled(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = noisy(x[i]);
// CHECK: {{.*}}unknown_functions.cpp:[[@LINE-1]]:14: note: in 'noisy', called here in a vmap loop (its body is batched with it)
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
