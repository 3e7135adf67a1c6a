// A member of a class template called from a vmap loop has one clone for every
// specialization; where two specializations need different code (T v = s; converts the
// per-example float to double in Acc<double> only), the loop is refused, naming both.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

template <class T>
class Acc {
 public:
  explicit Acc(T bias) : bias_(bias) {}
  void run(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
// CHECK: {{.*}}class_template_clones_differ.cpp:[[@LINE-1]]:5: error: the specializations 'Acc<float>::run' and 'Acc<double>::run' of this function template need different rewrites, but the template has one body
      out[i] = shift(x[i].sum().item<float>());
  }
  T shift(float s) const {
    T v = s;
    return v + bias_;
  }
 private:
  T bias_;
};

int main() {
  Tensor x = ones({3, 2}), out = zeros({3});
  Acc<float>(1.0f).run(x, out);
  Acc<double>(2.0).run(x, out);
  std::cout << out << "\n";
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
