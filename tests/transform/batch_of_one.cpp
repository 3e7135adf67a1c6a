// A batch of one example: per-example indices (read from the data) select and store as in
// a batch of many (the generator's size-1 batches: `vmap rules: argument 2 is not an
// integer` where the loop as written ran).
#include <vmap/vmap.hpp>

#include <iostream>

using namespace vmap;

void shifted_store(const Tensor& x, const Tensor& idx, Tensor& out, int64_t batch) {
#pragma vmap
  for (int64_t i = 0; i < batch; ++i) {
    int64_t j = idx[i][3].item<int64_t>();
    out[i][j] = x[i][(j + 1) % 5] * 2.0;
  }
}
// CHECK-LABEL: void shifted_store(
// CHECK: vb::Value j = vb::at(idx, i)[3].item<int64_t>();  // line 13
// CHECK: vb::at(out, i)[j] = vb::at(x, i)[(j + 1) % 5] * 2.0;  // line 14

void gathered(const Tensor& x, const Tensor& idx, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i][idx[i][0].item<int64_t>()] + x[i].sum();
}
// CHECK-LABEL: void gathered(
// CHECK: vb::at(out, i) = {{.*}}vb::at(idx, i)[0].item<int64_t>(){{.*}}  // line 24

int main() {
  Tensor x = arange(10).reshape({2, 5}).to(kFloat) * 0.5f;
  Tensor idx = tensor({3, 1, 4, 2, 0, 0, 2, 4, 1, 3}).reshape({2, 5});
  for (int64_t batch : {1, 2}) {
    Tensor out = zeros({2, 5});
    shifted_store(x, idx, out, batch);
    std::cout << out << "\n";
  }
  Tensor one = zeros({1});
  gathered(x.narrow(0, 1, 1), idx.narrow(0, 1, 1), one);
  std::cout << one << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
