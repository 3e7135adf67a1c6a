// An in-place write to a Tensor local whose elements may be another tensor's: the
// analysis cannot tell which (a choice between handles, `to` and `contiguous` that return
// their input unchanged, a direct copy, a view assigned later), so it refuses.
#include <vmap/vmap.hpp>
using namespace vmap;

void either_handle(const Tensor& x, Tensor& acc, Tensor& other) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = x.size(0) > 10 ? acc : other;
    t.copy_(x[i].sum());
// CHECK: {{.*}}tensor_unknown_elements.cpp:[[@LINE-1]]:5: error: in-place write to 't', which may share its elements with another tensor
// CHECK: note: to change a copy only, make one with '.clone()'
  }
}

void converted(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor h = x[i].to(kFloat);
    h *= 2;
// CHECK: {{.*}}tensor_unknown_elements.cpp:[[@LINE-1]]:5: error: in-place write to 'h', which may share its elements with another tensor
    Tensor c = x[i].contiguous();
    c += 1;
// CHECK: {{.*}}tensor_unknown_elements.cpp:[[@LINE-1]]:5: error: in-place write to 'c', which may share its elements with another tensor
    out[i] = h + c;
  }
}

void direct_copy(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t(acc);
    t += x[i];
// CHECK: {{.*}}tensor_unknown_elements.cpp:[[@LINE-1]]:5: error: in-place write to 't', which may share its elements with another tensor
  }
}

void rebound_to_a_view(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = zeros({});
    t = x[i];
    t += 1;
// CHECK: {{.*}}tensor_unknown_elements.cpp:[[@LINE-1]]:5: error: in-place write to 't', which may share its elements with another tensor
    out[i] = t;
  }
}
// CHECK: 5 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
