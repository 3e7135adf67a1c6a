// User batching rules (SPEC section 7, Note [User batching rules] in vmap/vmap.hpp):
// VMAP_BATCHED(f, f_batched) makes a vmap loop call f_batched once for the batch, every
// argument of a Tensor parameter of it stacked along a new leading dim (a loop-invariant
// one expanded, not copied), instead of batching f's body, which may be in another
// translation unit (here only declared above the loop; defined below main so that the
// differential programs link).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Per example: a row score against weights w, offset by a per-example bias.
Tensor score(const Tensor& x, const Tensor& w, float bias);
// The same for a batch: xs [B, n], w [B, n] (expanded), biases [B].
Tensor score_batched(const Tensor& xs, const Tensor& w, const Tensor& biases);
VMAP_BATCHED(score, score_batched);

namespace stats {
// A number per example; its batched function returns one number per example.
double spread(const Tensor& x);
Tensor spread_batched(const Tensor& xs);
VMAP_BATCHED(spread, spread_batched);
}  // namespace stats

void scores(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& out,
            Tensor& spreads) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = score(x[i], w, bias[i].item<float>()) * 2 + score(x[i], w, 0.5f);
    spreads[i] = stats::spread(x[i]) + 1.0;
  }
// CHECK: vb::at(out, i) = {{.*}}vb::unstacked<vmap::Tensor>("score_batched", ::score_batched(vb::stacked(vb::at(x, i)), vb::stacked(w), vb::stacked(vb::at(bias, i).item<float>()))), vb::unstacked<vmap::Tensor>("score_batched", ::score_batched(vb::stacked(vb::at(x, i)), vb::stacked(w), vb::stacked(0.5f))));  // line 28
// CHECK: vb::at(spreads, i) = vb::unstacked<double>("spread_batched", ::stats::spread_batched(vb::stacked(vb::at(x, i)))) + 1.0;
}

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) / 3.0;
  Tensor w = tensor({0.5f, -1.0f, 2.0f});
  Tensor bias = tensor({0.25f, -0.5f, 1.0f, 3.0f});
  Tensor out = zeros({4}), spreads = zeros({4}, kDouble);
  scores(x, w, bias, out, spreads);
  std::cout << out << "\n" << spreads << "\n";
}

Tensor score(const Tensor& x, const Tensor& w, float bias) { return (x * w).sum() + bias; }
Tensor score_batched(const Tensor& xs, const Tensor& w, const Tensor& biases) {
  return (xs * w).sum(1) + biases;
}
double stats::spread(const Tensor& x) {
  return x.amax().item<double>() - x.amin().item<double>();
}
Tensor stats::spread_batched(const Tensor& xs) {
  return (xs.amax(1) - xs.amin(1)).to(kDouble);
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
