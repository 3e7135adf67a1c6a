// Element reads at indices the body computes, in the forms a user writes first (issue 26):
// a gather through a local index, pairwise distances as a plain inner loop over `.item()`
// reads, in float and double. A region that loops over elements, or reads them under
// per-example control flow, is one scalar kernel that reads the tensors through
// vb::Elements (Note [Element reads] in rules/include/vmap/fused_scalar.hpp): the tensor's
// own data, dtype and strides, bounds-checked as Tensor::operator[]. A plain loop over
// elements is one too: batched, each trip was ops (Note [Fused control flow]).
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

// A gather through a local: each (i, j) picks input[i][k] at its own k.
void gather_local(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < index.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < index.size(1); ++j) {
      int64_t k = index[i][j].item<int64_t>();
      out[i][j] = input[i][k];
    }
}
// Straight-line reads with no ops around them stay batched: each read is one gather of
// every example's element (a kernel would run one example at a time).
// CHECK-LABEL: void gather_local(
// CHECK: vb::Value k = vb::at(index, i)[j].item<int64_t>();
// CHECK-NEXT: vb::at(out, i)[j] = vb::at(input, i)[k];
// CHECK-NOT: fused_scalar

// Pairwise distances with a plain inner loop accumulating a C++ float.
void distances(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < b.size(0); ++j) {
      float s = 0;
      for (int64_t k = 0; k < a.size(1); ++k) {
        float d = a[i][k].item<float>() - b[j][k].item<float>();
        s += d * d;
      }
      out[i][j] = std::sqrt(s);
    }
}
// CHECK-LABEL: void distances(
// The loop steps through the elements with no control flow: batched, each trip was a few
// ops over every example; the kernel reads each element where it is.
// CHECK: vb::at(out, i)[j] = vb::fused_scalar({{.*}}[](long c, vb::Elements a, int64_t i, vb::Elements b, int64_t j) {
// CHECK-NEXT: float s = 0;  // line 36
// CHECK-NEXT: for (int64_t k = 0; k < c; ++k) {  // line 37
// CHECK-NEXT: float d = a[i][k].item<float>() - b[j][k].item<float>();
// CHECK-NEXT: s += d * d;
// CHECK-NEXT: }
// CHECK-NEXT: return std::sqrt(s);
// CHECK-NEXT: }, vb::over_lanes([](long c, vb::VaryingElements a, vb::Varying<int64_t> i, vb::VaryingElements b, vb::Varying<int64_t> j) __attribute__((always_inline)) {
// CHECK-NEXT: vb::Varying<float> s = 0;
// CHECK-NEXT: { const auto _b_view0 = a[i]; const auto _b_view1 = b[j]; for (int64_t k = 0; k < c; ++k) {
// CHECK-NEXT: vb::Varying<float> d = _b_view0[k].item<float>() - _b_view1[k].item<float>();
// CHECK-NEXT: s += d * d;
// CHECK-NEXT: } }
// CHECK-NEXT: return vb::sqrt(s);
// CHECK-NEXT: }), a.size(1), a, i, b, j);  // lines 36-41

// On doubles, differences past a cutoff skipped (per-example control flow), the square
// through a helper of this file: one kernel.
double squared(double d) { return d * d; }

void clipped_distances(const Tensor& a, const Tensor& b, double cutoff, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < b.size(0); ++j) {
      double s = 0;
      for (int64_t k = 0; k < a.size(1); ++k) {
        double d = a[i][k].item<double>() - b[j][k].item<double>();
        if (std::fabs(d) > cutoff)
          continue;
        s += squared(d);
      }
      out[i][j] = std::sqrt(s);
    }
}
// CHECK-LABEL: void clipped_distances(
// CHECK: vb::at(out, i)[j] = vb::fused_scalar([](long c, vb::Elements a, int64_t i, vb::Elements b, int64_t j, double cutoff) {
// CHECK-NEXT: double s = 0;  // line 72
// CHECK-NEXT: for (int64_t k = 0; k < c; ++k) {  // line 73
// CHECK-NEXT: double d = a[i][k].item<double>() - b[j][k].item<double>();
// CHECK-NEXT: if (std::fabs(d) > cutoff)
// CHECK-NEXT: continue;
// CHECK-NEXT: s += squared(d);
// CHECK-NEXT: }
// CHECK-NEXT: return std::sqrt(s);
// CHECK-NEXT: }, a.size(1), a, i, b, j, cutoff);  // lines 72-79

// Rows of a table at each example's id (the element returned has dims of its own), only
// for the examples kept (inside a per-example if: the others never run, their ids unread).
void embedding_rows(const Tensor& table, const Tensor& ids, const Tensor& keep, Tensor& out) {
#pragma vmap
  for (int64_t t = 0; t < ids.size(0); ++t) {
    if (keep[t].item<bool>()) {
      int64_t id = ids[t].item<int64_t>();
      out[t] = table[id];
    }
  }
}
// CHECK-LABEL: void embedding_rows(
// CHECK: { vb::Where _b_where0(vb::at(keep, t).item<bool>());
// CHECK: vb::Value id = vb::at(ids, t).item<int64_t>();
// CHECK-NEXT: vb::at(out, t) = vb::at(table, id);

int main() {
  manual_seed(5);
  // Gather: float, double and int64 inputs (the result keeps the input's dtype, bit for
  // bit), a transposed (strided) input, negative indices.
  const Tensor index = randint(-6, 6, {3, 4});
  for (Dtype dtype : {kFloat, kDouble, kLong}) {
    const Tensor input = (randn({3, 6}) * 100).to(dtype);
    Tensor out = zeros({3, 4}, dtype);
    gather_local(input, index, out);
    std::cout << out << "\n";
  }
  const Tensor wide = randn({6, 3});
  Tensor strided = zeros({3, 4});
  gather_local(wide.t(), index, strided);
  std::cout << strided << "\n";
  // An index out of range: the loop's own error, nothing read outside the input.
  try {
    Tensor out = zeros({3, 4});
    gather_local(randn({3, 6}), index + 6, out);
    std::cout << "no error\n";
  } catch (const vmap::Error& e) {
    std::cout << e.what() << "\n";
  }
  // Rows, int32, a strided table; ids of the examples not kept are out of range, unread;
  // a kept one past the table's end raises the loop's error.
  const Tensor table = randint(-50, 50, {4, 5}).to(kInt).t().contiguous().t();
  const Tensor keep = tensor({true, false, true, false});
  Tensor rows = full({4, 5}, 7, kInt);
  embedding_rows(table, tensor({int64_t{3}, int64_t{99}, int64_t{-4}, int64_t{-7}}), keep, rows);
  std::cout << rows << "\n";
  try {
    embedding_rows(table, tensor({int64_t{1}, int64_t{5}}), tensor({true, true}), rows);
    std::cout << "no error\n";
  } catch (const vmap::Error& e) {
    std::cout << e.what() << "\n";
  }
  // Distances, float and double, one input strided.
  const Tensor a = randn({5, 7});
  const Tensor b = randn({7, 4}).t();
  Tensor d = zeros({5, 4});
  distances(a, b, d);
  std::cout << d << "\n";
  Tensor dd = zeros({5, 4}, kDouble);
  clipped_distances(a.to(kDouble), b.to(kDouble), 1.5, dd);
  std::cout << dd << "\n";
  // Rows shorter than a's: the inner loop reads past b's row, the loop's error.
  try {
    clipped_distances(a.to(kDouble), randn({4, 3}, kDouble), 1.5, dd);
    std::cout << "no error\n";
  } catch (const vmap::Error& e) {
    std::cout << e.what() << "\n";
  }
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
