// Outputs that may share storage with inputs: the rewritten code checks at run time
// and runs the original loop when they overlap. Fresh tensors need no check.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void shift_add(const Tensor& in, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < out.size(0); ++i)
    out[i] = in[i] + 1;
}
// CHECK-LABEL: void shift_add(
// CHECK-NEXT: if (::vmap::batched::unsafe_overlap(out, in)) { // clang-vmap: inputs may overlap outputs, run as written
// CHECK-NEXT: for (int64_t i = 0; i < out.size(0); ++i)
// CHECK-NEXT: out[i] = in[i] + 1;
// CHECK-NEXT: } else { // clang-vmap: batched from line 9
// CHECK: vb::at(out, i) = vb::at(in, i) + 1;  // line 10

// Reads all of `in`, not only the example's slot: the same view is not safe here, since
// the loop as written sees the rows it has already replaced.
void center(const Tensor& in, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < out.size(0); ++i)
    out[i] = in[i] - in.sum(0);
}
// CHECK-LABEL: void center(
// CHECK-NEXT: if (::vmap::batched::any_overlap(out, in)) { // clang-vmap: inputs may overlap outputs, run as written
// CHECK: vb::at(out, i) = vb::at(in, i) - in.sum(0);  // line 24

Tensor fresh_output(const Tensor& in) {
  Tensor out = zeros({in.size(0)});
#pragma vmap
  for (int64_t i = 0; i < in.size(0); ++i)
    out[i] = in[i] * 3;
  return out;
}
// CHECK-LABEL: Tensor fresh_output(
// CHECK-NOT: unsafe_overlap
// CHECK: vb::at(out, i) = vb::at(in, i) * 3;  // line 34

int main() {
  Tensor x = arange(6).to(kFloat);
  Tensor out = zeros({6});
  shift_add(x, out);                                    // distinct: batched
  std::cout << out << "\n";
  Tensor y = arange(7).to(kFloat);
  Tensor view_out = y.narrow(0, 1, 6);
  Tensor view_in = y.narrow(0, 0, 6);
  shift_add(view_in, view_out);                         // overlapping: runs the loop
  std::cout << y << "\n";
  Tensor z = arange(6).to(kFloat);
  shift_add(z, z);                                      // the same view: in place
  std::cout << z << "\n";
  std::cout << fresh_output(x) << "\n";
  Tensor rows = arange(6).reshape({3, 2}).to(kFloat);
  Tensor centered = zeros({3, 2});
  center(rows, centered);                               // distinct: batched
  std::cout << centered << "\n";
  center(rows, rows);                                   // the same view: runs the loop
  std::cout << rows << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
