// A data-dependent read only in the branch whose examples have a valid id.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Padding ids are -1: only valid ids are looked up (the batched branch must not fail).
void lookup(const Tensor& table, const Tensor& ids, Tensor& out) {
#pragma vmap
  for (int64_t t = 0; t < ids.size(0); ++t) {
    int64_t id = ids[t].item<int64_t>();
    if (id >= 0)
      out[t] = table[id];
    else
      out[t].fill_(-1.0);
  }
}
// CHECK-LABEL: void lookup(
// CHECK: vb::Level _b_level0(0, ids.size(0));  // line 9
// CHECK: vb::Value id = vb::at(ids, t).item<int64_t>();  // line 10
// CHECK: { vb::Where _b_where0(id >= 0);  // line 11
// CHECK: vb::at(out, t) = vb::at(table, id);  // line 12
// CHECK: vb::at(out, t).fill_(-1.0);  // line 14

int main() {
  Tensor table = arange(9).reshape({3, 3}).to(kFloat);
  Tensor ids = tensor({int64_t(2), int64_t(-1), int64_t(0), int64_t(-1)});
  Tensor out = zeros({4, 3});
  lookup(table, ids, out);
  std::cout << out << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
