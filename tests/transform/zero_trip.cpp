// Loops that run zero times leave outputs and accumulators as they were, and raise nothing:
// the ops of their body, which no example runs, raised on the empty batch (a bool
// subtraction, an element out of range, a matmul of the wrong shapes, item of a row of two;
// a seventh hunt of issue 31). With examples, an element out of range raises select's error
// on the example's own dim (it named the batched tensor's dim 1).
#include <vmap/vmap.hpp>
#include <iostream>
#include <string>
using namespace vmap;

void maybe_empty(const Tensor& x, int64_t n, Tensor& out, float& total, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < n; ++i) {
    out[i] = x[i] * 2;
    total += x[i].sum().item<float>();
    acc += x[i];
  }
}

void bodies_that_raise(const Tensor& x, const Tensor& w, Tensor& differences, Tensor& picked,
                       Tensor& products, Tensor& items) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    differences[i] = (x[i] - x[i]).sum();
    picked[i] = x[i][5];
    products[i] = x[i].matmul(w).sum();
    const int v = x[i].item<int>();
    items[i] = v * 2;
  }
}

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat);
  Tensor out = full({3, 2}, 9.0);
  float total = 4.5f;
  Tensor acc = ones({2});
  maybe_empty(x, 0, out, total, acc);
  std::cout << out << "\n" << total << "\n" << acc << "\n";
  maybe_empty(x, 2, out, total, acc);
  std::cout << out << "\n" << total << "\n" << acc << "\n";
  for (const int64_t examples : {0, 2}) {
    Tensor differences = zeros({examples}, kInt64), picked = zeros({examples});
    Tensor products = zeros({examples}), items = zeros({examples});
    try {
      const Tensor rows = examples == 0 ? zeros({0, 3}, kBool) : zeros({examples, 3});
      bodies_that_raise(rows, zeros({4, 2}), differences, picked, products, items);
      std::cout << "ran\n";
    } catch (const Error& e) {
      // The rewrite's message names the loop's line first ("file.cpp:19: "): compare the rest.
      std::string what = e.what();
      if (const std::size_t at = what.find(".cpp:"); at != std::string::npos)
        what = what.substr(what.find(": ", at) + 2);
      std::cout << "error: " << what << "\n";
    }
  }
}

// CHECK: vb::Level _b_level0(0, n);  // line 13
// CHECK-NEXT: const vb::Value i = _b_level0.index();
// CHECK-NEXT: vb::at(out, i) = vb::at(x, i) * 2;  // line 14
// CHECK-NEXT: vb::accumulate(total, vb::at(x, i).sum().item<float>(), vb::Reduce::add);  // line 15
// CHECK-NEXT: vb::accumulate(acc, vb::at(x, i), vb::Reduce::add);  // line 16

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
