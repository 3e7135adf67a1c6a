// A copy of a Tensor is a handle to the same elements (LibTorch semantics): an in-place
// op on a copy of a tensor the same for every example writes that tensor, not a
// per-example value. Refused (issue 18: these were rewritten as if the copy were fresh).
#include <vmap/vmap.hpp>
using namespace vmap;

void accumulate_into_copy(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = acc;
    t += x[i];
// CHECK: {{.*}}tensor_copy_in_place.cpp:[[@LINE-1]]:5: error: in-place write to 't', which shares its elements with 'acc' (a copy of a Tensor is a handle to the same elements), does not write only this example's slot of 'acc'
// CHECK: note: to change a copy only, make one with '.clone()', or compute a new tensor ('t = t + e')
  }
}

void scale_a_copy(const Tensor& x, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor b = bias;
    b *= 2.0f;
// CHECK: {{.*}}tensor_copy_in_place.cpp:[[@LINE-1]]:5: error: in-place write to 'b', which shares its elements with 'bias'
    out[i] = x[i] + b[i];
// CHECK: {{.*}}tensor_copy_in_place.cpp:[[@LINE-1]]:21: error: loop-carried dependence: 'bias' is written per example and read here at a slot of another iteration
  }
}

void fill_an_auto_copy(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto t = acc;
    t.fill_(x[i].sum());
// CHECK: {{.*}}tensor_copy_in_place.cpp:[[@LINE-1]]:5: error: in-place write to 't', which shares its elements with 'acc'
  }
}

void copy_of_a_row_not_own(const Tensor& x, Tensor& table) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor first = table[0];
    first.copy_(x[i]);
// CHECK: {{.*}}tensor_copy_in_place.cpp:[[@LINE-1]]:5: error: in-place write to 'first', which shares its elements with 'table'
  }
}
// CHECK: 5 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
