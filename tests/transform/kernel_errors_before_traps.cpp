// A kernel that reads elements may raise the loop's error at an early example; one that divides
// integers may trap at a later one, which the loop as written never reaches. Such a kernel
// runs its examples in loop order, `vb::fused_scalar(vb::in_order, ...)` (Note [Examples in
// order] in rules/include/vmap/fused_scalar.hpp): on two threads a later chunk's division by
// zero killed the program (SIGFPE) where the loop raises a vmap::Error it can catch.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Example 0 reads past its row when `far` is set; examples with a zero divisor come later.
void divide(const Tensor& x, const Tensor& divisors, Tensor& out, bool far) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t k = divisors[i].item<int64_t>();
    int64_t at = far && i == 0 ? 7 : 1;
    int64_t v = x[i][at].item<int64_t>();
    out[i] = v / k + v % k;
  }
}
// CHECK-LABEL: void divide(
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::in_order, vb::DeviceCode{

static int64_t halve_by(int64_t v, int64_t k) { return v / (2 * k); }

// The division inside a function of the file: in order too.
void through_a_helper(const Tensor& x, const Tensor& divisors, Tensor& out, bool far) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t at = far && i == 0 ? 7 : 2;
    int64_t v = x[i][at].item<int64_t>();
    out[i] = halve_by(v, divisors[i].item<int64_t>()) + 1;
  }
}
// CHECK-LABEL: void through_a_helper(
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::in_order, [](

// By a constant: nothing traps, the examples may run on threads.
void by_three(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t at = i % 2 == 0 ? 0 : 2;
    int64_t v = x[i][at].item<int64_t>();
    out[i] = v / 3 - v % 3;
  }
}
// CHECK-LABEL: void by_three(
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::DeviceCode{

static int64_t twice(int64_t v) { return v * 2; }

// A helper without a division, called twice: the examples may run on threads.
void helper_twice(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t at = i % 2 == 0 ? 0 : 1;
    int64_t v = x[i][at].item<int64_t>();
    out[i] = twice(v) + twice(v + 1);
  }
}
// CHECK-LABEL: void helper_twice(
// CHECK: vb::at(out, i) = vb::fused_scalar([](

int main() {
  const int64_t n = 1000;  // many chunks of examples, on every thread
  Tensor x = arange(3 * n).reshape({n, 3}) - 1000;
  Tensor divisors = (arange(n) % 5) + 1;
  Tensor out = zeros({n}, kLong);
  divide(x, divisors, out, false);
  std::cout << out.sum().item<int64_t>() << " " << out[17].item<int64_t>() << "\n";
  through_a_helper(x, divisors, out, false);
  std::cout << out.sum().item<int64_t>() << " " << out[999].item<int64_t>() << "\n";
  by_three(x, out);
  std::cout << out.sum().item<int64_t>() << "\n";
  helper_twice(x, out);
  std::cout << out.sum().item<int64_t>() << "\n";
  // A zero divisor at example 900, after example 0's read out of range.
  divisors[900] = 0;
  try {
    divide(x, divisors, out, true);
    std::cout << "no error\n";
  } catch (const vmap::Error& e) {
    std::cout << e.what() << "\n";
  }
  try {
    through_a_helper(x, divisors, out, true);
    std::cout << "no error\n";
  } catch (const vmap::Error& e) {
    std::cout << e.what() << "\n";
  }
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
