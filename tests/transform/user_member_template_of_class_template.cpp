// A member function template of a class template (SPEC section 6: loops in function templates
// and member functions): each specialization the file compiles (Buffer<float>::shifted<3>,
// Buffer<int>::shifted<1>) is batched, the rewrite written once into the template. It was
// refused as 'never instantiated': only the class's own specializations were searched.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

template <class T>
class Buffer {
 public:
  explicit Buffer(T gain) : gain_(gain) {}
  void apply(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = x[i] * gain_ + static_cast<T>(i);
  }
  template <int K>
  void shifted(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = x[i] + K * gain_;
  }
 private:
  T gain_;
};

template <class F>
void map_rows(const Tensor& x, Tensor& out, F f) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * 2;
  (void)f;
}

int main() {
  Tensor x = arange(0, 12, 1).to(kFloat32).reshape({3, 4}), out = zeros({3, 4});
  Buffer<float>(1.5f).apply(x, out);
  std::cout << out << "\n";
  Buffer<double>(0.25).apply(x, out);
  std::cout << out << "\n";
  Buffer<float>(2.0f).shifted<3>(x, out);
  std::cout << out << "\n";
  Buffer<int>(2).shifted<1>(x, out);
  std::cout << out << "\n";
  map_rows(x, out, [](int) { return 0; });
  std::cout << out << "\n";
}

// CHECK-LABEL: void apply(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c) { return a * b + c; }, vb::at(x, i), gain_, vb::scalar_cast<T>(i));  // line 16
// CHECK-LABEL: void shifted(
// CHECK: vb::at(out, i) = vb::at(x, i) + K * gain_;  // line 22
// CHECK-LABEL: void map_rows(
// CHECK: vb::at(out, i) = vb::at(x, i) * 2;  // line 32

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
