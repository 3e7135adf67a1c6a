// In-place writes through a handle that an op may return unchanged (issue 18; more forms
// than one file's 20 errors hold, next to hostile_aliasing_forms.cpp): contiguous() of a
// contiguous tensor and to() of its own dtype return the same handle, so a write to the
// result writes the slot or the input. Each is refused at its line, the file untouched.
#include <vmap/vmap.hpp>
using namespace vmap;

void contiguous_of_slot(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = out[i].contiguous();
    t += x[i];
// CHECK: {{.*}}hostile_handle_forms.cpp:[[@LINE-1]]:5: error: in-place write to 't', which may share its elements with another tensor
  }
}

void same_dtype_of_input(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = x[i].to(kFloat);
    t += 1.0;
// CHECK: {{.*}}hostile_handle_forms.cpp:[[@LINE-1]]:5: error: in-place write to 't', which may share its elements with another tensor
    out[i] = t;
  }
}
// CHECK: 2 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
