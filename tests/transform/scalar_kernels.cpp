// Per-example control flow over C++ scalars, as a user first writes it: each region
// ending in a store is one scalar kernel, the code as written run once per example
// (Note [Fused control flow] in transform/fuse.cpp). float, double, int and int64_t.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

// The Mandelbrot set over two nested vmap levels: a compound `while` condition.
void mandelbrot(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
    for (int64_t x = 0; x < re.size(0); ++x) {
      float cr = re[x].item<float>();
      float ci = im[y].item<float>();
      float zr = 0.0f, zi = 0.0f;
      int k = 0;
      while (k < max_iter && zr * zr + zi * zi < 4.0f) {
        float next_r = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = next_r;
        ++k;
      }
      counts[y][x] = k;
    }
  }
}
// CHECK-LABEL: void mandelbrot(
// The kernel's text for the device (Note [Scalar kernels on a device]), then the kernel:
// CHECK: vb::at(counts, y)[x] = vb::fused_scalar(vb::DeviceCode{{[{]}}"[](float cr, float ci, int max_iter) {\nfloat zr = 0.0f, zi = 0.0f;\nint k = 0;\nwhile (k < max_iter && zr * zr + zi * zi < 4.0f) {\nfloat next_r = zr * zr - zi * zi + cr;\nzi = 2.0f * zr * zi + ci;\nzr = next_r;\n++k;\n{{[}]}}\nreturn k;\n{{[}]}}"}, [](float cr, float ci, int max_iter) {
// CHECK-NEXT: float zr = 0.0f, zi = 0.0f;  // line 17
// CHECK-NEXT: int k = 0;  // line 18
// CHECK-NEXT: while (k < max_iter && zr * zr + zi * zi < 4.0f) {  // line 19
// CHECK-NEXT: float next_r = zr * zr - zi * zi + cr;
// CHECK-NEXT: zi = 2.0f * zr * zi + ci;
// CHECK-NEXT: zr = next_r;
// CHECK-NEXT: ++k;
// CHECK-NEXT: }
// CHECK-NEXT: return k;
// CHECK-NEXT: }, vb::at(re, x).item<float>(), vb::at(im, y).item<float>(), max_iter);  // lines 15-25
// CHECK-NOT: vb::Loop

// A counted `for` left early by a per-example `break`.
void steps_below(const Tensor& limits, Tensor& steps) {
#pragma vmap
  for (int64_t i = 0; i < limits.size(0); ++i) {
    float limit = limits[i].item<float>();
    float total = 0.0f;
    int n = 0;
    for (int t = 1; t <= 100; ++t) {
      total += 0.5f * t;
      if (total > limit)
        break;
      ++n;
    }
    steps[i] = n;
  }
}
// CHECK-LABEL: void steps_below(
// CHECK: vb::at(steps, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](float limit) {
// CHECK-NEXT: float total = 0.0f;  // line 49
// CHECK-NEXT: int n = 0;  // line 50
// CHECK-NEXT: for (int t = 1; t <= 100; ++t) {  // line 51
// CHECK-NEXT: total += 0.5f * t;
// CHECK-NEXT: if (total > limit)
// CHECK-NEXT: break;
// CHECK-NEXT: ++n;
// CHECK-NEXT: }
// CHECK-NEXT: return n;
// CHECK-NEXT: }, vb::at(limits, i).item<float>());  // lines 48-57
// CHECK-NOT: vb::Loop

// Collatz steps on int64_t: `continue` skips the odd case.
void collatz(const Tensor& starts, Tensor& steps) {
#pragma vmap
  for (int64_t i = 0; i < starts.size(0); ++i) {
    int64_t n = starts[i].item<int64_t>();
    int64_t count = 0;
    while (n != 1) {
      ++count;
      if (n % 2 == 0) {
        n /= 2;
        continue;
      }
      n = 3 * n + 1;
    }
    steps[i] = count;
  }
}
// CHECK-LABEL: void collatz(
// CHECK: vb::at(steps, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t n) {
// CHECK-NEXT: int64_t count = 0;  // line 79
// CHECK-NEXT: while (n != 1) {  // line 80
// CHECK-NEXT: ++count;
// CHECK-NEXT: if (n % 2 == 0) {
// CHECK-NEXT: n /= 2;
// CHECK-NEXT: continue;
// CHECK-NEXT: }
// CHECK-NEXT: n = 3 * n + 1;
// CHECK-NEXT: }
// CHECK-NEXT: return count;
// CHECK-NEXT: }, vb::at(starts, i).item<int64_t>());  // lines 78-88

// A piecewise function on doubles: an else-if chain and <cmath>.
void piecewise(const Tensor& xs, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < xs.size(0); ++i) {
    double x = xs[i].item<double>();
    double y;
    if (x < -1.0)
      y = -1.0;
    else if (x < 0.0)
      y = x * x * x;
    else if (x < 1.0)
      y = std::sqrt(x);
    else
      y = 1.0 + std::log(x);
    out[i] = y;
  }
}
// CHECK-LABEL: void piecewise(
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](double x) {
// CHECK-NEXT: double y;  // line 110
// CHECK-NEXT: if (x < -1.0)  // line 111
// CHECK-NEXT: y = -1.0;
// CHECK-NEXT: else if (x < 0.0)
// CHECK-NEXT: y = x * x * x;
// CHECK-NEXT: else if (x < 1.0)
// CHECK-NEXT: y = std::sqrt(x);
// CHECK-NEXT: else
// CHECK-NEXT: y = 1.0 + std::log(x);
// CHECK-NEXT: return y;
// CHECK-NEXT: }, vb::at(xs, i).item<double>());  // lines 109-119

// Newton's method for sqrt(a) on doubles, to a tolerance or 50 steps.
void newton_sqrt(const Tensor& a, double tolerance, Tensor& roots) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    double value = a[i].item<double>();
    double x = value > 1.0 ? value : 1.0;
    double f = x * x - value;
    int it = 0;
    while (std::fabs(f) > tolerance && it < 50) {
      x = x - f / (2.0 * x);
      f = x * x - value;
      ++it;
    }
    roots[i] = x;
  }
}
// CHECK-LABEL: void newton_sqrt(
// CHECK: vb::at(roots, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](double value, double tolerance) {
// CHECK-NEXT: double x = value > 1.0 ? value : 1.0;  // line 141
// CHECK-NEXT: double f = x * x - value;  // line 142
// CHECK-NEXT: int it = 0;  // line 143
// CHECK-NEXT: while (std::fabs(f) > tolerance && it < 50) {  // line 144
// CHECK: return x;
// CHECK-NEXT: }, vb::at(a, i).item<double>(), tolerance);  // lines 140-149

// Inside a per-example `if`: only the examples it takes run the kernel (for the others,
// n <= 0, the loop would never end).
void guarded_collatz(const Tensor& starts, Tensor& steps) {
#pragma vmap
  for (int64_t i = 0; i < starts.size(0); ++i) {
    int64_t n = starts[i].item<int64_t>();
    if (n > 0) {
      int64_t m = n;
      int64_t count = 0;
      while (m != 1) {
        m = m % 2 == 0 ? m / 2 : 3 * m + 1;
        ++count;
      }
      steps[i] = count;
    }
  }
}
// CHECK-LABEL: void guarded_collatz(
// CHECK: { vb::Where _b_where0(n > 0);  // line 167
// CHECK: vb::at(steps, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t m) {
// CHECK-NEXT: int64_t count = 0;  // line 169
// CHECK-NEXT: while (m != 1) {  // line 170
// CHECK-NEXT: m = m % 2 == 0 ? m / 2 : 3 * m + 1;
// CHECK-NEXT: ++count;
// CHECK-NEXT: }
// CHECK-NEXT: return count;
// CHECK-NEXT: }, n);  // lines 168-174

// An early `return` per example in a function of this file that the loop calls (SPEC's
// form of it): the kernel calls the function as written.
int magnitude(double v) {
  if (v < 0.0)
    return -1;
  if (v == 0.0)
    return 0;
  int digits = 0;
  while (v >= 1.0) {
    v /= 10.0;
    ++digits;
  }
  return digits;
}
void magnitudes(const Tensor& xs, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < xs.size(0); ++i) {
    double v = xs[i].item<double>();
    int m = 0;
    if (v > 0.5)
      m = magnitude(v * 100.0);
    else
      m = magnitude(v);
    out[i] = m;
  }
}
// CHECK-LABEL: void magnitudes(
// A helper the device program would not have: no device code.
// CHECK: vb::at(out, i) = vb::fused_scalar([](double v) {
// CHECK-NEXT: int m = 0;  // line 207
// CHECK-NEXT: if (v > 0.5)  // line 208
// CHECK-NEXT: m = magnitude(v * 100.0);
// CHECK-NEXT: else
// CHECK-NEXT: m = magnitude(v);
// CHECK-NEXT: return m;
// CHECK-NEXT: }, vb::at(xs, i).item<double>());  // lines 206-212

int main() {
  Tensor re = arange(12).to(kFloat) * 0.25f - 2.0f;
  Tensor im = arange(5).to(kFloat) * 0.4f - 1.0f;
  Tensor counts = zeros({5, 12}, kInt32);
  mandelbrot(re, im, 64, counts);
  std::cout << counts << "\n";

  Tensor limits = tensor({0.0f, 1.0f, 7.5f, 100.0f, 1e6f, -3.0f});
  Tensor below = zeros({6}, kInt32);
  steps_below(limits, below);
  std::cout << below << "\n";

  Tensor starts = tensor({int64_t{1}, 2, 3, 7, 27, 97});
  Tensor steps = zeros({6}, kInt64);
  collatz(starts, steps);
  std::cout << steps << "\n";

  Tensor xs = tensor({-3.0, -1.0, -0.5, 0.0, 0.25, 0.99, 1.0, 10.0});
  Tensor ys = zeros({8}, kDouble);
  piecewise(xs, ys);
  std::cout << ys << "\n";

  Tensor a = tensor({4.0, 2.0, 0.25, 100.0, 1e-4, 12345.0});
  Tensor roots = zeros({6}, kDouble);
  newton_sqrt(a, 1e-12, roots);
  std::cout << roots << "\n";

  Tensor mixed = tensor({int64_t{6}, 0, -4, 27, 1});
  Tensor guarded = full({5}, -1, kInt64);
  guarded_collatz(mixed, guarded);
  std::cout << guarded << "\n";

  Tensor scales = tensor({-3.0, 0.0, 0.25, 0.75, 12.0, 4096.5});
  Tensor digits = zeros({6}, kInt32);
  magnitudes(scales, digits);
  std::cout << digits << "\n";

  Tensor none = zeros({0});
  Tensor no_steps = zeros({0}, kInt32);
  steps_below(none, no_steps);
  std::cout << no_steps << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
