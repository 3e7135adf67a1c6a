// A numerically stable softmax and entropy per row, written out by hand.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

// Numerically stable softmax per row, written out by hand, with a temperature.
void row_softmax(const Tensor& logits, float temperature, Tensor& probs, Tensor& entropy) {
#pragma vmap
  for (int64_t r = 0; r < logits.size(0); ++r) {
    Tensor z = logits[r] / temperature;
    Tensor e = (z - z.amax(0)).exp();
    Tensor p = e / e.sum();
    probs[r] = p;
    entropy[r] = -(p * p.log()).sum();
  }
}
// CHECK-LABEL: void row_softmax(
// CHECK: vb::Level _b_level0(0, logits.size(0));  // line 10
// CHECK: vb::Value z = vb::at(logits, r) / temperature;  // line 11
// CHECK: vb::Value e = (z - z.amax(0)).exp();  // line 12
// CHECK: vb::Value p = e / e.sum();  // line 13
// CHECK: vb::at(probs, r) = p;  // line 14
// CHECK: vb::at(entropy, r) = -vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& p) { return p * p.log(); }, p).sum();  // line 15

int main() {
  Tensor logits = (arange(15).reshape({3, 5}).to(kFloat) * 0.7).sin() * 3.0;
  Tensor probs = zeros({3, 5});
  Tensor entropy = zeros({3});
  row_softmax(logits, 0.5f, probs, entropy);
  std::cout << probs << "\n" << entropy << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
