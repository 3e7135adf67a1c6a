// Accumulators and C++ scalars of each example keep C++'s meaning (a third hostile hunt of
// issue 31, seventeenth session): a local of an outer vmap loop's body reduced in a nested
// vmap loop is each outer example's own, even where the value added is the same for every
// one (`int64_t c = 0;` then `c += 1;` over j counted i's and j's examples); a C++ scalar
// keeps its type when assigned or brace-initialised from a number of another type
// (`double h; h = 3;` held an int, so h / 2 truncated); an in-place add whose types do not
// combine raises only where some example runs it. The printed program's results are
// compared with the loop's as written.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <cstdio>
#include <iostream>
using namespace vmap;

void counts(const Tensor& x, const Tensor& y, const Tensor& w, Tensor& pairs, Tensor& sums,
            Tensor& shifted, Tensor& totals) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t c = 0;
    double s = 0.0;
    Tensor b = zeros({2});
    float m = 0.0f;
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      c += 1;
      s += (double)j;
      b += w;
      m += y[j].sum().item<float>();
    }
    pairs[i] = c;
    sums[i] = s;
    shifted[i] = b + x[i];
    totals[i] = m;
  }
}
// CHECK-LABEL: void counts(
// CHECK: vb::Value c = vb::scalar_cast<int64_t>(0);

void halves(const Tensor& x, Tensor& out, Tensor& big) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    double h;
    h = 3;
    double g{3};
    int64_t k;
    k = 3000;
    if (x[i].sum().item<float>() > 0.0f) {
      h = h + 2;
      g = g * 3;
      k = k + 1;
    }
    out[i] = x[i] * 0.0f + h / 2 + g / 4;
    big[i] = k * 1000000;
  }
}
// CHECK-LABEL: void halves(
// CHECK: vb::Value h = vb::scalar_cast<double>(0);
// CHECK: vb::Value g{vb::scalar_cast<double>(3)};

// Value-initialised with empty braces: 0 of the type (`double s{};` was a Value of nothing,
// `float s = {};` a kernel operand `{}` that did not compile).
void empty_braces(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    double s{};
    s += x[i].sum().item<double>();
    float t = {};
    for (int k = 0; k < 2; ++k) t += x[i][k].item<float>();
    int64_t c{};
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      c += (y[j].sum() > 0).item<int64_t>();
    out[i] = s + t + c;
  }
}
// CHECK-LABEL: void empty_braces(
// CHECK: vb::Value s{vb::scalar_cast<double>(0)};

void bumps(const Tensor& x, Tensor& c, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (x[i].sum().item<float>() > 100.0f) {
      c += x[i];
      out[i] += x[i];
    }
  }
}

int main() {
  manual_seed(56);
  const Tensor x = randn({4, 2}), y = randn({3, 2}), w = randn({2});
  Tensor pairs = zeros({4}, kInt64), sums = zeros({4}, kDouble), shifted = zeros({4, 2});
  Tensor totals = zeros({4});
  counts(x, y, w, pairs, sums, shifted, totals);
  std::cout << pairs << sums << shifted << totals << "\n";
  Tensor halved = zeros({4, 2}), big = zeros({4}, kInt64);
  halves(x, halved, big);
  std::cout << halved << big << "\n";
  Tensor braced = zeros({4}, kDouble);
  empty_braces(x, y, braced);
  std::cout << braced << "\n";
  // No example's sum exceeds 100: as written nothing is added, and nothing raises.
  Tensor c = zeros({2}, kInt32), out = zeros({4, 2}, kInt64);
  bumps(x, c, out);
  std::cout << c << out << "\n";
}

// CHECK: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
