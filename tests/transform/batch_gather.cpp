// Seed workload: batch gather, each example picks its own rows.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void batch_gather(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    out[i] = input[i].index_select(0, index[i]);
}
// CHECK-LABEL: void batch_gather(
// CHECK: { // clang-vmap: batched from line 8
// CHECK-NEXT: namespace vb = ::vmap::batched;
// CHECK-NEXT: vb::Level _b_level0(0, input.size(0));  // line 8
// CHECK-NEXT: const vb::Value i = _b_level0.index();
// CHECK-NEXT: vb::at(out, i) = vb::at(input, i).index_select(0, vb::at(index, i));  // line 9

// The same gather through a tensor subscript.
void batch_gather_subscript(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    out[i] = input[i][index[i]];
}
// CHECK-LABEL: void batch_gather_subscript(
// CHECK: vb::at(out, i) = vb::at(input, i)[vb::at(index, i)];  // line 22

// Not annotated: must stay as written.
void gather_unannotated(const Tensor& input, const Tensor& index, Tensor& out) {
  for (int64_t i = 0; i < input.size(0); ++i)
    out[i] = input[i].index_select(0, index[i]);
}
// CHECK-LABEL: void gather_unannotated(
// CHECK-NEXT: for (int64_t i = 0; i < input.size(0); ++i)
// CHECK-NEXT: out[i] = input[i].index_select(0, index[i]);
// CHECK-NEXT: }

int main() {
  Tensor input = arange(24).reshape({4, 6}).to(kFloat);
  Tensor index = tensor({0, 5, 1, 2, 2, 3, 4, 0}).reshape({4, 2});
  Tensor out = zeros({4, 2});
  batch_gather(input, index, out);
  std::cout << out << "\n";
  Tensor out2 = zeros({4, 2});
  batch_gather_subscript(input, index, out2);
  std::cout << out2 << "\n";
  Tensor out3 = zeros({4, 2});
  gather_unannotated(input, index, out3);
  std::cout << out3 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
