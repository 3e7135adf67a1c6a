// A per-example value used as a C++ array index, or as the pointer that is indexed.
#include <vmap/vmap.hpp>
using namespace vmap;

void table_lookup(const Tensor& ids, Tensor& out) {
  const float table[4] = {1, 2, 3, 4};
#pragma vmap
  for (int64_t i = 0; i < ids.size(0); ++i)
    out[i] = table[ids[i].item<int64_t>()];
// CHECK: {{.*}}array_index.cpp:[[@LINE-1]]:14: error: per-example value used as a C++ array or pointer index, which must be the same for every example
// CHECK: note: use a loop-invariant value here
}

// The index 0 is the same for every example; the pointer into x[i] is not.
void first_element(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float v = x[i].data_ptr<float>()[0];
// CHECK: {{.*}}array_index.cpp:[[@LINE-1]]:15: error: per-example value used as a C++ pointer or array, which must be the same for every example
// CHECK: note: read a per-example tensor's elements with tensor indexing ('x[i][0]') or 'item<T>()', not through a raw pointer
    out[i] = v;
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
