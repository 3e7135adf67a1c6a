// A helper's reference parameter bound to a local of each example: refused for that (issue 31:
// the refusal called the local "the same for every example").
#include <vmap/vmap.hpp>
using namespace vmap;

void bump(Tensor& acc, const Tensor& v) { acc += v; }
void bump_slot(Tensor& acc, const Tensor& v) { acc[0] = v.sum(); }
void scale(float& s, float by) { s *= by; }

void run(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor acc = zeros({3});
    bump(acc, x[i]);
    Tensor acc2 = zeros({3});
    bump_slot(acc2, x[i]);
    Tensor acc3 = x[i] * 2;
    bump(acc3, x[i]);
    float s = x[i][0].item<float>();
    scale(s, 2.0f);
    out[i] = acc + acc2 + acc3 + s;
  }
}
// CHECK: {{.*}}reference_parameter_to_example_local.cpp:14:5: error: call to 'bump' has no batching rule
// CHECK: note: {{.*}}it writes through its reference parameter 'acc', bound here to 'acc', a local of each example; return the new value and assign it instead
// CHECK: {{.*}}reference_parameter_to_example_local.cpp:20:5: error: call to 'scale'
// CHECK: note: {{.*}}reference parameter 's', bound here to 's', a local of each example

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
