// Per-example control flow that is not one scalar kernel keeps the masked loops (Note
// [Control masks]; Note [Fused control flow] in transform/fuse.cpp says which regions fuse).
// Two forms that once kept them, a read at an index the loop computes and a read only some
// examples reach, are scalar kernels since the kernels read tensors element by element
// (Note [Element reads] in rules/include/vmap/fused_scalar.hpp); they stay here, beside
// the forms that still keep the masks.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Two results of one loop: the kernel returns one value.
void escape_and_radius(const Tensor& c, Tensor& counts, Tensor& radii) {
#pragma vmap
  for (int64_t i = 0; i < c.size(0); ++i) {
    float cr = c[i].item<float>();
    float zr = 0.0f;
    int k = 0;
    while (k < 20 && zr * zr < 4.0f) {
      zr = zr * zr + cr;
      ++k;
    }
    counts[i] = k;
    radii[i] = zr;
  }
}
// CHECK-LABEL: void escape_and_radius(
// CHECK-NOT: fused_scalar
// CHECK: { vb::Loop _b_loop0;  // line 18
// CHECK-NEXT: while (_b_loop0.next(vb::logical_and(k < 20, zr * zr < 4.0f))) {
// CHECK: vb::at(counts, i) = k;  // line 22
// CHECK-NEXT: vb::at(radii, i) = zr;  // line 23

// The loop reads the example's tensor at an index it computes: a kernel, bounds-checked.
void leading_positives(const Tensor& x, Tensor& lengths) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t k = 0;
    while (k < x.size(1) && x[i][k].item<float>() > 0.0f)
      ++k;
    lengths[i] = k;
  }
}
// CHECK-LABEL: void leading_positives(
// CHECK: vb::at(lengths, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](long a, vb::Elements x, int64_t i) {
// CHECK-NEXT: int64_t k = 0;  // line 37
// CHECK-NEXT: while (k < a && x[i][k].item<float>() > 0.0f)  // line 38
// CHECK-NEXT: ++k;
// CHECK-NEXT: return k;
// CHECK-NEXT: }, x.size(1), x, i);  // lines 37-40

float bucket_edge = 1.0f;  // The loop calls a function that reads a global (its `return`s
int bucket(float v) {      // run batched too).
  if (v < 0.0f)
    return 0;
  return v < bucket_edge ? 1 : 2;
}
void bucketed_steps(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float v = x[i].item<float>();
    int steps = 0;
    while (bucket(v) == 2) {
      v = v * 0.5f;
      ++steps;
    }
    out[i] = steps;
  }
}
// CHECK-LABEL: void bucketed_steps(
// CHECK-NOT: fused_scalar
// CHECK: { vb::Loop _b_loop0;  // line 62
// CHECK: vb::at(out, i) = steps;  // line 66

// A read the code reaches only for some examples (for the others its index is out of
// range): it cannot be computed for every example before a kernel, so the kernel reads it
// where it is written.
void guarded_read(const Tensor& x, const Tensor& positions, Tensor& out, Tensor& used) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t p = positions[i].item<int64_t>();
    float v = -1.0f;
    if (p < x.size(1))
      v = x[i][p].item<float>();
    out[i] = v;
    used[i] = p;
  }
}
// CHECK-LABEL: void guarded_read(
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t p, long a, vb::Elements x, int64_t i) {
// CHECK-NEXT: float v = -1.0f;  // line 81
// CHECK-NEXT: if (p < a)  // line 82
// CHECK-NEXT: v = x[i][p].item<float>();
// CHECK-NEXT: return v;
// CHECK-NEXT: }, p, x.size(1), x, i);  // lines 81-84
// CHECK-NEXT: vb::at(used, i) = p;  // line 85

int main() {
  Tensor c = tensor({-2.0f, -1.0f, 0.0f, 0.25f, 0.3f, 1.0f});
  Tensor counts = zeros({6}, kInt32), radii = zeros({6});
  escape_and_radius(c, counts, radii);
  std::cout << counts << "\n" << radii << "\n";

  Tensor x = tensor({1.0f, 2.0f, -1.0f, 3.0f, -2.0f, 5.0f, 6.0f, 7.0f, 0.5f, 0.0f, 1.0f, 1.0f})
                 .reshape({3, 4});
  Tensor lengths = zeros({3}, kInt64);
  leading_positives(x, lengths);
  std::cout << lengths << "\n";

  Tensor values = tensor({-1.0f, 0.5f, 3.0f, 40.0f});
  Tensor steps = zeros({4}, kInt32);
  bucketed_steps(values, steps);
  std::cout << steps << "\n";

  Tensor positions = tensor({int64_t{0}, 4, 3});
  Tensor read = zeros({3}), used = zeros({3}, kInt64);
  guarded_read(x, positions, read, used);
  std::cout << read << "\n" << used << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
