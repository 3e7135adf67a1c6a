// A Scalar argument of an op that differs per example (an exponent, an alpha, the arms of
// where) keeps LibTorch's meaning for one number (a fifth hostile hunt of issue 31): pow of
// an integer tensor to a negative integer exponent raises, as pow(Tensor, Scalar) does (the
// batched pow, ATen's of two tensors, computed 0; and a sixth hunt: of one number the same
// for every example, integer reciprocals); add/sub of integer tensors with a
// floating alpha raises (the batched a + b * alpha computed a float); where(mask, d, 0.0)
// of two numbers is float32, the default dtype, as where(Tensor, Scalar, Scalar) is (the
// batched where of a double was float64). An index out of range raises the error of the op
// the loop calls, with its value (the batched select, narrow and store raised "argument 2 is
// not an integer"; past the end of a range from a negative index, narrow's), a number an int
// tensor cannot hold that of masked_fill or full_like (it named fill_), and a range from a
// negative index past 0 reads rows from the end, then from the start (it raised). None
// raises where no example runs it. The printed
// program's results are compared with the loop's as written.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
using namespace vmap;

void powers(const Tensor& x, const Tensor& exponents, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const int64_t e = exponents[i].item<int64_t>();
    if (e < 10) out[i] = x[i].pow(e);
  }
}
// CHECK-LABEL: void powers(
// CHECK: vb::at(out, i) = vb::at(x, i).pow(e);

void invariant_powers(const Tensor& x, int64_t exponent, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = (x[i] * 2 + 1).pow(exponent) + 1;
    if (x[i].sum().item<int>() > 1000) out[i] = x[i].pow(-1);  // no example runs it
  }
}
// CHECK-LABEL: void invariant_powers(

void scaled_sums(const Tensor& x, const Tensor& scales, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const double alpha = scales[i].item<double>();
    if (alpha < 100.0) out[i] = add(x[i], x[i], alpha).sum() + x[i].sub(x[i], alpha).sum();
  }
}
// CHECK-LABEL: void scaled_sums(

void picks(const Tensor& mask, const Tensor& values, Tensor& out, Tensor& is_float) {
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i) {
    const double d = values[i].item<double>();
    const int64_t k = static_cast<int64_t>(d);
    const Tensor a = where(mask[i], d, 0.0), b = where(mask[i], k, d);
    out[i] = a + b;
    is_float[i] = (a.dtype() == kFloat) && (b.dtype() == kFloat);
  }
}
// CHECK-LABEL: void picks(
// CHECK: vb::where(vb::at(mask, i), d, 0.0)

void picked(const Tensor& x, const Tensor& picks, Tensor& out, Tensor& windows, Tensor& marks) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const int64_t k = picks[i].item<int64_t>();
    (void)k;  // a statement that uses nothing (it was refused as a cast of a per-example value)
    out[i] = x[i][k];
    windows[i] = x[i].narrow(0, k, 2).sum();
    marks[i][k] = 1.0f;
  }
}
// CHECK-LABEL: void picked(
// CHECK: vb::at(out, i) = vb::at(x, i)[k];

void filled(const Tensor& x, const Tensor& values, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const float v = values[i].item<float>();
    out[i] = x[i].masked_fill(x[i] > 1, v).sum() + full_like(x[i], v).sum();
  }
}
// CHECK-LABEL: void filled(

// The loop's range crosses 0: x[-2], x[-1], x[0], x[1], rows 2, 3, 0, 1 (a gather, not one
// view); past the end, select's error at the first example past it.
void from_negative(const Tensor& x, int64_t first, int64_t end, Tensor& sums) {
  Tensor total = zeros({}, kInt64);
#pragma vmap
  for (int64_t i = first; i < end; ++i) total += x[i].sum() * (i + 3);
  sums[0] = total;
}
// CHECK-LABEL: void from_negative(

template <class Run>
void report(const Run& run) {
  try {
    run();
  } catch (const Error& e) {
    // The rewrite's message names the loop's line first ("file.cpp:19: "): compare the rest.
    std::string what = e.what();
    if (const std::size_t at = what.find(".cpp:"); at != std::string::npos)
      what = what.substr(what.find(": ", at) + 2);
    std::cout << "error: " << what << "\n";
  }
}

int main() {
  const Tensor xi = tensor({{2, 3}, {-2, 5}, {4, 1}}).to(kInt);
  // No negative exponent among the examples that run: computed; one: LibTorch's error.
  for (const int64_t skipped : {-1, 1}) {
    report([&] {
      Tensor out = zeros({3, 2}, kInt);
      powers(xi, tensor({2, skipped + 10, 1}), out);
      std::cout << out << "\n";
      powers(xi, tensor({2, skipped, 1}), out);
      std::cout << out << "\n";
    });
  }
  // The same for every example: raised by every example where negative (the batched pow of
  // a number computed integer reciprocals).
  for (const int64_t exponent : {2, -1})
    report([&] {
      Tensor out = zeros({3, 2}, kInt);
      invariant_powers(xi, exponent, out);
      std::cout << out << "\n";
    });
  // An integral alpha: computed; a floating one raises; under a mask no example runs, not.
  report([&] {
    Tensor out = zeros({3}, kInt64);
    scaled_sums(xi, tensor({1000.0, 1000.0, 1000.0}, kDouble), out);
    std::cout << out << "\n";
    scaled_sums(xi.to(kFloat), tensor({0.5, 2.0, -1.25}, kDouble), out);
    std::cout << out << "\n";
    scaled_sums(xi, tensor({0.5, 2.0, 1000.0}, kDouble), out);
    std::cout << out << "\n";
  });
  // In range: picked; out of range below, then above: select's error as written.
  const Tensor x = arange(16, TensorOptions(kFloat)).reshape({4, 4});
  for (const Tensor& picks : {tensor({-2, 2, 0, 1}), tensor({1, 2, -5, 0}), tensor({1, 4, 0, 0})})
    report([&] {
      Tensor out = zeros({4}), windows = zeros({4}), marks = zeros({4, 4});
      picked(x, picks, out, windows, marks);
      std::cout << out << windows << marks << "\n";
    });
  // A number an int tensor cannot hold: the error of the op the loop calls.
  for (const Tensor& values : {tensor({1.0f, 2.0f, 3.0f}), tensor({1.0f, 1e20f, 3.0f})})
    report([&] {
      Tensor sums = zeros({3}, kInt64);
      filled(xi, values, sums);
      std::cout << sums << "\n";
    });
  for (const auto& [first, end] : {std::pair{-2, 2}, std::pair{-3, 0}, std::pair{-5, 1},
                                   std::pair{1, 4}})
    report([&] {
      Tensor sums = zeros({1}, kInt64);
      from_negative(tensor({{1, 2}, {3, 4}, {5, 6}}), first, end, sums);
      std::cout << sums << "\n";
    });
  Tensor out = zeros({3}, kDouble), is_float = zeros({3}, kBool);
  picks(tensor({true, false, true}), tensor({1e39, 0.5, -2.75}, kDouble), out, is_float);
  std::cout << out << is_float << "\n";
}

// CHECK: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
