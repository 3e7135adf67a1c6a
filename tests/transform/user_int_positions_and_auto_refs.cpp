// Found by a sweep of new programs (both rewrote, then failed):
// - `auto&& alias = row;` of a `const Tensor&` row deduces `const Tensor&`; the rewrite
//   printed `vb::Value&& alias = row;`, which does not bind to an lvalue. It is now
//   `const vb::Value& alias`.
// - a per-example position of a type other than int64_t (`int c`, `short`, `bool`) in
//   `x[c]`, `select(0, c)`, `narrow(0, c, 1)`, a store `out[i][c] = ...`: C++ converts it to
//   the int64_t parameter, the batched select threw "Expected dtype int64 for index".
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void halve_rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const Tensor& row = x[i];
    auto&& alias = row;
    float s = alias.abs().sum().item<float>();
    int halvings = 0;
    while (s > 1.0f) {
      s *= 0.5f;
      halvings++;
    }
    out[i] = row * s - halvings;
  }
}
// CHECK-LABEL: void halve_rows(
// CHECK: const vb::Value& row = vb::at(x, i);  // line 15
// CHECK: const vb::Value& alias = row;  // line 16
// CHECK: vb::Value s = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& alias) { return alias.abs(); }, alias).sum().item<float>();  // line 17

void int_positions(const Tensor& x, const Tensor& k32, Tensor& a, Tensor& b, Tensor& c,
                   Tensor& d, Tensor& e) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int c_i = k32[i].item<int>();
    short s_i = static_cast<short>(c_i);
    bool flag = c_i > 1;
    a[i] = x[i][c_i] + x[i].select(0, s_i) + x[i][flag];
    b[i] = x[i].narrow(0, c_i, 1).sum();
    c[i][c_i] = x[i][0] * 2;
    d[i] = x[c_i][c_i];
    float f_i = c_i + 0.7f;
    e[i] = x[i][static_cast<int64_t>(f_i)] + x[i][((c_i % 3) + 3) % 3];
  }
}
// CHECK-LABEL: void int_positions(
// CHECK: vb::Value c_i = vb::at(k32, i).item<int>();  // line 35
// CHECK: vb::Value s_i = vb::scalar_cast<short>(c_i);  // line 36
// CHECK: vb::at(x, i)[c_i], vb::at(x, i).select(0, s_i), vb::at(x, i)[flag]);  // line 38
// CHECK: vb::at(b, i) = vb::at(x, i).narrow(0, c_i, 1).sum();  // line 39
// CHECK: vb::at(c, i)[c_i] = vb::at(x, i)[0] * 2;  // line 40
// CHECK: vb::at(d, i) = vb::at(x, c_i)[c_i];  // line 41

int main() {
  Tensor x = (arange(15).reshape({5, 3}).to(kFloat) * 0.9).sin() * 4;
  Tensor out = zeros({5, 3});
  halve_rows(x, out);
  std::cout << out << "\n";
  Tensor y = arange(16).reshape({4, 4}).to(kFloat);
  Tensor k32 = tensor({0, 2, 1, 3}).to(kInt);
  Tensor a = zeros({4}), b = zeros({4}), c = zeros({4, 4}), d = zeros({4}), e = zeros({4});
  int_positions(y, k32, a, b, c, d, e);
  std::cout << a << "\n" << b << "\n" << c << "\n" << d << "\n" << e << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
