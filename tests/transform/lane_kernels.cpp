// A scalar kernel every example takes the same path through also runs over SIMD lanes of
// examples: its lane form (Note [Lane kernels] in rules/include/vmap/fused_scalar.hpp),
// printed from the same text, its per-example locals vb::Varying<T>, its <cmath> calls and
// casts of per-example values the lanes' own. The printed program's results are compared
// with the loop's as written (a block where a read would raise runs one example at a time).
#include <vmap/vmap.hpp>
#include <cmath>
#include <cstdint>
#include <iostream>
using namespace vmap;

// Locals the same for every example stay numbers; casts of both kinds.
void scaled_distances(const Tensor& a, const Tensor& b, Tensor& out, int64_t step) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < b.size(0); ++j) {
      double total = 0;
      int64_t stride = step * 2, count = 0;
      for (int64_t k = 0; k < a.size(1); k += stride / 2) {
        const auto d = static_cast<double>(a[i][k].item<float>()) - (double)b[j][k].item<float>();
        total += std::fabs(d) * float(k + 1) + (double)(int)(d * 4);
        ++count;
      }
      out[i][j] = static_cast<float>(std::sqrt(total) / count);
    }
}

// C++ integer meaning lane by lane: unsigned wrap-around, `/` and `%`, a comparison added as
// an int, and a read whose index is computed per example.
void hashes(const Tensor& codes, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < codes.size(0); ++i) {
    uint32_t h = 2166136261u;
    int below = 0;
    for (int64_t k = 0; k < codes.size(1); ++k) {
      int32_t c = codes[i][k].item<int32_t>();
      h = (h + static_cast<uint32_t>(c)) * 16777619u;
      below += (c < 3) + static_cast<int>(h / 268435456u) % 5;
    }
    int64_t pick = (h % 7u) + (i % 2);
    out[i] = static_cast<int64_t>(h % 1000u) + below + codes[i][pick].item<int32_t>();
  }
}

// An int32 tensor read as float (the scalar kernel converts it), and an index from the end
// for some examples: their blocks run one example at a time.
void converted_reads(const Tensor& values, const Tensor& picks, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < picks.size(0); ++i) {
    float s = 0.0f;
    for (int r = 1; r <= 3; ++r) s = s * 0.5f + values[picks[i].item<int64_t>()].item<float>() / r;
    out[i] = s;
  }
}

// Under a per-example `if`, only the examples it takes run (the lanes' blocks need them all).
void guarded(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (x[i][0].item<double>() > 0) {
      double m = x[i][0].item<double>();
      for (int64_t k = 1; k < x.size(1); ++k) m = std::fmax(m, x[i][k].item<double>());
      out[i] = m;
    }
  }
}

// C's sqrt(double), called on a float: a lane would call std::sqrt(float), another
// function, so the kernel runs one example at a time.
void c_sqrt(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float s = 0;
    for (int64_t k = 0; k < x.size(1); ++k) s += x[i][k].item<float>();
    out[i] = ::sqrt(s) / 3.0f;
  }
}

int main() {
  manual_seed(3);
  const Tensor a = randn({5, 12});
  const Tensor b = randn({12, 21}).t();  // strided rows
  Tensor distances = zeros({5, 21});
  scaled_distances(a, b, distances, 1);
  std::cout << distances << "\n";
  const Tensor codes = (arange(37 * 9) * 7 % 11).to(kInt32).reshape({37, 9});
  Tensor hashed = zeros({37}, kInt64);
  hashes(codes, hashed);
  std::cout << hashed << "\n";
  const Tensor values = arange(10).to(kInt32) * 3;
  Tensor picks = arange(19) % 10;
  picks[3] = -2;
  picks[12] = -10;
  Tensor sums = zeros({19});
  converted_reads(values, picks, sums);
  std::cout << sums << "\n";
  const Tensor x = randn({27, 6}, TensorOptions(kDouble));
  Tensor maxima = zeros({27}, kDouble);
  guarded(x, maxima);
  std::cout << maxima << "\n";
  Tensor roots = zeros({27});
  c_sqrt(x.abs().to(kFloat), roots);
  std::cout << roots << "\n";
}


// CHECK-LABEL: void scaled_distances(
// CHECK: }, vb::over_lanes([](long c, long e, vb::VaryingElements a, vb::Varying<int64_t> i, vb::VaryingElements b, vb::Varying<int64_t> j) __attribute__((always_inline)) {
// CHECK-NEXT: vb::Varying<double> total = 0;
// CHECK-NEXT: int64_t stride = c, count = 0;
// CHECK-NEXT: { const auto _b_view0 = a[i]; const auto _b_view1 = b[j]; for (int64_t k = 0; k < e; k += stride / 2) {
// CHECK-NEXT: const vb::Varying<double> d = vb::lane_cast<double>(_b_view0[k].item<float>()) - vb::lane_cast<double>(_b_view1[k].item<float>());
// CHECK-NEXT: total += vb::fabs(d) * float(k + 1) + vb::lane_cast<double>(vb::lane_cast<int>((d * 4)));
// CHECK-NEXT: ++count;
// CHECK-NEXT: } }
// CHECK-NEXT: return vb::lane_cast<float>(vb::sqrt(total) / count);
// CHECK-NEXT: }), step * 2, a.size(1), a, i, b, j);  // lines 18-25

// CHECK-LABEL: void hashes(
// CHECK: }, vb::over_lanes([](long a, vb::VaryingElements codes, vb::Varying<int64_t> i, vb::VaryingElements b) __attribute__((always_inline)) {
// CHECK-NEXT: vb::Varying<uint32_t> h = 2166136261u;
// CHECK-NEXT: vb::Varying<int> below = 0;
// CHECK-NEXT: { const auto _b_view0 = codes[i]; for (int64_t k = 0; k < a; ++k) {
// CHECK-NEXT: vb::Varying<int32_t> c = _b_view0[k].item<int32_t>();
// CHECK-NEXT: h = (h + vb::lane_cast<uint32_t>(c)) * 16777619u;
// CHECK-NEXT: below += (c < 3) + vb::lane_cast<int>(h / 268435456u) % 5;
// CHECK-NEXT: } }
// CHECK-NEXT: vb::Varying<int64_t> pick = (h % 7u) + (i % 2);
// CHECK-NEXT: return vb::lane_cast<int64_t>(h % 1000u) + below + b[pick].item<int32_t>();
// CHECK-NEXT: }), codes.size(1), codes, i, vb::at(codes, i));  // lines 34-42

// CHECK-LABEL: void converted_reads(
// CHECK: }, vb::over_lanes([](vb::VaryingElements values, vb::VaryingElements picks, vb::Varying<int64_t> i) __attribute__((always_inline)) {
// CHECK-NEXT: vb::Varying<float> s = 0.0f;
// CHECK-NEXT: { const auto _b_view0 = values[picks[i].item<int64_t>()]; for (int r = 1; r <= 3; ++r) s = s * 0.5f + _b_view0.item<float>() / r; }
// CHECK-NEXT: return s;
// CHECK-NEXT: }), values, picks, i);  // lines 51-53

// CHECK-LABEL: void guarded(
// CHECK: }, vb::over_lanes([](vb::Varying<double> m, long a, vb::VaryingElements x, vb::Varying<int64_t> i) __attribute__((always_inline)) {
// CHECK-NEXT: { const auto _b_view0 = x[i]; for (int64_t k = 1; k < a; ++k) m = vb::fmax(m, _b_view0[k].item<double>()); }
// CHECK-NEXT: return m;
// CHECK-NEXT: }), vb::at(x, i)[0].item<double>(), x.size(1), x, i);  // lines 62-64

// CHECK-LABEL: void c_sqrt(
// CHECK: vb::fused_scalar(
// CHECK-NOT: over_lanes
// CHECK: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
