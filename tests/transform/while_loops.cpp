// Per-example `while`/`do` loops: each example runs exactly its own iterations: over C++
// scalars in a scalar kernel (Note [Fused control flow] in transform/fuse.cpp), over tensors
// with masks. A `while` on a loop-invariant condition stays as written.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// The escape-time loop of the Mandelbrot set on per-example C++ scalars.
void escape_time(const Tensor& c, int max_iter, Tensor& counts) {
#pragma vmap
  for (int64_t i = 0; i < c.size(0); ++i) {
    float cr = c[i][0].item<float>();
    float ci = c[i][1].item<float>();
    float zr = 0.0f, zi = 0.0f;
    int k = 0;
    while (k < max_iter && zr * zr + zi * zi < 4.0f) {
      float next_r = zr * zr - zi * zi + cr;
      zi = 2.0f * zr * zi + ci;
      zr = next_r;
      ++k;
    }
    counts[i] = k;
  }
}
// CHECK-LABEL: void escape_time(
// CHECK: vb::at(counts, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](float cr, float ci, int max_iter) {
// CHECK-NEXT: float zr = 0.0f, zi = 0.0f;  // line 14
// CHECK-NEXT: int k = 0;  // line 15
// CHECK-NEXT: while (k < max_iter && zr * zr + zi * zi < 4.0f) {  // line 16
// CHECK-NEXT: float next_r = zr * zr - zi * zi + cr;
// CHECK-NEXT: zi = 2.0f * zr * zi + ci;
// CHECK-NEXT: zr = next_r;
// CHECK-NEXT: ++k;
// CHECK-NEXT: }
// CHECK-NEXT: return k;
// CHECK-NEXT: }, vb::at(c, i)[0].item<float>(), vb::at(c, i)[1].item<float>(), max_iter);  // lines 12-22

// Newton's method for sqrt(a) to a tolerance, on 0-d tensors.
void newton_sqrt(const Tensor& a, Tensor& roots, Tensor& steps) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    Tensor x = a[i].clone();
    int64_t n = 0;
    while ((x * x - a[i]).abs().item<float>() > 1e-5f * a[i].item<float>()) {
      x = 0.5 * (x + a[i] / x);
      n += 1;
    }
    roots[i] = x;
    steps[i] = n;
  }
}
// CHECK-LABEL: void newton_sqrt(
// CHECK: { vb::Loop _b_loop0;  // line 44
// CHECK-NEXT: while (_b_loop0.next((x * x - vb::at(a, i)).abs().item<float>() > 1e-5f * vb::at(a, i).item<float>())) {
// CHECK-NEXT: x = 0.5 * (x + vb::at(a, i) / x);  // line 45
// CHECK-NEXT: n += 1;  // line 46

// Nested whiles; a zero-trip inner loop for some examples; a `do` loop that runs
// once even when its condition is false at the start.
void nested(const Tensor& n, Tensor& out, Tensor& digits) {
#pragma vmap
  for (int64_t i = 0; i < n.size(0); ++i) {
    int64_t limit = n[i].item<int64_t>();
    int64_t total = 0;
    int64_t a = 0;
    while (a < limit) {
      int64_t b = a;
      while (b > 0) {
        total += b;
        b -= 2;
      }
      ++a;
    }
    out[i] = total;
    int64_t value = limit;
    int64_t count = 0;
    do {
      value = value / 10;
      ++count;
    } while (value != 0);
    digits[i] = count;
  }
}
// CHECK-LABEL: void nested(
// CHECK: vb::Value limit = vb::at(n, i).item<int64_t>();  // line 63
// CHECK-NEXT: vb::at(out, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t limit) {
// CHECK-NEXT: int64_t total = 0;  // line 64
// CHECK-NEXT: int64_t a = 0;  // line 65
// CHECK-NEXT: while (a < limit) {  // line 66
// CHECK-NEXT: int64_t b = a;
// CHECK-NEXT: while (b > 0) {
// CHECK-NEXT: total += b;
// CHECK-NEXT: b -= 2;
// CHECK-NEXT: }
// CHECK-NEXT: ++a;
// CHECK-NEXT: }
// CHECK-NEXT: return total;
// CHECK-NEXT: }, limit);  // lines 64-74
// CHECK-NEXT: vb::at(digits, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t value) {
// CHECK-NEXT: int64_t count = 0;  // line 76
// CHECK-NEXT: do {  // line 77
// CHECK-NEXT: value = value / 10;
// CHECK-NEXT: ++count;
// CHECK-NEXT: } while (value != 0);
// CHECK-NEXT: return count;
// CHECK-NEXT: }, limit);  // lines 75-81

// A loop whose condition is the same for every example stays a C++ loop.
void invariant_while(const Tensor& x, int64_t times, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor y = x[i];
    int64_t k = 0;
    while (k < times) {
      y = y * 2;
      ++k;
    }
    out[i] = y;
  }
}
// CHECK-LABEL: void invariant_while(
// CHECK: int64_t k = 0;  // line 113
// CHECK-NEXT: while (k < times) {  // line 114
// CHECK-NEXT: y = y * 2;  // line 115
// CHECK-NEXT: ++k;  // line 116

int main() {
  Tensor c = tensor({-2.0f, 0.0f, 0.25f, 0.0f, 0.3f, 0.5f, -0.75f, 0.1f, 1.0f, 1.0f,
                     0.0f, 0.0f, -1.0f, 0.0f, 0.26f, 0.0f})
                 .reshape({8, 2});
  Tensor counts = zeros({8}, kInt32);
  escape_time(c, 200, counts);
  std::cout << counts << "\n";

  Tensor a = tensor({4.0f, 2.0f, 1.0f, 100.0f, 0.01f, 12345.0f});
  Tensor roots = zeros({6});
  Tensor steps = zeros({6}, kInt64);
  newton_sqrt(a, roots, steps);
  std::cout << roots << "\n" << steps << "\n";

  Tensor n = tensor({int64_t{0}, 1, 5, 12, 3, 100, 7});
  Tensor out = zeros({7}, kInt64);
  Tensor digits = zeros({7}, kInt64);
  nested(n, out, digits);
  std::cout << out << "\n" << digits << "\n";

  Tensor x = arange(6).reshape({3, 2}).to(kFloat);
  Tensor doubled = zeros({3, 2});
  invariant_while(x, 3, doubled);
  std::cout << doubled << "\n";

  Tensor none = zeros({0, 2});
  Tensor no_counts = zeros({0}, kInt32);
  escape_time(none, 10, no_counts);
  std::cout << no_counts << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
