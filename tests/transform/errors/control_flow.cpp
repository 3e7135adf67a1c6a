// Per-example loops, switches and jumps the tool still refuses, each at its line: jumps
// that would leave the vmap loop's own body (they cut across examples), a vmap loop under
// a per-example `while`, and a `case` label hidden in a nested statement.
#include <vmap/vmap.hpp>
using namespace vmap;

void refused(const Tensor& x, const Tensor& codes, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    switch (codes[i].item<int64_t>()) {
    case 0:
      continue;
// CHECK: {{.*}}control_flow.cpp:[[@LINE-1]]:7: error: 'continue' in the body of a vmap loop
// CHECK: note: a jump out of the vmap loop's body cuts across examples
    case 1:
      out[i] = x[i];
      break;
    }
    int64_t k = codes[i].item<int64_t>();
    switch (k) {
    case 2: {
      out[i] = x[i] * 2;
    case 3:
// CHECK: {{.*}}control_flow.cpp:[[@LINE-1]]:5: error: a 'case' label inside a nested statement of its 'switch' is not supported
      out[i] = x[i] * 3;
    }
    }
  }
}

void nested(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < x.size(1); ++j) {
      if (x[i][j].item<float>() > 0)
        break;
// CHECK: {{.*}}control_flow.cpp:[[@LINE-1]]:9: error: 'break' in the body of a vmap loop
      out[i][j] = x[i][j];
    }
  }
}

void under_while(const Tensor& x, const Tensor& codes, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t k = codes[i].item<int64_t>();
    while (k > 0) {
      --k;
#pragma vmap
      for (int64_t j = 0; j < x.size(1); ++j)
// CHECK: {{.*}}control_flow.cpp:[[@LINE-1]]:7: error: a vmap loop inside a per-example loop or 'switch' is not supported
        out[i][j] = x[i][j] * k;
    }
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
