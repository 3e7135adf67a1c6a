// A `try` block in the body, and a call with side effects on a container: both refused.
#include <vmap/vmap.hpp>
#include <vector>
using namespace vmap;

void refused(const Tensor& x, Tensor& out, std::vector<float>& log) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    try {
// CHECK: {{.*}}try_and_container.cpp:[[@LINE-1]]:5: error: a 'try' block is not supported in the body of a vmap loop
// CHECK: note: rewrite it with the forms README.md lists under 'What it batches', or leave the loop unannotated
      out[i] += x[i];
    } catch (...) {
    }
    log.push_back(x[i].sum().item<float>());
// CHECK: {{.*}}try_and_container.cpp:[[@LINE-1]]:5: error: call to 'push_back' has no batching rule and cannot run per example
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
