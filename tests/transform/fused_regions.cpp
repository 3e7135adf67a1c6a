// Chains spread over statements through per-example locals: the statements before the
// consumer run inside its compiled kernel (Note [Fused regions] in transform/fuse.cpp).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Three locals ending in a store, with a loop-invariant tensor broadcast over the examples.
void shifted_roots(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    Tensor d = a[i] - b;
    Tensor s = d * d + 1.0f;
    Tensor r = s.sqrt();
    out[i] = r;
  }
}
// CHECK-LABEL: void shifted_roots(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& c, const auto& b) {
// CHECK-NEXT: auto d = c - b;  // line 11
// CHECK-NEXT: auto s = d * d + 1.0f;  // line 12
// CHECK-NEXT: auto r = s.sqrt();  // line 13
// CHECK-NEXT: return r;
// CHECK-NEXT: }, vb::at(a, i), b);  // lines 11-14

// Ending in a whole-example sum, under two nested vmap levels.
void squared_distances(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      Tensor d = x[i] - y[j];
      Tensor squared = d * d;
      out[i][j] = squared.sum();
    }
}
// CHECK-LABEL: void squared_distances(
// CHECK: vb::at(out, i)[j] = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) {
// CHECK-NEXT: auto d = a - b;  // line 31
// CHECK-NEXT: auto squared = d * d;  // line 32
// CHECK-NEXT: return squared;
// CHECK-NEXT: }, vb::at(x, i), vb::at(y, j)).sum();  // lines 31-33

// Ending in an accumulator; a number parameter and a clamp in the chain.
double clipped_total(const Tensor& x, float scale) {
  Tensor total = zeros({}, kDouble);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i] * scale;
    v = v.clamp(-1.0, 1.0);
    v -= 0.5f;
    total += v.sum();
  }
  return total.item<double>();
}
// CHECK-LABEL: double clipped_total(
// CHECK: vb::accumulate(total, vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& scale) {
// CHECK-NEXT: auto v = a * scale;  // line 48
// CHECK-NEXT: v = v.clamp(-1.0, 1.0);  // line 49
// CHECK-NEXT: v -= 0.5f;  // line 50
// CHECK-NEXT: return v;
// CHECK-NEXT: }, vb::at(x, i), scale).sum(), vb::Reduce::add);  // lines 48-51

// An accumulator of one element per example, computed over three statements.
double first_elements(const Tensor& x) {
  Tensor total = zeros({});
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor p = x[i][0] * 2;
    p = p + 1;
    total += p;
  }
  return total.item<double>();
}
// CHECK-LABEL: double first_elements(
// CHECK: vb::accumulate(total, vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) {
// CHECK-NEXT: auto p = a * 2;  // line 68
// CHECK-NEXT: p = p + 1;  // line 69
// CHECK-NEXT: return p;
// CHECK-NEXT: }, vb::at(x, i)[0]), vb::Reduce::add);  // lines 68-70

// A loop that runs at least once (literal bounds) reading a broadcast operand, and a where.
void smoothed(const Tensor& x, const Tensor& w, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i];
    for (int k = 0; k < 3; ++k)
      v = v * w + 0.25f;
    v = where(v > 1.0f, v - 1.0f, v);
    out[i] = v;
  }
}
// CHECK-LABEL: void smoothed(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](auto v, const auto& w) {
// CHECK-NEXT: for (int k = 0; k < 3; ++k) {  // line 86
// CHECK-NEXT: v = v * w + 0.25f;  // line 87
// CHECK-NEXT: }
// CHECK-NEXT: v = vb::where(v > 1.0f, v - 1.0f, v);  // line 88
// CHECK-NEXT: return v;
// CHECK-NEXT: }, vb::at(x, i), w);  // lines 85-89

// A local rebound to a value of another dtype (bool): the kernel's first element throws
// and the batched ops compute it.
void rebinds_to_bool(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i] * 2;
    v = v > 1.0f;
    v = v + 1;
    out[i] = v;
  }
}
// CHECK-LABEL: void rebinds_to_bool(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) {
// CHECK-NEXT: auto v = a * 2;  // line 106
// CHECK-NEXT: v = v > 1.0f;  // line 107
// CHECK-NEXT: v = v + 1;  // line 108
// CHECK-NEXT: return v;
// CHECK-NEXT: }, vb::at(x, i));  // lines 106-109

// A per-example C++ number among the operands: the batched ops run the kernel.
void scaled_by_first(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float first = x[i][0].item<float>();
    Tensor v = x[i] * first;
    v = v * v;
    out[i] = v;
  }
}
// CHECK-LABEL: void scaled_by_first(
// CHECK: vb::Value first = vb::at(x, i)[0].item<float>();  // line 124
// CHECK-NEXT: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& first) {
// CHECK-NEXT: auto v = a * first;  // line 125
// CHECK-NEXT: v = v * v;  // line 126
// CHECK-NEXT: return v;
// CHECK-NEXT: }, vb::at(x, i), first);  // lines 125-127

// Inside a per-example `if` and inside a plain loop of the body.
void masked_and_looped(const Tensor& x, Tensor& out, Tensor& steps) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (x[i].sum().item<float>() > 2.0f) {
      Tensor v = x[i] * 2;
      v = v * v;
      out[i] = v;
    }
    for (int64_t t = 0; t < steps.size(1); ++t) {
      Tensor h = x[i] * t;
      h = h + 1;
      steps[i][t] = h.sum();
    }
  }
}
// CHECK-LABEL: void masked_and_looped(
// CHECK: { vb::Where _b_where0(vb::at(x, i).sum().item<float>() > 2.0f);  // line 142
// CHECK-NEXT: {
// CHECK-NEXT: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) {
// CHECK-NEXT: auto v = a * 2;  // line 143
// CHECK-NEXT: v = v * v;  // line 144
// CHECK-NEXT: return v;
// CHECK-NEXT: }, vb::at(x, i));  // lines 143-145
// The plain loop over t runs as a level (Note [Plain loops as levels]).
// CHECK: vb::Level _b_level1(0, steps.size(1));  // line 147
// CHECK-NEXT: const vb::Value t = _b_level1.index();
// CHECK-NEXT: vb::at(steps, i)[t] = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& t) {
// CHECK-NEXT: auto h = a * t;  // line 148
// CHECK-NEXT: h = h + 1;  // line 149
// CHECK-NEXT: return h;
// CHECK-NEXT: }, vb::at(x, i), t).sum();  // lines 148-150

int main() {
  Tensor x = (arange(12).reshape({4, 3}).to(kFloat) - 5.0) / 4.0;
  Tensor y = cos(arange(6).reshape({2, 3}).to(kFloat));
  Tensor b = tensor({0.5, -1.0, 2.0}).to(kFloat);
  for (Dtype dtype : {kFloat, kDouble}) {  // float64: the kernels on double elements
    Tensor xd = x.to(dtype), yd = y.to(dtype), bd = b.to(dtype);
    Tensor roots = zeros({4, 3}, dtype), distances = zeros({4, 2}, dtype);
    shifted_roots(xd, bd, roots);
    squared_distances(xd, yd, distances);
    std::cout << roots << "\n" << distances << "\n";
    std::cout << clipped_total(xd, 0.75f) << " " << first_elements(xd) << "\n";
    Tensor smooth = zeros({4, 3}, dtype), rebound = zeros({4, 3}, dtype);
    smoothed(xd, bd * 0.5, smooth);
    rebinds_to_bool(xd, rebound);
    std::cout << smooth << "\n" << rebound << "\n";
    Tensor scaled = zeros({4, 3}, dtype), masked = zeros({4, 3}, dtype);
    Tensor steps = zeros({4, 2}, dtype);
    scaled_by_first(xd, scaled);
    masked_and_looped(xd, masked, steps);
    std::cout << scaled << "\n" << masked << "\n" << steps << "\n";
  }
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
