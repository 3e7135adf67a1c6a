// Plain inner loops run as levels (Note [Plain loops as levels] in transform/passes.cpp) in
// the forms user code takes them: in a member function reading a member tensor, its bound a
// member; in a function template instantiated for float and double; in a lambda holding the
// vmap loop; a plain loop named `i` (a name used again after the loop) or `vb` (the rewrite's
// namespace alias); a bound that is a `const int` local. main() prints every result, so the
// differential test compares each with the loop as written.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

struct Scorer {
  Tensor weights;  // [k, d]
  int64_t k;

  // (a) reads the member tensor; (e) the plain loop's bound is a member.
  void score(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t n = 0; n < x.size(0); ++n)
      for (int64_t j = 0; j < k; ++j)
        out[n][j] = (x[n] * weights[j]).sum();
  }
  // CHECK-LABEL: void score(
  // CHECK: ::vmap::batched::any_overlap(out, this->weights)
  // CHECK: vb::Level _b_level1(0, k);  // line 19
  // CHECK-NEXT: const vb::Value j = _b_level1.index();
  // CHECK-NEXT: vb::at(out, n)[j] = vb::fused(
  // CHECK-SAME: vb::at(x, n), vb::at(weights, j)).sum();  // line 20
};

// (b) a function template, instantiated for float and double.
template <class T>
void scaled(const Tensor& x, Tensor& out, T factor) {
#pragma vmap
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t j = 0; j < x.size(1); ++j)
      out[n][j] = x[n][j] * factor + x[n][j].item<T>() * static_cast<T>(j) + x[n].sum();
}
// CHECK-LABEL: void scaled(
// CHECK: vb::Level _b_level1(0, x.size(1));  // line 35
// CHECK-NEXT: const vb::Value j = _b_level1.index();
// CHECK-NEXT: vb::at(out, n)[j] = vb::fused(
// CHECK-SAME: }, vb::at(x, n)[j], factor, vb::at(x, n)[j].template item<T>() * vb::scalar_cast<T>(j), vb::at(x, n).sum());  // line 36

// (d) the plain loop's variable is `i`, a name used again after the loop.
void shifted(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t i = 0; i < x.size(1); ++i)
      out[n][i] = x[n][i] - x[n].mean();
  for (int64_t i = 0; i < out.size(0); ++i) out[i][0] += 1.0f;
}
// CHECK-LABEL: void shifted(
// CHECK: vb::Level _b_level1(0, x.size(1));  // line 48
// CHECK-NEXT: const vb::Value i = _b_level1.index();
// CHECK-NEXT: vb::at(out, n)[i] = vb::at(x, n)[i] - vb::at(x, n).mean();  // line 49
// CHECK: for (int64_t i = 0; i < out.size(0); ++i) out[i][0] += 1.0f;

// (d) the plain loop's variable is `vb`, the vmap loop's `vb_1`.
void named_vb(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t vb_1 = 0; vb_1 < x.size(0); ++vb_1)
    for (int64_t vb = 0; vb < x.size(1); ++vb)
      out[vb_1][vb] = x[vb_1][vb] * x[vb_1][vb] + vb_1;
}
// The alias takes a name neither loop has.
// CHECK-LABEL: void named_vb(
// CHECK: namespace vb_2 = ::vmap::batched;
// CHECK: const vb_2::Value vb_1 = _b_level0.index();
// CHECK: vb_2::Level _b_level1(0, x.size(1));  // line 62
// CHECK-NEXT: const vb_2::Value vb = _b_level1.index();
// CHECK-NEXT: vb_2::at(out, vb_1)[vb] = {{.*}};  // line 63

// (e) the bound is a `const int` local.
void first_columns(const Tensor& x, Tensor& out) {
  const int columns = 3;
#pragma vmap
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int j = 0; j < columns; ++j)
      out[n][j] = x[n][j].exp();
}
// CHECK-LABEL: void first_columns(
// CHECK: vb::Level _b_level1(0, columns);  // line 78
// CHECK-NEXT: const vb::Value j = _b_level1.index();
// CHECK-NEXT: vb::at(out, n)[j] = vb::at(x, n)[j].exp();  // line 79

int main() {
  Tensor x = (arange(20).reshape({4, 5}).to(kFloat32) - 9.0f) * 0.25f;
  Scorer scorer{(arange(15).reshape({3, 5}).to(kFloat32) - 7.0f) * 0.125f, 3};
  Tensor scores = zeros({4, 3});
  scorer.score(x, scores);
  std::cout << scores << "\n";

  Tensor single = zeros({4, 5}), twice = zeros({4, 5}, kFloat64);
  scaled(x, single, 1.5f);
  scaled(x.to(kFloat64), twice, 2.5);
  std::cout << single << "\n" << twice << "\n";

  // (c) a lambda holding the vmap loop, its plain loop's bound and a tensor captured.
  const int64_t width = 4;
  Tensor bias = arange(5).to(kFloat32) * 0.5f;
  auto clipped = [&](const Tensor& input, Tensor& result) {
#pragma vmap
    for (int64_t n = 0; n < input.size(0); ++n)
      for (int64_t j = 0; j < width; ++j)
        result[n][j] = input[n][j].clamp(-1.0f, 1.0f) + input[n].amax() * bias[j];
  };
  // CHECK-LABEL: auto clipped = [&](
  // CHECK: vb::Level _b_level1(0, width);  // line 104
  // CHECK-NEXT: const vb::Value j = _b_level1.index();
  // CHECK-NEXT: vb::at(result, n)[j] = vb::fused(
  Tensor clip = zeros({4, 5});
  clipped(x, clip);
  std::cout << clip << "\n";

  Tensor shift = zeros({4, 5}), squares = zeros({4, 5}), firsts = zeros({4, 3});
  shifted(x, shift);
  named_vb(x, squares);
  first_columns(x, firsts);
  std::cout << shift << "\n" << squares << "\n" << firsts << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
