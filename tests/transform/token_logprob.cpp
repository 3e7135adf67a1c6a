// Seed workload: the log-probability of each token's target (a data-dependent read).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void token_logprob(const Tensor& logits, const Tensor& targets, Tensor& out) {
#pragma vmap
  for (int64_t t = 0; t < logits.size(0); ++t) {
    Tensor logp = log_softmax(logits[t], 0);
    int64_t target = targets[t].item<int64_t>();
    out[t] = logp[target];
  }
}

int main() {
  Tensor logits = (arange(20).reshape({4, 5}).to(kFloat) * 0.37).sin();
  Tensor targets = tensor({3, 0, 4, 1});
  Tensor out = zeros({4});
  token_logprob(logits, targets, out);
  std::cout << out << "\n";
}

// CHECK: vb::Value logp = vb::log_softmax(vb::at(logits, t), 0);  // line 9
// The read at the target, through a local, is one batched gather of every token's element
// (straight-line, no ops around it: no scalar kernel).
// CHECK-NEXT: vb::Value target = vb::at(targets, t).item<int64_t>();  // line 10
// CHECK-NEXT: vb::at(out, t) = logp[target];  // line 11

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
