// Reads through a per-example index become gathers.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void lookup(const Tensor& table, const Tensor& ids, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < ids.size(0); ++i)
    out[i] = table[ids[i].item<int64_t>()] * 2;
}
// CHECK-LABEL: void lookup(
// CHECK: vb::at(out, i) = vb::at(table, vb::at(ids, i).item<int64_t>()) * 2;  // line 9

void lookup_column(const Tensor& table, const Tensor& ids, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < ids.size(0); ++i) {
    int64_t column = ids[i].item<int64_t>();
    out[i] = table.select(1, column).sum();
  }
}
// CHECK-LABEL: void lookup_column(
// CHECK: vb::Value column = vb::at(ids, i).item<int64_t>();  // line 17
// CHECK-NEXT: vb::at(out, i) = vb::select(table, 1, column).sum();  // line 18

int main() {
  Tensor table = arange(15).reshape({5, 3}).to(kFloat);
  Tensor ids = tensor({4, 0, 2, 2, 1});
  Tensor out = zeros({5, 3});
  lookup(table, ids, out);
  std::cout << out << "\n";
  Tensor ids2 = tensor({2, 0, 1});
  Tensor out2 = zeros({3});
  lookup_column(table, ids2, out2);
  std::cout << out2 << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
