// A plain inner loop stays a loop; its body is batched. Reads may use any induction
// variable at any position.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void running_dot(const Tensor& x, const Tensor& w, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float acc = 0;
    for (int64_t k = 0; k < x.size(1); ++k)
      acc += x[i][k].item<float>() * w[k].item<float>();
    out[i] = acc;
  }
}

void column_reads(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(1); ++i) {
    for (int64_t j = 0; j < x.size(0); ++j)
      out[i][j] = x[j][i] + x.select(1, i)[j];
  }
}

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) / 2.0;
  Tensor w = tensor({0.5f, -1.0f, 2.0f});
  Tensor out = zeros({4});
  running_dot(x, w, out);
  std::cout << out << "\n";
  Tensor out2 = zeros({3, 4});
  column_reads(x, out2);
  std::cout << out2 << "\n";
}

// CHECK-LABEL: void running_dot(
// CHECK: vb::Value acc = vb::scalar_cast<float>(0);  // line 10
// CHECK-NEXT: for (int64_t k = 0; k < x.size(1); ++k) {  // line 11
// CHECK-NEXT: acc += vb::at(x, i)[k].item<float>() * w[k].item<float>();  // line 12
// CHECK-NEXT: }
// CHECK-NEXT: vb::at(out, i) = acc;  // line 13
// CHECK-LABEL: void column_reads(
// CHECK: for (int64_t j = 0; j < x.size(0); ++j) {  // line 20
// CHECK-NEXT: vb::at(out, i)[j] = vb::at(x[j], i) + vb::select(x, 1, i)[j];  // line 21
