// Ported from torch.func's model-ensembling tutorial: M two-layer MLPs, each with its own
// weights, applied to one shared minibatch (out[m] = mlp_m(data)), and to a minibatch of
// its own (out[m] = mlp_m(data[m])).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void ensemble_shared(const Tensor& data, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                     const Tensor& b2, Tensor& out) {
#pragma vmap
  for (int64_t m = 0; m < w1.size(0); ++m) {
    Tensor hidden = relu(linear(data, w1[m], b1[m]));
    out[m] = linear(hidden, w2[m], b2[m]);
  }
}
// CHECK-LABEL: void ensemble_shared(
// CHECK: vb::linear(data, vb::at(w1, m), vb::at(b1, m))

void ensemble_own(const Tensor& data, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                  const Tensor& b2, Tensor& out) {
#pragma vmap
  for (int64_t m = 0; m < w1.size(0); ++m) {
    Tensor hidden = linear(data[m], w1[m], b1[m]).relu();
    Tensor logits = linear(hidden, w2[m], b2[m]);
    out[m] = log_softmax(logits, -1);
  }
}
// CHECK-LABEL: void ensemble_own(
// CHECK: vb::log_softmax(logits, -1)

int main() {
  const int64_t models = 4, batch = 5, in = 6, hidden = 8, classes = 3;
  Tensor data = (arange(batch * in).reshape({batch, in}).to(kFloat) * 0.37).sin();
  Tensor w1 = (arange(models * hidden * in).reshape({models, hidden, in}).to(kFloat) * 0.11).cos() * 0.5;
  Tensor b1 = (arange(models * hidden).reshape({models, hidden}).to(kFloat) * 0.7).sin() * 0.1;
  Tensor w2 = (arange(models * classes * hidden).reshape({models, classes, hidden}).to(kFloat) * 0.23).sin() * 0.5;
  Tensor b2 = (arange(models * classes).reshape({models, classes}).to(kFloat) * 0.3).cos() * 0.1;
  Tensor shared = zeros({models, batch, classes});
  ensemble_shared(data, w1, b1, w2, b2, shared);
  Tensor own_data = (arange(models * batch * in).reshape({models, batch, in}).to(kFloat) * 0.19).cos();
  Tensor own = zeros({models, batch, classes});
  ensemble_own(own_data, w1, b1, w2, b2, own);
  std::cout << shared << "\n" << own << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
