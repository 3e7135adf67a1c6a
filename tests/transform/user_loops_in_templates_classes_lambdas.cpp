// Where the loop may be: in a function template (rewritten once, in the template, for
// every specialization this file compiles), in member functions reading members (the
// same for every example unless indexed per example), in a member function template, in
// a member function of a class template, in a lambda's body and in a generic lambda.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
#include <vector>
using namespace vmap;

template <class T>
void scale_shift(const Tensor& x, Tensor& out, T factor) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    T shift = static_cast<T>(i);
    out[i] = x[i] * factor + shift;
  }
}

template <int64_t Power>
void powers(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].pow(Power).sum();
}

class Layer {
public:
  Layer(Tensor weight, Tensor per_row_bias) : weight_(weight), bias_(per_row_bias) {}

  void forward(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = (matmul(weight_, x[i]) + bias_[i] * scale_).relu();
  }

  template <class T>
  void shifted(const Tensor& x, Tensor& out, T by) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = matmul(weight_, x[i]) + by;
  }

private:
  Tensor weight_;
  Tensor bias_;
  float scale_ = 0.5f;
};

template <class T>
struct Scaler {
  T by;
  void apply(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = x[i] * by - x[i].amax();
  }
};

void in_lambdas(const Tensor& x, Tensor& a, Tensor& b) {
  auto centre = [&](Tensor& out) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = x[i] - x[i].mean();
  };
  centre(a);
  auto scaled = [&](auto by) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      b[i] = x[i] * by;
  };
  scaled(2.0f);
  scaled(3);
}

// A (non-generic) lambda in a function template: batched in each instantiation of the
// template around it (float and double).
template <typename T>
void lambda_in_template(const Tensor& x, Tensor& out, T bias) {
  auto rows = [&](int64_t n) {
#pragma vmap
    for (int64_t i = 0; i < n; ++i)
      out[i] = relu(x[i] + bias);
  };
  rows(x.size(0));
}

int main() {
  Tensor x = (arange(12).reshape({4, 3}).to(kFloat) * 0.4).sin();
  Tensor f = zeros({4, 3}), n = zeros({4, 3}), p2 = zeros({4}), p3 = zeros({4});
  scale_shift(x, f, 1.5f);
  scale_shift(x, n, 2);
  powers<2>(x, p2);
  powers<3>(x, p3);
  Layer layer((arange(9).reshape({3, 3}).to(kFloat) * 0.3).cos(), arange(12).reshape({4, 3}).to(kFloat) * 0.1);
  Tensor forward = zeros({4, 3}), shifted_f = zeros({4, 3}), shifted_i = zeros({4, 3});
  layer.forward(x, forward);
  layer.shifted(x, shifted_f, 0.25f);
  layer.shifted(x, shifted_i, 1);
  Tensor a = zeros({4, 3}), b = zeros({4, 3});
  in_lambdas(x, a, b);
  Tensor scaled_f = zeros({4, 3}), scaled_i = zeros({4, 3});
  Scaler<float>{0.5f}.apply(x, scaled_f);
  Scaler<int>{3}.apply(x, scaled_i);
  Tensor lf = zeros({4, 3}), ld = zeros({4, 3});
  lambda_in_template(x, lf, -0.25f);
  lambda_in_template(x, ld, 0.5);
  std::cout << lf << "\n" << ld << "\n";
  std::cout << f << "\n" << n << "\n" << p2 << "\n" << p3 << "\n" << forward << "\n"
            << shifted_f << "\n" << shifted_i << "\n" << a << "\n" << b << "\n" << scaled_f
            << "\n" << scaled_i << "\n";
}

// CHECK-LABEL: void scale_shift(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 14
// CHECK-NEXT: const vb::Value i = _b_level0.index();
// CHECK-NEXT: vb::Value shift = vb::scalar_cast<T>(i);  // line 15
// CHECK-NEXT: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& factor, const auto& shift) { return a * factor + shift; }, vb::at(x, i), factor, shift);  // line 16
// CHECK-LABEL: void powers(
// A template parameter is no name of a device program: no device text.
// CHECK: vb::at(out, i) = vb::fused([](const auto& a) { return a.pow(Power); }, vb::at(x, i)).sum();  // line 24
// CHECK-LABEL: void forward(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c) { return (a + b * c).relu(); }, vb::matmul(weight_, vb::at(x, i)), vb::at(bias_, i), scale_);  // line 34
// CHECK-LABEL: void shifted(
// CHECK: vb::at(out, i) = vb::matmul(weight_, vb::at(x, i)) + by;  // line 41
// CHECK-LABEL: struct Scaler {
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c) { return a * b - c; }, vb::at(x, i), by, vb::at(x, i).amax());  // line 56
// CHECK-LABEL: void in_lambdas(
// CHECK: vb::at(out, i) = vb::at(x, i) - vb::at(x, i).mean();  // line 64
// CHECK: vb::at(b, i) = vb::at(x, i) * by;  // line 70
// CHECK-LABEL: void lambda_in_template(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& bias) { return vb::relu(a + bias); }, vb::at(x, i), bias);

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
