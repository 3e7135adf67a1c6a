// A `#pragma vmap` loop in code the preprocessor skips under the tool's flags is not
// rewritten, and becomes an `#error`: compiled with other flags that select it, the
// build fails instead of running the loop per example. The loop the flags select is
// batched as usual.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
using namespace vmap;

void offset_rows(const Tensor& x, Tensor& out) {
#ifdef VMAP_TEST_NEVER_DEFINED
  #  pragma   vmap  // a comment after it
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] - 1;
#else
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + 1;
#endif
#if 0
#pragma vmap_other_tool
#pragma vmap
#endif
}

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat);
  Tensor out = zeros({3, 2});
  offset_rows(x, out);
  std::cout << out << "\n";
}

// CHECK: #ifdef VMAP_TEST_NEVER_DEFINED
// CHECK-NEXT: {{^}}  #error "clang-vmap: this '#pragma vmap' loop was not rewritten: the tool saw this code excluded by the preprocessor (give it the compiler's flags)"  // a comment after it
// CHECK-NEXT: for (int64_t i = 0; i < x.size(0); ++i)
// CHECK: #else
// CHECK: vb::at(out, i) = vb::at(x, i) + 1;  // line 18
// CHECK: #if 0
// CHECK-NEXT: #pragma vmap_other_tool
// CHECK-NEXT: #error "clang-vmap: this '#pragma vmap' loop was not rewritten

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
