// A loop in a (non-generic) lambda of a function template is analysed in each
// instantiation of the template around it: a refused body is reported at its line, with a
// note where that instantiation is made (not clang's dependent-expression nodes).
#include <vmap/vmap.hpp>
#include <cstdint>
using namespace vmap;

struct Printer {
  void operator()(const Tensor& t) const;
};

template <class T>
void printed_rows(const Tensor& x, T scale) {
  auto rows = [&] {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      Printer{}(x[i] * scale);
// CHECK: {{.*}}lambda_in_template.cpp:[[@LINE-1]]:7: error: call to 'operator()' has no batching rule and cannot run per example
  };
  rows();
}

void use(const Tensor& x) {
  printed_rows(x, 2.0);
// CHECK: {{.*}}lambda_in_template.cpp:[[@LINE-1]]:3: note: in the specialization 'printed_rows<double>' of the template, instantiated here
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
