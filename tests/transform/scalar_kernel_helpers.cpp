// A stored value that calls a function of this file whose body loops over C++ scalars is a
// scalar kernel of its own: the call as written, once per example, each example its own trip
// count (Note [Fused control flow] in transform/fuse_scalar.cpp), not the function's clone
// run under masks for the most trips of any example. The clone is not printed where no call
// needs it.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// The escape count, returned from inside the loop.
int escape_count(float cr, float ci, int max_iter) {
  float zr = 0.0f, zi = 0.0f;
  for (int k = 0; k < max_iter; ++k) {
    if (zr * zr + zi * zi >= 4.0f)
      return k;
    float next_r = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = next_r;
  }
  return max_iter;
}
// CHECK-NOT: batched clone of 'escape_count'

void mandelbrot(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
    for (int64_t x = 0; x < re.size(0); ++x)
      counts[y][x] = escape_count(re[x].item<float>(), im[y].item<float>(), max_iter);
  }
}
// CHECK-LABEL: void mandelbrot(
// CHECK: vb::at(counts, y)[x] = vb::fused_scalar([](float a, float b, int max_iter) {
// CHECK-NEXT: return escape_count(a, b, max_iter);
// CHECK-NEXT: }, vb::at(re, x).item<float>(), vb::at(im, y).item<float>(), max_iter);

// A function without a loop of its own that calls one that loops; a `while (true)` left by
// a return. Inactive examples (negative ones, which would never leave it) do not run it.
int64_t halvings(double v) {
  int64_t n = 0;
  while (true) {
    if (v < 1.0)
      return n;
    v /= 2.0;
    ++n;
  }
}
int64_t halvings_plus(double v, int64_t extra) { return halvings(v) + extra; }
// CHECK-NOT: batched clone of 'halvings

void guarded_halvings(const Tensor& values, Tensor& counts) {
#pragma vmap
  for (int64_t i = 0; i < values.size(0); ++i) {
    double v = values[i].item<double>();
    if (v >= 0)
      counts[i] = halvings_plus(v, 100);
  }
}
// CHECK-LABEL: void guarded_halvings(
// CHECK: vb::Where _b_where0(v >= 0);
// CHECK: vb::at(counts, i) = vb::fused_scalar([](double v) {
// CHECK-NEXT: return halvings_plus(v, 100);
// CHECK-NEXT: }, v);

// A function without a loop is called as written too: no clone, the kernel's lanes run
// it (inlined by the compiler).
float clipped(float v) { return v > 1.0f ? 1.0f : v; }
// CHECK-NOT: batched clone of 'clipped'

void clip(const Tensor& values, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < values.size(0); ++i)
    out[i] = clipped(values[i].item<float>());
}
// CHECK-LABEL: void clip(
// CHECK: vb::at(out, i) = vb::fused_scalar([](float a) {
// CHECK-NEXT: return clipped(a);
// CHECK-NEXT: }, vb::at(values, i).item<float>());  // line 73

int main() {
  Tensor re = arange(12).to(kFloat) * 0.25f - 2.0f;
  Tensor im = arange(5).to(kFloat) * 0.4f - 1.0f;
  Tensor counts = zeros({5, 12}, kInt32);
  mandelbrot(re, im, 64, counts);
  std::cout << counts << "\n";

  Tensor values = tensor({0.5, 1.0, -3.0, 1e6, 7.0, -1e-9, 0.0});
  Tensor halved = full({7}, -1, kInt64);
  guarded_halvings(values, halved);
  std::cout << halved << "\n";

  Tensor out = zeros({7});
  clip(values.to(kFloat), out);
  std::cout << out << "\n";

  Tensor none = zeros({0});
  Tensor no_halved = zeros({0}, kInt64);
  guarded_halvings(none.to(kDouble), no_halved);
  std::cout << no_halved << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
