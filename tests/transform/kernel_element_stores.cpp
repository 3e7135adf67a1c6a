// Element stores in a plain inner loop, in the forms a user writes first (issue 26): a
// triangular mask, a gather, a dot product per output. The per-example body is one scalar
// kernel that stores through vb::WritableElements, the example's own slot of the output
// (Note [Element stores] in rules/include/vmap/fused_scalar.hpp): bounds-checked and
// converted to the output's dtype as Tensor's `t[k] = v`; batched, each inner trip was
// one op over every example.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// A mask of any dtype: the bool converted as fill_ converts it. The plain loop's trips are
// independent: it runs as a level (Note [Plain loops as levels]), no element stores.
void mask_inner(Tensor& mask) {
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i)
    for (int64_t j = 0; j < mask.size(1); ++j)
      mask[i][j] = j >= i;
}
// CHECK-LABEL: void mask_inner(
// CHECK: vb::Level _b_level1(0, mask.size(1));  // line 16
// CHECK-NEXT: const vb::Value j = _b_level1.index();
// CHECK-NEXT: vb::at(mask, i)[j] = j >= i;  // line 17

// A gather over part of each row (the rest of out keeps its values), through an index
// computed per element, up to an index of 5: the `break` ties each trip to the ones before,
// so the loop stays a loop (Note [Plain loops as levels]) in a kernel that stores elements.
void gather_inner(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    for (int64_t k = 1; k < index.size(1); ++k) {
      if (index[i][k].item<int64_t>() == 5) break;
      out[i][k] = input[i][index[i][k].item<int64_t>()];
    }
}
// CHECK-LABEL: void gather_inner(
// CHECK: vb::fused_scalar([](long a, vb::Elements index, int64_t i, vb::Elements input, vb::WritableElements b) {
// CHECK-NEXT: for (int64_t k = 1; k < a; ++k) {  // line 30
// CHECK-NEXT: if (index[i][k].item<int64_t>() == 5) break;
// CHECK-NEXT: b[k] = input[i][index[i][k].item<int64_t>()];
// CHECK-NEXT: }
// CHECK-NEXT: }, index.size(1), index, i, input, vb::at(out, i));  // line 30

// The gather over the whole row but column 0: its trips are independent, so the loop is a
// level, and the gather one batched read.
void gather_level(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    for (int64_t k = 1; k < index.size(1); ++k)
      out[i][k] = input[i][index[i][k].item<int64_t>()];
}
// CHECK-LABEL: void gather_level(
// CHECK: vb::Level _b_level1(1, index.size(1));  // line 48
// CHECK-NEXT: const vb::Value k = _b_level1.index();
// CHECK-NEXT: vb::at(out, i)[k] = vb::at(input, i)[vb::at(index, i)[k].item<int64_t>()];  // line 49

// A dot product per output, the accumulator a C++ float, stored after the inner loop.
void linear_dot(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& y) {
#pragma vmap
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t o = 0; o < w.size(0); ++o) {
      float acc = b[o].item<float>();
      for (int64_t k = 0; k < w.size(1); ++k) acc += w[o][k].item<float>() * x[n][k].item<float>();
      y[n][o] = acc;
    }
}
// CHECK-LABEL: void linear_dot(
// The loop over o runs as a level; the one over k stays in the kernel of each (n, o).
// CHECK: vb::Level _b_level1(0, w.size(0));  // line {{[0-9]+}}
// CHECK-NEXT: const vb::Value o = _b_level1.index();
// CHECK-NEXT: vb::at(y, n)[o] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](float acc, long a, vb::Elements w, int64_t o, vb::Elements x, int64_t n) {
// CHECK-NEXT: for (int64_t k = 0; k < a; ++k) acc += w[o][k].item<float>() * x[n][k].item<float>();
// CHECK-NEXT: return acc;
// CHECK-NEXT: }, vb::over_lanes([](vb::Varying<float> acc, long a, vb::VaryingElements w, vb::Varying<int64_t> o, vb::VaryingElements x, vb::Varying<int64_t> n) __attribute__((always_inline)) {
// CHECK-NEXT: { const auto _b_view0 = w[o]; const auto _b_view1 = x[n]; for (int64_t k = 0; k < a; ++k) acc += _b_view0[k].item<float>() * _b_view1[k].item<float>(); }
// CHECK-NEXT: return acc;
// CHECK-NEXT: }), vb::at(b, o).item<float>(), w.size(1), w, o, x, n);  // lines 61-63

// The sum of products with the whole vector, a plain loop over `.item()` reads: a kernel
// that returns the sum (batched, each trip of the loop was one op).
void sum_prod_inner(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float s = 0;
    for (int64_t j = 0; j < x.size(0); ++j) s += x[i].item<float>() * x[j].item<float>();
    out[i] = s;
  }
}
// CHECK-LABEL: void sum_prod_inner(
// CHECK: vb::at(out, i) = vb::fused_scalar(vb::DeviceCode{{.*}}[](long a, vb::Elements x, int64_t i) {
// CHECK-NEXT: float s = 0;  // line 83
// CHECK-NEXT: for (int64_t j = 0; j < a; ++j) s += x[i].item<float>() * x[j].item<float>();  // line 84
// CHECK-NEXT: return s;
// CHECK-NEXT: }, vb::over_lanes([](long a, vb::VaryingElements x, vb::Varying<int64_t> i) __attribute__((always_inline)) {
// CHECK-NEXT: vb::Varying<float> s = 0;
// CHECK-NEXT: { const auto _b_view0 = x[i]; for (int64_t j = 0; j < a; ++j) s += _b_view0.item<float>() * x[j].item<float>(); }
// CHECK-NEXT: return s;
// CHECK-NEXT: }), x.size(0), x, i);  // lines 83-85

// A row rescaled in place reads the tensor it stores into: the batched ops' order (one
// element of every example at a time) is kept, no kernel that stores elements; each
// trip's value is a kernel of the two elements read before it.
void rescale(Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 1; j < x.size(1); ++j)
      x[i][j] = x[i][j].item<float>() * 2 + x[i][j - 1].item<float>();
}
// CHECK-LABEL: void rescale(
// CHECK: for (int64_t j = 1; j < x.size(1); ++j) {  // line 105
// CHECK-NEXT: vb::at(x, i)[j] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](float a, float b) {
// CHECK-NEXT: return a * 2 + b;
// CHECK-NEXT: }, vb::at(x, i)[j].item<float>(), vb::at(x, i)[j - 1].item<float>());  // line 106

// Stores into another example's column (its slot is not out[i]): kept batched, each
// example's store a scatter into its own column.
void transpose_store(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < x.size(1); ++j)
      out[j][i] = x[i][j].item<float>() + 1;
}
// CHECK-LABEL: void transpose_store(
// CHECK-NOT: fused_scalar
// CHECK: int main(

int main() {
  manual_seed(7);
  // The mask in float, double, int32 and bool, and into a transposed (strided) output.
  for (Dtype dtype : {kFloat, kDouble, kInt, kBool}) {
    Tensor mask = full({3, 5}, 7, dtype);
    mask_inner(mask);
    std::cout << mask << "\n";
  }
  Tensor strided = full({5, 3}, 7).t();
  mask_inner(strided);
  std::cout << strided << "\n";
  // The gather: float, int64 (bit for bit past 2^53) and double inputs, negative indices,
  // column 0 of out never written; a strided output.
  const Tensor index = randint(-6, 6, {4, 3});
  const int64_t big = (int64_t{1} << 53) + 1;
  for (Dtype dtype : {kFloat, kLong, kDouble}) {
    const Tensor input = (randn({4, 6}) * 100).to(dtype) + (dtype == kLong ? big : 0);
    Tensor out = full({4, 3}, -1, dtype);
    gather_inner(input, index, out);
    std::cout << (dtype == kLong ? out - big : out) << "\n";
    Tensor whole = full({4, 3}, -1, dtype);
    gather_level(input, index, whole);
    std::cout << (dtype == kLong ? whole - big : whole) << "\n";
  }
  // Strided outputs: float, and int64 of a float input (converted on store).
  Tensor gathered = zeros({3, 4}).t();
  gathered.fill_(-1);
  gather_inner(randn({4, 6}), index, gathered);
  std::cout << gathered << "\n";
  Tensor truncated = full({3, 4}, -1).t();
  gather_inner(randn({4, 6}) * 10, index, truncated);
  std::cout << truncated << "\n";
  // A float input gathered into a double output: converted on store.
  Tensor wide = zeros({4, 3}, kDouble);
  gather_inner(randn({4, 6}), index, wide);
  std::cout << wide << "\n";
  // An index out of range: the loop's own error.
  try {
    Tensor out = zeros({4, 3});
    gather_inner(randn({4, 6}), index + 6, out);
    std::cout << "no error\n";
  } catch (const vmap::Error& e) {
    std::cout << e.what() << "\n";
  }
  // A store out of range: out's rows shorter than index's.
  try {
    Tensor out = zeros({4, 2});
    gather_inner(randn({4, 6}), index, out);
    std::cout << "no error\n";
  } catch (const vmap::Error& e) {
    std::cout << e.what() << "\n";
  }
  // Linear into a transposed output and into a double one.
  const Tensor x = randn({3, 5});
  const Tensor w = randn({4, 5});
  const Tensor b = randn({4});
  Tensor y = zeros({4, 3}).t();
  linear_dot(x, w, b, y);
  std::cout << y << "\n";
  Tensor y64 = zeros({3, 4}, kDouble);
  linear_dot(x, w, b, y64);
  std::cout << y64 << "\n";
  Tensor sums = zeros({6});
  sum_prod_inner(randn({6}), sums);
  std::cout << sums << "\n";
  Tensor rows = randn({3, 4});
  rescale(rows);
  std::cout << rows << "\n";
  Tensor transposed = zeros({4, 3});
  transpose_store(rows, transposed);
  std::cout << transposed << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
