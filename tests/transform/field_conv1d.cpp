// Ported from JAX's vectorisation tutorial: a 1-D convolution written for one example
// (`jnp.dot(x[i-1:i+2], w)` per position), batched over examples; then the same with
// a kernel of its own per example.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void convolve(const Tensor& xs, const Tensor& w, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < xs.size(0); ++b)
    for (int64_t i = 1; i < xs.size(1) - 1; ++i)
      out[b][i - 1] = (xs[b].narrow(0, i - 1, 3) * w).sum();
}
// CHECK-LABEL: void convolve(
// CHECK: vb::at(xs, b).narrow(0, i - 1, 3)

void convolve_own(const Tensor& xs, const Tensor& ws, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < xs.size(0); ++b)
    for (int64_t i = 0; i + ws.size(1) <= xs.size(1); ++i)
      out[b][i] = dot(xs[b].narrow(0, i, ws.size(1)), ws[b]);
}

int main() {
  Tensor xs = (arange(3 * 9).reshape({3, 9}).to(kFloat) * 0.41).sin();
  Tensor w = tensor({2.f, 3.f, 4.f});
  Tensor out = zeros({3, 7});
  convolve(xs, w, out);
  Tensor ws = (arange(3 * 4).reshape({3, 4}).to(kFloat) * 0.9).cos();
  Tensor own = zeros({3, 6});
  convolve_own(xs, ws, own);
  std::cout << out << "\n" << own << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
