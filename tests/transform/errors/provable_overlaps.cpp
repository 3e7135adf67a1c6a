// Overlaps the source proves (issue 31): the output and an input are different views of
// the same elements, so no run-time check is needed to know the loop would be wrong. Each
// is refused at the read, and the file left untouched.
#include <vmap/vmap.hpp>
using namespace vmap;

Tensor from_blob_shifted_by_one() {
  static float buffer[12] = {};
  Tensor in = from_blob(buffer, {3, 3});
  Tensor out = from_blob(buffer + 1, {3, 3});
#pragma vmap
  for (int64_t i = 0; i < 3; ++i)
    out[i] = in[i] + 1;
// CHECK: {{.*}}provable_overlaps.cpp:[[@LINE-1]]:14: error: 'out' and 'in' share elements of 'buffer' but are not the same view: the loop's output overlaps a tensor it also reads
  return out.clone();
}

Tensor narrow_shifted_by_a_row() {
  Tensor rows = zeros({5, 3});
  Tensor above = rows.narrow(0, 0, 4);
  Tensor below = rows.narrow(0, 1, 4);
#pragma vmap
  for (int64_t i = 0; i < 4; ++i)
    below[i] = above[i] * 2;
// CHECK: {{.*}}provable_overlaps.cpp:[[@LINE-1]]:16: error: 'below' and 'above' share elements of 'rows' but are not the same view: the loop's output overlaps a tensor it also reads
  return rows;
}

Tensor transposed_handle_copy(const Tensor& x) {
  Tensor out = zeros({3, 3});
  Tensor across = out.t();
#pragma vmap
  for (int64_t i = 0; i < 3; ++i) {
    out[i] = x[i];
    across[i] = x[i] * 2;
// CHECK: {{.*}}provable_overlaps.cpp:[[@LINE-1]]:5: error: 'out' and 'across' share elements of 'out' but are not the same view: the loop's output overlaps a tensor it also writes
  }
  return out;
}
// One tensor under two names: a handle copy of the output read whole (as written each
// example adds the sums the examples before it stored), and a reference to an accumulator
// read in the loop that adds to it.
void handle_copy_read_whole(Tensor& out) {
  Tensor same = out;
#pragma vmap
  for (int64_t i = 0; i < out.size(0); ++i)
    out[i] = same.sum() + i;
// CHECK: {{.*}}provable_overlaps.cpp:[[@LINE-1]]:14: error: loop-carried dependence: 'out' is written per example and read here at a slot of another iteration
}

void handle_copy_read_next(Tensor& out) {
  Tensor same = out;
#pragma vmap
  for (int64_t i = 0; i < 3; ++i)
    out[i] = same[i + 1] * 2;
// CHECK: {{.*}}provable_overlaps.cpp:[[@LINE-1]]:14: error: loop-carried dependence: 'out' is written per example and read here at a slot of another iteration
}

void accumulator_read_through_a_copy(const Tensor& x, Tensor& acc) {
  Tensor seen = acc;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc += x[i] * seen;
// CHECK: {{.*}}provable_overlaps.cpp:[[@LINE-1]]:19: error: accumulator 'acc' is read in the loop it reduces over
}
// CHECK: 6 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
