// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
// Functions of this file that a chain calls: a kernel computes them element by element, the
// body printed inside it (Note [Helpers in kernels] in transform/fuse_helpers.cpp), and the
// ones it cannot take stay batched clones.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

Tensor squared(const Tensor& v) { return v * v; }
Tensor cubed(Tensor v) { return squared(v) * v; }
Tensor product(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor soft_clip(const Tensor& v) { return tanh(v * 0.5) + relu(v - 3); }
// A number parameter passed the same for every example, and a local.
Tensor scaled(const Tensor& v, double factor) { return v * (factor * 0.5); }
Tensor shifted_square(const Tensor& v) {
  Tensor shifted = v - 1;
  return shifted * shifted;
}
// Not taken: a local assigned again, a parameter the value never reads, a default argument.
Tensor rebound(const Tensor& v) {
  Tensor s = v * 2;
  s = s + 1;
  return s;
}
Tensor first_only(const Tensor& a, const Tensor& b) { return a + 1; }
Tensor plus(const Tensor& a, const Tensor& b = ones({})) { return a + b; }
// The clones of those a kernel takes everywhere are not printed.
// CHECK-NOT: _b_squared
// CHECK-NOT: _b_cubed
// CHECK-NOT: _b_product
// CHECK: // clang-vmap: batched clone of 'soft_clip' (line 12)
// CHECK: // clang-vmap: batched clone of 'scaled' (line 14)
// CHECK-NOT: _b_shifted_square
// CHECK: // clang-vmap: batched clone of 'rebound' (line 20)

// A helper in a region's loop, its value less the local it reads.
void squared_less_itself(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor value = x[i] * 0.5;
    for (int round = 0; round < 3; ++round)
      value = squared(value) - value;
    out[i] = value;
  }
}
// CHECK-LABEL: void squared_less_itself(
// CHECK: vb::at(out, i) = vb::fused([](const auto& a) {
// CHECK-NEXT: auto value = a * 0.5;  // line 40
// CHECK-NEXT: for (int round = 0; round < 3; ++round) {  // line 41
// CHECK-NEXT: value = [](const auto& v) { return v * v; }(value) - value;  // line 42
// CHECK-NEXT: }
// CHECK-NEXT: return value;
// CHECK-NEXT: }, vb::at(x, i));  // lines 40-43

// Helpers calling helpers, in a whole-example sum and an accumulator.
void sums(const Tensor& x, const Tensor& y, Tensor& cubes, Tensor& total) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    cubes[i] = cubed(x[i] + 1).sum();
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      total += product(x[i], y[j]);
  }
}
// CHECK-LABEL: void sums(
// CHECK: vb::at(cubes, i) = vb::fused([](const auto& a) { return [](const auto& v) { return [](const auto& v) { return v * v; }(v) * v; }(a + 1); }, vb::at(x, i)).sum();  // line 59
// CHECK: vb::accumulate(total, vb::fused([](const auto& a, const auto& b) { return [](const auto& a, const auto& b) { return a.mul(b); }(a, b); }, vb::at(x, i), vb::at(y, j)), vb::Reduce::add);  // line 62

// Free functions in the helper's body print as the batched API's; the helper also runs
// outside a kernel (matmul's operand), where its clone is called.
void clipped(const Tensor& x, const Tensor& w, Tensor& out, Tensor& projected) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = soft_clip(x[i]) * 2;
    projected[i] = matmul(w, soft_clip(x[i]));
  }
}
// CHECK-LABEL: void clipped(
// CHECK: vb::at(out, i) = vb::fused([](const auto& a) { return [](const auto& v) { return vb::tanh(v * 0.5) + vb::relu(v - 3); }(a) * 2; }, vb::at(x, i));  // line 74
// CHECK-NEXT: vb::at(projected, i) = vb::matmul(w, _b_soft_clip(vb::at(x, i)));  // line 75

// A number parameter and a local; a per-example number, and the helpers a kernel does not
// take: their clones' calls.
void numbers_and_locals(const Tensor& x, Tensor& a, Tensor& b, Tensor& c, Tensor& d,
                        Tensor& e, Tensor& f) {
  const float half = 0.5f;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    a[i] = scaled(x[i], 3) + scaled(x[i], half);
    b[i] = shifted_square(x[i]) + 1;
    c[i] = scaled(x[i], x[i].sum().item<double>()) + 1;  // line 90
    d[i] = rebound(x[i]) * 2;
    e[i] = first_only(x[i], x[i] * 2) + 1;
    f[i] = plus(x[i]) * 2;
  }
}
// CHECK-LABEL: void numbers_and_locals(
// CHECK: vb::at(a, i) = vb::fused([](const auto& b, const auto& half) { return [](const auto& v, double factor) { return v * (factor * 0.5); }(b, 3) + [](const auto& v, double factor) { return v * (factor * 0.5); }(b, half); }, vb::at(x, i), half);  // line 89
// CHECK-NEXT: vb::at(b, i) = vb::fused([](const auto& a) { return [](const auto& v) { auto shifted = v - 1; return shifted * shifted; }(a) + 1; }, vb::at(x, i));  // line 90
// CHECK-NEXT: vb::at(c, i) = _b_scaled(vb::at(x, i), vb::at(x, i).sum().item<double>()) + 1;
// CHECK-NEXT: vb::at(d, i) = _b_rebound(vb::at(x, i)) * 2;  // line 92
// CHECK-NEXT: vb::at(e, i) = _b_first_only(vb::at(x, i), vb::at(x, i) * 2) + 1;  // line 93
// CHECK-NEXT: vb::at(f, i) = _b_plus(vb::at(x, i)) * 2;  // line 94
// The specializations of scaled_by below have no clone.
// CHECK-NOT: _b_scaled_by

// More places a taken helper goes: one argument twice, a bool value under `where`, under a
// per-example `if`, a slot updated in place, two kernels in one statement, an int input,
// a function template's specializations.
Tensor positive(const Tensor& v) { return v > 0; }
template <class T>
Tensor scaled_by(const Tensor& v, T factor) { return v * factor + factor; }
template <class T>  // names T in its body: a clone
Tensor scaled_twice(const Tensor& v, T factor) { return v * static_cast<T>(factor * 2); }
Tensor halve(const Tensor& v) { return v / 2; }
void more_places(const Tensor& x, const Tensor& n, Tensor& a, Tensor& b, Tensor& c, Tensor& d,
                 Tensor& e, Tensor& f) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    a[i] = where(positive(x[i]), product(x[i], x[i]), halve(n[i]) - 1);
    if (x[i].sum().item<float>() > 0)
      b[i] = squared(shifted_square(x[i])) * 2;
    c[i] = x[i];
    c[i] += squared(x[i]) * 2;
    d[i] = squared(x[i] - 1).sum() + cubed(x[i]).mean();
    e[i] = halve(n[i]) * 3 + scaled_by(x[i], 2.5f) + scaled_by(x[i], 3);
    f[i] = scaled_twice(x[i], 2.0) + 1;
  }
}
// CHECK-LABEL: void more_places(
// CHECK: vb::at(a, i) = vb::fused([](const auto& b, const auto& c) { return vb::where([](const auto& v) { return v > 0; }(b), [](const auto& a, const auto& b) { return a.mul(b); }(b, b), [](const auto& v) { return v / 2; }(c) - 1); }, vb::at(x, i), vb::at(n, i));  // line 120
// CHECK-NEXT: { vb::Where _b_where0(vb::at(x, i).sum().item<float>() > 0);  // line 121
// CHECK-NEXT: vb::at(b, i) = vb::fused([](const auto& a) { return [](const auto& v) { return v * v; }([](const auto& v) { auto shifted = v - 1; return shifted * shifted; }(a)) * 2; }, vb::at(x, i));  // line 122
// CHECK: vb::at(c, i) = vb::fused_slot([](auto a, const auto& b) {
// CHECK-NEXT: vb::assign(a, b);  // line 123
// CHECK-NEXT: a += [](const auto& v) { return v * v; }(b) * 2;  // line 124
// CHECK: vb::at(e, i) = vb::fused([](const auto& a, const auto& b) { return [](const auto& v) { return v / 2; }(a) * 3 + [](const auto& v, float factor) { return v * factor + factor; }(b, 2.5f) + [](const auto& v, int factor) { return v * factor + factor; }(b, 3); }, vb::at(n, i), vb::at(x, i));  // line 126
// CHECK-NEXT: vb::at(f, i) = _b_scaled_twice_double(vb::at(x, i), 2.0) + 1;  // line 127

int main() {
  Tensor x = (arange(12).reshape({4, 3}).to(kFloat) - 5.0) / 4.0;
  Tensor y = cos(arange(6).reshape({2, 3}).to(kFloat));
  Tensor w = sin(arange(6).reshape({2, 3}).to(kFloat));
  for (Dtype dtype : {kFloat, kDouble, kInt64}) {  // int64: the batched ops run the kernels
    Tensor xd = dtype == kInt64 ? (x * 4).to(dtype) : x.to(dtype), yd = y.to(dtype) * 3;
    Tensor less = zeros({4, 3}, dtype), cubes = zeros({4}, dtype), total = zeros({3}, dtype);
    squared_less_itself(xd, less);
    sums(xd, yd, cubes, total);
    std::cout << less << "\n" << cubes << "\n" << total << "\n";
    if (dtype == kInt64) continue;
    Tensor out = zeros({4, 3}, dtype), projected = zeros({4, 2}, dtype);
    clipped(xd * 3, w.to(dtype), out, projected);
    std::cout << out << "\n" << projected << "\n";
    Tensor a = zeros({4, 3}, dtype), b = zeros({4, 3}, dtype), c = zeros({4, 3}, dtype),
           d = zeros({4, 3}, dtype), e = zeros({4, 3}, dtype), f = zeros({4, 3}, dtype);
    numbers_and_locals(xd, a, b, c, d, e, f);
    std::cout << a << "\n" << b << "\n" << c << "\n" << d << "\n" << e << "\n" << f << "\n";
    Tensor n = arange(12).reshape({4, 3}) - 5, m = zeros({4}, dtype);
    Tensor p = zeros({4, 3}, dtype), q = zeros({4, 3}, dtype), r = zeros({4, 3}, dtype),
           t = zeros({4, 3}, dtype);
    Tensor u = zeros({4, 3}, dtype);
    more_places(xd, n, p, q, r, m, t, u);
    std::cout << p << "\n" << q << "\n" << r << "\n" << m << "\n" << t << "\n" << u << "\n";
  }
}
