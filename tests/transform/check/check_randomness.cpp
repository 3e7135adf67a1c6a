// clang-vmap --check and a randomness clause: the batched draws are not the loop's as
// written, so --check leaves such a loop unchecked (rewritten as without --check, with a
// -Wvmap-check-random warning at its pragma) and checks the other loops of the file.
// Rewritten with --check by transform.golden.check_randomness; transform.check.* compares
// the program's seed-independent output with the program as written.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

void noisy(const Tensor& x, Tensor& out) {
#pragma vmap randomness(different)
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + rand_like(x[i]);
}
// CHECK-LABEL: void noisy(
// CHECK-NOT:  clang-vmap --check
// CHECK:      { // clang-vmap: batched from line 13
// CHECK:      vb::RandomDraws _b_randomness(vb::Randomness::different);
// CHECK:      vb::at(out, i) = vb::at(x, i) + vb::rand_like(vb::at(x, i));

void doubled(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * 2;
}
// CHECK-LABEL: void doubled(
// CHECK: { // clang-vmap --check: the loop as written, then batched from the same state, compared

int main() {
  const Tensor x = ones({32, 500});
  Tensor out = zeros({32, 500}), twice = zeros({32, 500});
  noisy(x, out);
  doubled(x, twice);
  std::cout << "uniform noise: in [1, 2) " << (out.ge(1).all().item<bool>() && out.lt(2).all().item<bool>())
            << ", mean ~1.5 " << (std::abs(out.mean().item<double>() - 1.5) < 0.01) << "\n"
            << twice.sum() << "\n";
}

// RUN: %clang-vmap --check %s -- %flags | %strip | %FileCheck %s
