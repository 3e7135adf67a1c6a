// References and Tensor copies declared before the loop reach the same storage: a
// reduction through one of them and a read through the other is an accumulator read,
// and a reduction into the loop's bound (directly or through a reference) changes it.
#include <vmap/vmap.hpp>
#include <cstdint>
using namespace vmap;

void count_read_through_its_name(const Tensor& x, Tensor& out) {
  int64_t count = 0;
  int64_t& c = count;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    c += 1;
    out[i] = x[i] * count;
// CHECK: {{.*}}reference_before_loop.cpp:[[@LINE-1]]:21: error: accumulator 'c' is read in the loop it reduces over
  }
}

void accumulate_into_a_copy(const Tensor& x, Tensor& out) {
  Tensor acc = zeros({});
  Tensor t = acc;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    t += x[i];
    out[i] = acc;
// CHECK: {{.*}}reference_before_loop.cpp:[[@LINE-1]]:14: error: accumulator 't' is read in the loop it reduces over
  }
}

void bound_through_reference(const Tensor& x, Tensor& out) {
  int64_t n = 4;
  int64_t& rn = n;
#pragma vmap
  for (int64_t i = 0; i < n; ++i) {
// CHECK: {{.*}}reference_before_loop.cpp:[[@LINE-1]]:27: error: the bound of a vmap loop must not change in the loop, but 'n' does
    rn += 1;
    out[i] = x[i];
  }
}

void bound_reduced(const Tensor& x, Tensor& out) {
  int64_t n = 4;
#pragma vmap
  for (int64_t i = 0; i < n; ++i) {
// CHECK: {{.*}}reference_before_loop.cpp:[[@LINE-1]]:27: error: the bound of a vmap loop must not change in the loop, but 'n' does
    n += 1;
    out[i] = x[i];
  }
}
// CHECK: 4 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
