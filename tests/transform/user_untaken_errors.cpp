// An op that would raise (a matmul of the wrong sizes, an index past the end) in a branch
// or loop iteration no example reaches: the loop as written never runs it, so the batched
// program raises nothing either (Note [Errors no example raises] in
// rules/src/batched/batched_internal.hpp); where an example reaches it, both raise.
#include <vmap/vmap.hpp>
#include <functional>
#include <iostream>
using namespace vmap;

void wrong_sizes(const Tensor& x, const Tensor& w, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (x[i].sum().item<float>() > 100.0f)
      out[i] = matmul(x[i], w).sum();
    else
      out[i] = x[i].sum();
  }
}
// CHECK-LABEL: void wrong_sizes(
// CHECK: vb::Where _b_where0(
// CHECK: vb::matmul(vb::at(x, i), w)

void past_the_end(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor row = x[i];
    if (row.sum().item<float>() < -100.0f) {
      Tensor tail = row[7];
      out[i] = tail * 2.0f;
    }
  }
}
// CHECK-LABEL: void past_the_end(
// CHECK: vb::Where _b_where0(

void after_break(const Tensor& x, const Tensor& w, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int k = 0;
    while (k < 10) {
      if (k >= x[i][0].item<float>() + 7.0f) break;
      out[i] = out[i] + x[i].sum();
      ++k;
    }
    if (k > 10) out[i] = matmul(x[i], w).sum();
  }
}
// CHECK-LABEL: void after_break(
// CHECK: vb::Loop
// CHECK: vb::Where _b_where{{[0-9]+}}(k > 10);
// CHECK-NEXT: vb::matmul(vb::at(x, i), w)

void run(const char* name, const std::function<void()>& f) {
  try {
    f();
    std::cout << name << ": ran\n";
  } catch (const Error&) {
    std::cout << name << ": raised\n";
  }
}

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat32) - 5.0f;
  Tensor w = ones({5, 2});
  Tensor out = zeros({4});
  run("wrong_sizes", [&] { wrong_sizes(x, w, out); });
  run("past_the_end", [&] { past_the_end(x, out); });
  run("after_break", [&] { after_break(x, w, out); });
  std::cout << out << "\n";
  // Example 3 reaches each branch now: both raise.
  Tensor reached = x.clone();
  reached[3].fill_(200.0f);
  run("wrong_sizes reached", [&] { wrong_sizes(reached, w, out); });
  reached[3].fill_(-200.0f);
  run("past_the_end reached", [&] { past_the_end(reached, out); });
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
