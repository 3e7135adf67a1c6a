// Tensors the caller makes with from_blob over one buffer of its own, shifted by an element
// (issue 31): each has a storage of its own, but they share bytes, so the run-time overlap
// guard must run the loop as written. It compared storages and let the batched loop run
// (out {0, 1, 3, 5, 7} instead of {0, 1, 3, 7, 15}).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void shift(const Tensor& in, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < in.size(0); ++i)
    out[i] = in[i] * 2 + 1;
}
// CHECK-LABEL: void shift(
// CHECK-NEXT: if (::vmap::batched::unsafe_overlap(out, in)) { // clang-vmap: inputs may overlap outputs, run as written

void sum_rows(const Tensor& rows, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < rows.size(0); ++i)
    acc += rows[i];
}
// CHECK-LABEL: void sum_rows(
// CHECK-NEXT: if (::vmap::batched::any_overlap(acc, rows)) { // clang-vmap: inputs may overlap outputs, run as written

int main() {
  float buffer[6] = {0, 1, 2, 3, 4, 5};
  Tensor in = from_blob(buffer, {5});
  Tensor out = from_blob(buffer + 1, {5});
  shift(in, out);
  std::cout << in << "\n";

  float grid[6] = {0, 1, 2, 3, 4, 5};
  Tensor rows = from_blob(grid, {3, 2});
  Tensor acc = from_blob(grid + 2, {2});  // the middle row, through a storage of its own
  sum_rows(rows, acc);
  std::cout << rows << "\n";

  float apart[6] = {0, 1, 2, 3, 4, 5};
  Tensor first = from_blob(apart, {3});
  Tensor second = from_blob(apart + 3, {3});  // no shared bytes: batched
  shift(first, second);
  std::cout << second << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
