// softplus's beta and threshold, and gelu's approximate, are the same for every example; a
// per-example one is refused (`softplus(x * b) / b` says it with a per-example b).
#include <vmap/vmap.hpp>
#include <string_view>
using namespace vmap;

void activations(const Tensor& x, const Tensor& beta, const Tensor& flags, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = softplus(x[i], beta[i].item<float>());
// CHECK-DAG: {{.*}}per_example_activation_parameter.cpp:[[@LINE-1]]:29: error: per-example value used as argument 2 of 'softplus' (an option of the op), which must be the same for every example
    std::string_view mode = flags[i].item<bool>() ? "tanh" : "none";
    out[i] += gelu(x[i], mode);
// CHECK-DAG: {{.*}}per_example_activation_parameter.cpp:[[@LINE-1]]:26: error: per-example value used as argument 2 of 'gelu' (a mode), which must be the same for every example
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
