// Forms of the same math that take the compiled kernels too (Note [Which chains are fused]
// in transform/fuse.cpp): a pow by an integer past the runtime's one-pass forms is one
// kernel (repeated squaring inside it) even alone in a store; a 2-norm is the root of the
// kernel's sum of squares; a local cloned, then squared in place, reads the value itself.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// x^32 and x^7, member and free forms, and 1 / x^5; x^2.0 is one runtime pass (x * x)
// and stays one op.
void powers(const Tensor& x, Tensor& p32, Tensor& p7, Tensor& inverse, Tensor& square) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    p32[i] = x[i].pow(32);
    p7[i] = pow(x[i], 7);
    inverse[i] = x[i].pow(-5.0);
    square[i] = x[i].pow(2.0);
  }
}
// CHECK-LABEL: void powers(
// CHECK: vb::at(p32, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) { return a.pow(32); }, vb::at(x, i));
// CHECK-NEXT: vb::at(p7, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) { return vb::pow(a, 7); }, vb::at(x, i));
// CHECK-NEXT: vb::at(inverse, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) { return a.pow(-5.0); }, vb::at(x, i));
// CHECK-NEXT: vb::at(square, i) = vb::at(x, i).pow(2.0);

// Integers keep their exact powers, wrapping as multiplies do.
void integer_powers(const Tensor& k, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < k.size(0); ++i)
    out[i] = k[i].pow(31);
}
// CHECK-LABEL: void integer_powers(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) { return a.pow(31); }, vb::at(k, i));

// The pairwise distance as a norm, its square, the free form; norm(1) is left to the
// batched ops.
void norms(const Tensor& a, const Tensor& b, Tensor& distances, Tensor& squares,
           Tensor& free_form, Tensor& taxicab) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < b.size(0); ++j) {
      distances[i][j] = (a[i] - b[j]).norm();
      squares[i][j] = (a[i] - b[j]).norm().pow(2);
      free_form[i][j] = norm(a[i] - b[j], 2);
      taxicab[i][j] = (a[i] - b[j]).norm(1);
    }
}
// CHECK-LABEL: void norms(
// CHECK: vb::at(distances, i)[j] = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& c, const auto& d) { return c - d; }, vb::at(a, i), vb::at(b, j)).norm();
// CHECK-NEXT: vb::at(squares, i)[j] = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& c, const auto& d) { return c - d; }, vb::at(a, i), vb::at(b, j)).norm().pow(2);
// CHECK-NEXT: vb::at(free_form, i)[j] = vb::norm(vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& c, const auto& d) { return c - d; }, vb::at(a, i), vb::at(b, j)), 2);
// CHECK-NEXT: vb::at(taxicab, i)[j] = (vb::at(a, i) - vb::at(b, j)).norm(1);

// x *= x five times on a clone: the kernel's parameter is x[i] itself.
void square_in_place(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor value = x[i].clone();
    for (int round = 0; round < 5; ++round)
      value *= value;
    out[i] = value;
  }
}
// CHECK-LABEL: void square_in_place(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](auto value) {
// CHECK-NEXT: for (int round = 0; round < 5; ++round)
// CHECK: value *= value;
// CHECK: }, vb::at(x, i));

int main() {
  Tensor x = (arange(24).reshape({6, 4}).to(kFloat) - 11.5) / 100.0 + 1.0;
  Tensor p32 = zeros({6, 4}), p7 = zeros({6, 4}), inverse = zeros({6, 4}),
         square = zeros({6, 4});
  powers(x, p32, p7, inverse, square);
  std::cout << p32 << "\n" << p7 << "\n" << inverse << "\n" << square << "\n";
  Tensor xd = x.to(kDouble);
  Tensor p32d = zeros({6, 4}, kDouble), p7d = zeros({6, 4}, kDouble),
         inversed = zeros({6, 4}, kDouble), squared = zeros({6, 4}, kDouble);
  powers(xd, p32d, p7d, inversed, squared);
  std::cout << p32d << "\n" << p7d << "\n" << inversed << "\n";

  Tensor k = arange(12).reshape({3, 4}) - 4;
  Tensor counts = zeros({3, 4}, kLong);
  integer_powers(k, counts);
  std::cout << counts << "\n";

  Tensor a = sin(arange(40).reshape({5, 8}).to(kFloat));
  Tensor b = cos(arange(24).reshape({3, 8}).to(kFloat));
  Tensor distances = zeros({5, 3}), squares = zeros({5, 3}), free_form = zeros({5, 3}),
         taxicab = zeros({5, 3});
  norms(a, b, distances, squares, free_form, taxicab);
  std::cout << distances << "\n" << squares << "\n" << free_form << "\n" << taxicab << "\n";

  Tensor out = zeros({6, 4});
  square_in_place(x, out);
  std::cout << out << "\n" << x << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
