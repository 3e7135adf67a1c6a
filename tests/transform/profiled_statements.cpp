// VMAP_PROFILE=1 on rewritten code: every batched statement starts with vb::profile_line(),
// so the profile names it by this file's line (Note [Profiled statements] in
// rules/include/vmap/profile.hpp). transform.profile.hottest_statement runs the rewritten
// build with VMAP_PROFILE=1: the line marked `the hottest statement` must head the table.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// A [128 x 128] product per example against adds of 4 elements: a thousand times the work.
void products(const Tensor& a, const Tensor& b, const Tensor& c, Tensor& out, Tensor& small) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    small[i] = c[i] + 1;
    out[i] = a[i].matmul(b);  // the hottest statement
    Tensor twice = small[i] * 2;
    small[i] = twice - c[i];
  }
}
// CHECK-LABEL: void products(
// CHECK: vb::profile_line(); vb::Level _b_level0(0, a.size(0));  // line 12
// CHECK: vb::profile_line(); vb::at(small, i) = vb::at(c, i) + 1;  // line 13
// CHECK-NEXT: vb::profile_line(); vb::at(out, i) = vb::at(a, i).matmul(b);  // line 14

// A batched `while` (on a tensor: a masked loop): its condition counts toward its own
void halvings(const Tensor& x, Tensor& steps) {  // line, not the body's last one
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i];
    int64_t k = 0;
    while (v.item<float>() > 1.0f) {
      v = v / 2.0f;
      k += 1;
    }
    steps[i] = k;
  }
}
// CHECK-LABEL: void halvings(
// CHECK: vb::profile_line(); { vb::Loop _b_loop0;  // line 30
// CHECK-NEXT: while (_b_loop0.next(v.item<float>() > 1.0f)) {
// CHECK: vb::profile_line(); k += 1;  // line 32
// CHECK-NEXT: _b_loop0.resume();
// CHECK-NEXT: }

int main() {
  // 128 examples: their products head the profile by far on a busy machine too (at 32 they
  // took 18 ms, and a first call's 20 ms of set-up, timed at the loop's line, came first once).
  const int64_t n = 128, size = 128;
  const Tensor a = (arange(n * size * size, kFloat32).reshape({n, size, size}) % 7) / 7.0;
  const Tensor b = (arange(size * size, kFloat32).reshape({size, size}) % 5) / 5.0;
  const Tensor c = arange(n * 4, kFloat32).reshape({n, 4});
  Tensor out = zeros({n, size, size});
  Tensor small = zeros({n, 4});
  products(a, b, c, out, small);
  std::cout << out.sum() << " " << out[3][5][7] << "\n" << small << "\n";
  Tensor steps = zeros({6}, kInt64);
  halvings(tensor({0.5f, 1.0f, 3.0f, 8.0f, 100.0f, 1e6f}), steps);
  std::cout << steps << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
