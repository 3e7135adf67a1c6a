// The variable of a range-based `for` in a vmap loop is the loop's own: writes to it are
// refused (through a reference they would write into the range).
#include <vmap/vmap.hpp>
#include <vector>
using namespace vmap;

void scaled(const Tensor& x, std::vector<Tensor>& states, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    for (Tensor& state : states) {
      state += x[i];
// CHECK: {{.*}}range_for_variable_written.cpp:[[@LINE-1]]:7: error: the variable 'state' of a range-based 'for' is written in the loop body
// CHECK: note: copy it into a local of the body and change that
// CHECK: 1 error generated.
      out[i] = state;
    }
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
