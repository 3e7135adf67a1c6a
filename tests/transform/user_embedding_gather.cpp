// Data-dependent reads: an embedding lookup and index_select of a bag.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Embedding lookup and bag-of-words sum with data-dependent indices.
void embed(const Tensor& table, const Tensor& ids, const Tensor& bags, Tensor& out,
           Tensor& bag_sum) {
#pragma vmap
  for (int64_t t = 0; t < ids.size(0); ++t) {
    int64_t id = ids[t].item<int64_t>();
    out[t] = table[id] * 2.0;
    bag_sum[t] = table.index_select(0, bags[t]).sum(0);
  }
}
// CHECK-LABEL: void embed(
// CHECK: vb::Level _b_level0(0, ids.size(0));  // line 10
// CHECK: vb::Value id = vb::at(ids, t).item<int64_t>();  // line 11
// CHECK: vb::at(out, t) = vb::at(table, id) * 2.0;  // line 12
// CHECK: vb::at(bag_sum, t) = vb::index_select(table, 0, vb::at(bags, t)).sum(0);  // line 13

int main() {
  Tensor table = arange(15).reshape({5, 3}).to(kFloat);
  Tensor ids = tensor({int64_t(4), int64_t(0), int64_t(2), int64_t(2)});
  Tensor bags = tensor({int64_t(0), int64_t(1), int64_t(4), int64_t(3), int64_t(3),
                        int64_t(2), int64_t(1), int64_t(1)}).reshape({4, 2});
  Tensor out = zeros({4, 3});
  Tensor bag_sum = zeros({4, 3});
  embed(table, ids, bags, out, bag_sum);
  std::cout << out << "\n" << bag_sum << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
