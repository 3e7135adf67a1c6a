// Per-example C++ numbers in the factories (SPEC section 6, "Any argument may vary per
// example"): tensor({...}) of per-example and loop-invariant numbers, nested, of every
// C++ number type (the dtype as vmap::tensor gives it), and full / full_like filled with
// a per-example value.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
using namespace vmap;

void summaries(const Tensor& x, const Tensor& counts, Tensor& ranges, Tensor& corners,
               Tensor& mixed, Tensor& flags) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float lo = x[i].amin(0).item<float>(), hi = x[i].amax(0).item<float>();
    ranges[i] = tensor({lo, hi, hi - lo});
    corners[i] = tensor({{lo, 0.5f}, {2.0f, hi}});
    int n = counts[i].item<int>();
    double mean = x[i].mean().item<double>();
    mixed[i] = tensor({n, 7, n * 2}).to(kFloat) + tensor({mean, 1.0, -mean});
    flags[i] = tensor({lo < 0.0f, true});
  }
}
// CHECK-LABEL: void summaries(
// CHECK: vb::at(ranges, i) = vb::tensor({lo, hi, hi - lo});
// CHECK: vb::at(corners, i) = vb::tensor({{.}}{lo, 0.5f}, {2.0f, hi}});
// CHECK: vb::at(mixed, i) = vb::tensor({n, 7, n * 2}).to(kFloat) + vb::tensor({mean, 1.0, -mean});
// CHECK: vb::at(flags, i) = vb::tensor({lo < 0.0f, true});

// The dtype and rank as vmap::tensor gives them: int64, promoted to float32, a 0-d number.
void kinds(const Tensor& x, const Tensor& counts, Tensor& checks, Tensor& sums) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t n = counts[i].item<int64_t>();
    float v = x[i].sum().item<float>();
    checks[i][0] = tensor({n, int64_t{3}}).dtype() == kInt64;
    checks[i][1] = tensor({n, v}).dtype() == kFloat32;
    checks[i][2] = tensor(v).dim() == 0;
    sums[i] = tensor({n, 3}).sum() + tensor(v);
  }
}

void fills(const Tensor& x, Tensor& rows, Tensor& like, Tensor& ints, Tensor& doubles) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float peak = x[i].amax(0).item<float>();
    rows[i] = full({2, 3}, peak);
    like[i] = full_like(x[i], peak * 2.0f);
    int k = static_cast<int>(i) * 3 - 1;
    ints[i] = full({4}, k);
    doubles[i] = full({2}, peak, kFloat64);
  }
}
// CHECK-LABEL: void fills(
// CHECK: vb::at(rows, i) = vb::full({2, 3}, peak);
// CHECK: vb::at(like, i) = vb::full_like(vb::at(x, i), peak * 2.0f);
// CHECK: vb::at(ints, i) = vb::full({4}, k);
// CHECK: vb::at(doubles, i) = vb::full({2}, peak, kFloat64);

int main() {
  Tensor x = (arange(12).reshape({3, 4}).to(kFloat) * 0.7).sin();
  Tensor counts = tensor({4, -2, 9});
  Tensor ranges = zeros({3, 3});
  Tensor corners = zeros({3, 2, 2});
  Tensor mixed = zeros({3, 3});
  Tensor flags = zeros({3, 2}, kBool);
  summaries(x, counts, ranges, corners, mixed, flags);
  std::cout << ranges << "\n" << corners << "\n" << mixed << "\n" << flags << "\n";
  Tensor checks = zeros({3, 3}, kBool);
  Tensor sums = zeros({3});
  kinds(x, counts, checks, sums);
  std::cout << checks << "\n" << sums << "\n";
  Tensor rows = zeros({3, 2, 3});
  Tensor like = zeros({3, 4});
  Tensor ints = zeros({3, 4}, kInt64);
  Tensor doubles = zeros({3, 2}, kFloat64);
  fills(x, rows, like, ints, doubles);
  std::cout << rows << "\n" << like << "\n" << ints << "\n" << doubles << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
