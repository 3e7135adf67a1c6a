// A compiled scalar kernel's operands are what the loop as written reads, as it reads them
// (a second hostile hunt of issue 31, seventeenth session): a variable read at two types is
// two parameters (`kGain` read as a double in `acc += kGain` and as a float in `t * kGain`
// was one double: float products computed in double); a local view of a slot the kernel
// stores into is read in the kernel, after the stores (`row.sum()` was taken before them);
// an enumerator is a number; a floating-point index is converted as Tensor::operator[]
// converts it. The printed program's results are compared with the loop's as written.
#include <vmap/vmap.hpp>
#include <cstdio>
#include <iostream>
using namespace vmap;

constexpr float kGain = 0.1f;
void residue(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    double acc = 0;
    for (int64_t k = 0; k < x.size(1); ++k) {
      acc += kGain;
      float t = x[i][k].item<float>();
      float rounded = t * kGain;
      acc += (rounded - t * kGain) * 1e9;
    }
    out[i] = acc;
  }
}
// CHECK-LABEL: void residue(
// CHECK: vb::fused_scalar(vb::DeviceCode{"[](long a, double kGain, vb::Elements x, int64_t i, float b) {

constexpr int kBins = 10;
void wrap(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float total = 0;
    for (int64_t k = 0; k < x.size(1); ++k) {
      int b = (int)(x[i][k].item<float>() * kBins);
      total += b % kBins + (b / kBins) * 0.5f;
    }
    out[i] = total;
  }
}

void fold(const Tensor& x, const Tensor& period, Tensor& scaled, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int n = period[i].item<int>();
    scaled[i] = x[i] * 2.0f;
    float s = 0;
    for (int64_t k = 0; k < x.size(1); ++k) s += x[i][k].item<float>() / n + k / n;
    out[i] = s;
  }
}

void running_sums(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor row = out[i];
    float s = 0;
    for (int64_t k = 0; k < x.size(1); ++k) {
      s += x[i][k].item<float>();
      out[i][k] = s;
    }
    float total = row.sum().item<float>();
    out[i][0] = total - s;
  }
}

enum { kMaxHalvings = 6 };
void halvings(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float c = x[i].item<float>();
    int n = 0;
    while (c > 1.0f && n < kMaxHalvings) {
      c = c / 2;
      ++n;
    }
    out[i] = n;
  }
}

void resample(const Tensor& x, double step, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float s = 0;
    for (double t = 0; t < x.size(1); t += step) s += x[i][t].item<float>();
    out[i] = s;
  }
}

int main() {
  const Tensor x = (arange(40).reshape({10, 4}).to(kFloat) * 0.61f).sin() * 3;
  Tensor residues = zeros({10}, kDouble), wraps = zeros({10}), scaled = zeros({10, 4});
  Tensor folds = zeros({10}), sums = zeros({10, 4}), counts = zeros({10}, kInt32);
  Tensor resampled = zeros({10});
  residue(x, residues);
  std::printf("%.9f %.9f\n", residues[0].item<double>(), residues[7].item<double>());
  wrap(x, wraps);
  fold(x, arange(10).remainder(4).to(kInt32) + 1, scaled, folds);
  running_sums(x, sums);
  halvings(x.select(1, 0).abs() * 40, counts);
  resample(x, 1.5, resampled);
  std::cout << wraps << folds << sums << counts << resampled << "\n";
}

// CHECK: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
