// The batched API (vmap/batched.hpp) as the rewritten code uses it: each test writes the
// per-example loop and its batched form side by side and compares them.
#include "rules_test_util.hpp"

#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace vmap {
namespace {

namespace vb = vmap::batched;
using test::message_of;
using test::Rng;

Tensor random(Rng& rng, std::vector<int64_t> sizes, Dtype dtype = kFloat32) {
  return test::random_tensor(rng, sizes, dtype);
}

void expect_equal(const Tensor& actual, const Tensor& expected) {
  test::expect_same(actual, expected, false);
}

TEST(BatchedApi, StoreThroughAtWritesEverySlot) {
  Rng rng(1);
  const Tensor input = random(rng, {5, 4});
  Tensor expected = zeros({5, 4}), out = zeros({5, 4});
  for (int64_t i = 0; i < input.size(0); ++i) expected[i] = input[i] * i + 1;
  {
    vb::Level level(0, input.size(0));
    const vb::Value i = level.index();
    vb::at(out, i) = vb::at(input, i) * i + 1;
  }
  expect_equal(out, expected);
}

TEST(BatchedApi, AtAnInductionVariableIsAView) {
  const Tensor x = arange(12, kFloat32).reshape({4, 3});
  vb::Level level(1, 3);
  const vb::Value row = vb::at(x, level.index());
  EXPECT_EQ(row.physical().raw_data(), x[1].raw_data());
  EXPECT_EQ(row.sizes(), (std::vector<int64_t>{3}));
  row.fill_(7.0);
  EXPECT_EQ(x[1].sum().item<float>(), 21.0f);
  EXPECT_EQ(x[0].sum().item<float>(), 3.0f);
}

TEST(BatchedApi, WhereMasksStoresAndRebinding) {
  Rng rng(3);
  const Tensor x = random(rng, {6, 3});
  Tensor expected = zeros({6, 3}), out = zeros({6, 3});
  Tensor expected_scale = zeros({6}), scale_out = zeros({6});
  for (int64_t i = 0; i < 6; ++i) {
    float scale = 1.0f;
    if (x[i].sum().item<float>() > 0) {
      expected[i] = x[i];
      scale = 2.0f;
    } else {
      expected[i] = -x[i];
    }
    expected_scale[i] = scale;
  }
  {
    vb::Level level(0, 6);
    const vb::Value i = level.index();
    vb::Value scale = 1.0f;
    {
      vb::Where branch(vb::at(x, i).sum().item<float>() > 0);
      vb::at(out, i) = vb::at(x, i);
      scale = 2.0f;
      branch.flip();
      vb::at(out, i) = -vb::at(x, i);
    }
    vb::at(scale_out, i) = scale;
  }
  expect_equal(out, expected);
  expect_equal(scale_out, expected_scale);
}

TEST(BatchedApi, SubscriptWithATensorIndexesDimZero) {
  Rng rng(13);
  const Tensor x = random(rng, {4, 5, 2});
  const Tensor index = test::random_index(rng, {4, 2, 3}, 5);
  const Tensor position = test::random_index(rng, {4}, 5);
  vb::Level level(0, 4);
  const vb::Value i = level.index();
  const vb::Value picked = vb::at(x, i)[vb::at(index, i)];
  const vb::Value one = vb::at(x, i)[vb::at(position, i)];
  for (int64_t k = 0; k < 4; ++k) {
    expect_equal(picked.physical()[k], x[k][index[k]]);
    expect_equal(one.physical()[k], x[k][position[k]]);
  }
}

TEST(BatchedApi, MaskedOutExamplesDoNotRaiseOnTheirIndices) {
  const Tensor table = arange(5, kFloat32);
  const Tensor index = tensor({1, 99, 3});  // 99 is only read where the guard fails
  Tensor out = zeros({3});
  {
    vb::Level level(0, 3);
    const vb::Value i = level.index();
    const vb::Value position = vb::at(index, i).item<int64_t>();
    vb::Where guard(position < 5);
    EXPECT_NO_THROW(vb::at(out, i) = vb::at(table, position));
  }
  expect_equal(out, tensor({1.0f, 0.0f, 3.0f}));
}

// out[i] = x[i][j] inside an inner vmap level: every j writes the same slot.
TEST(BatchedApi, WritingInnerExamplesIntoAnOuterSlotIsRefused) {
  const Tensor x = ones({3, 2});
  Tensor out = zeros({3});
  vb::Level outer(0, 3);
  const vb::Value i = outer.index();
  vb::Level inner(0, 2);
  const vb::Value j = inner.index();
  EXPECT_THROW(vb::at(out, i) = vb::at(vb::at(x, i), j) * j, Error);
}

TEST(BatchedApi, AccumulateIntoTensorsAndScalars) {
  Rng rng(4);
  const Tensor x = random(rng, {7, 3});
  Tensor sum_expected = zeros({3}), max_expected = full({3}, -100.0);
  Tensor product_expected = ones({3});
  float total_expected = 0.5f;
  int count_expected = 0;
  for (int64_t i = 0; i < 7; ++i) {
    sum_expected += x[i];
    max_expected = maximum(max_expected, x[i]);
    product_expected *= x[i];
    total_expected += x[i][0].item<float>();
    count_expected += x[i][1].item<float>();  // int += float truncates every time
  }
  Tensor sum = zeros({3}), max = full({3}, -100.0), product = ones({3});
  float total = 0.5f;
  int count = 0;
  {
    vb::Level level(0, 7);
    const vb::Value i = level.index();
    vb::accumulate(sum, vb::at(x, i), vb::Reduce::add);
    vb::accumulate(max, vb::at(x, i), vb::Reduce::max);
    vb::accumulate(product, vb::at(x, i), vb::Reduce::mul);
    vb::accumulate(total, vb::at(x, i)[0].item<float>(), vb::Reduce::add);
    vb::accumulate(count, vb::at(x, i)[1].item<float>(), vb::Reduce::add);
  }
  expect_equal(sum, sum_expected);
  expect_equal(max, max_expected);
  expect_equal(product, product_expected);
  EXPECT_EQ(total, total_expected);  // folded in loop order: bit-identical
  EXPECT_EQ(count, count_expected);
}

// std::fmax folds skip a NaN wherever it is (the accumulator's included), as C++'s loop of
// `m = std::fmax(m, v)` does; an assignment to a Tensor rebinds it, with the sum's dtype.
TEST(BatchedApi, FmaxFoldsAndAssignedTensorReductions) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = tensor({1.0f, nan, 3.0f, -2.0f});
  float top = nan;
  Tensor total = zeros({}, kInt64);
  const Tensor kept = total;
  {
    vb::Level level(0, 4);
    const vb::Value i = level.index();
    vb::accumulate(top, vb::at(x, i).item<float>(), vb::Reduce::fmax);
    vb::accumulate_rebinding(total, vb::at(x, i) * 0.5f, vb::Reduce::add);
  }
  EXPECT_EQ(top, 3.0f);
  EXPECT_TRUE(std::isnan(total.item<float>()));
  EXPECT_EQ(total.dtype(), kFloat32);
  EXPECT_EQ(kept.dtype(), kInt64);
  EXPECT_EQ(kept.item<int64_t>(), 0);
}

// Note [Unsigned per-example integers]: narrow unsigned types wrap as in C++; a size_t is
// held as its bits (1 - i at i == 2 is 2^64 - 1, int64's -1), compared and divided as uint64
// by the unsigned forms, and a max/min accumulator of size_t takes the unsigned order.
TEST(BatchedApi, UnsignedScalarsWrap) {
  Tensor wrapped = zeros({3}, kInt64), bits = zeros({3}, kInt64), below = zeros({3}, kBool),
         halves = zeros({3}, kInt64);
  {
    vb::Level level(0, 3);
    const vb::Value i = level.index();
    vb::at(wrapped, i) = vb::scalar_cast<uint32_t>(vb::Value(uint32_t{1}) - i);
    const vb::Value u = vb::scalar_cast<std::size_t>(vb::Value(std::size_t{1}) - i);
    vb::at(bits, i) = u;
    vb::at(below, i) = vb::unsigned_less(vb::Value(std::size_t{5}), u);
    vb::at(halves, i) = vb::unsigned_divide(u, vb::Value(std::size_t{2}));
  }
  expect_equal(wrapped, tensor({int64_t{1}, int64_t{0}, int64_t{4294967295}}));
  expect_equal(bits, tensor({int64_t{1}, int64_t{0}, int64_t{-1}}));
  expect_equal(below, tensor({false, false, true}));
  // (2^64 - 1) / 2 = 2^63 - 1
  expect_equal(halves, tensor({int64_t{0}, int64_t{0}, std::numeric_limits<int64_t>::max()}));
  std::size_t smallest = std::numeric_limits<std::size_t>::max(), largest = 0;
  {
    vb::Level level(0, 3);
    const vb::Value u = vb::scalar_cast<std::size_t>(vb::Value(std::size_t{1}) - level.index());
    vb::accumulate(smallest, u, vb::Reduce::min);
    vb::accumulate(largest, u, vb::Reduce::max);
  }
  EXPECT_EQ(smallest, 0u);
  EXPECT_EQ(largest, std::numeric_limits<std::size_t>::max());
}

// C++ scalar accumulators of per-example scalars over two levels (pairwise_sum_prod written
// with .item<T>()), 300 x 200 products: more than a block, so the product is pending. A
// double sum is reduced over the levels (equal to the loop's up to double rounding, also
// where the value does not vary along a level); a float one is folded in loop order, block
// by block, bit-identical to the loop; under a mask, in loop order over the examples that
// run.
TEST(BatchedApi, ScalarAccumulatorsOfEveryPair) {
  Rng rng(31);
  const Tensor x = test::random_tensor(rng, {300}, kFloat32);
  const Tensor y = test::random_tensor(rng, {200}, kFloat32);
  double sum_expected = 1.5, difference_expected = 0.0, x_only_expected = 0.0,
         positive_expected = 0.0;
  float float_expected = 0.25f, float_positive_expected = 0.0f;
  int64_t count_expected = 0;
  for (int64_t i = 0; i < 300; ++i)
    for (int64_t j = 0; j < 200; ++j) {
      const double product = x[i].item<double>() * y[j].item<double>();
      sum_expected += product;
      difference_expected -= product;
      x_only_expected += x[i].item<double>();
      const float float_product = x[i].item<float>() * y[j].item<float>();
      float_expected += float_product;
      if (product > 0) {
        positive_expected += product;
        float_positive_expected += float_product;
        count_expected += 1;
      }
    }
  double sum = 1.5, difference = 0.0, x_only = 0.0, positive = 0.0;
  float float_sum = 0.25f, float_positive = 0.0f;
  int64_t count = 0;
  {
    vb::Level level0(0, 300);
    const vb::Value i = level0.index();
    vb::Level level1(0, 200);
    const vb::Value j = level1.index();
    const vb::Value product = vb::at(x, i).item<double>() * vb::at(y, j).item<double>();
    const vb::Value float_product = vb::at(x, i).item<float>() * vb::at(y, j).item<float>();
    vb::accumulate(sum, product, vb::Reduce::add);
    vb::accumulate(difference, product, vb::Reduce::sub);
    vb::accumulate(x_only, vb::at(x, i).item<double>(), vb::Reduce::add);
    vb::accumulate(float_sum, float_product, vb::Reduce::add);
    vb::Where branch(product > 0);
    vb::accumulate(positive, product, vb::Reduce::add);
    vb::accumulate(float_positive, float_product, vb::Reduce::add);
    vb::accumulate(count, vb::Value(int64_t{1}), vb::Reduce::add);
  }
  EXPECT_NEAR(sum, sum_expected, 1e-9 * std::abs(sum_expected) + 1e-9);
  EXPECT_NEAR(difference, difference_expected, 1e-9 * std::abs(difference_expected) + 1e-9);
  EXPECT_NEAR(x_only, x_only_expected, 1e-9 * std::abs(x_only_expected) + 1e-9);
  EXPECT_EQ(float_sum, float_expected);  // folded in loop order: bit-identical
  EXPECT_EQ(positive, positive_expected);
  EXPECT_EQ(float_positive, float_positive_expected);
  EXPECT_EQ(count, count_expected);
}

TEST(BatchedApi, AccumulateUnderAMaskSkipsMaskedExamples) {
  const Tensor x = tensor({1.0f, -2.0f, 3.0f, -4.0f});
  Tensor positive = zeros({});
  {
    vb::Level level(0, 4);
    const vb::Value i = level.index();
    vb::Where branch(vb::at(x, i) > 0);
    vb::accumulate(positive, vb::at(x, i), vb::Reduce::add);
  }
  EXPECT_EQ(positive.item<float>(), 4.0f);
}

TEST(BatchedApi, ZeroTripLoopsLeaveEverythingAsItWas) {
  Tensor out = full({2}, 5.0);
  Tensor acc = full({}, 1.0);
  double scalar = 2.0;
  {
    vb::Level level(3, 3);
    const vb::Value i = level.index();
    vb::at(out, i) = 0.0;
    vb::accumulate(acc, vb::Value(out) * i, vb::Reduce::add);
    vb::accumulate(scalar, i, vb::Reduce::mul);
  }
  expect_equal(out, full({2}, 5.0));
  EXPECT_EQ(acc.item<float>(), 1.0f);
  EXPECT_EQ(scalar, 2.0);
}

TEST(BatchedApi, CppScalarsFollowCppArithmetic) {
  vb::Level level(-3, 4);
  const vb::Value i = level.index();  // int64 C++ scalar
  const vb::Value two = int32_t{2};
  const vb::Value half = i / two;  // truncates toward zero: -3 / 2 == -1
  const vb::Value rest = i % two;
  const vb::Value ratio = vb::scalar_cast<float>(i) / 2.0;       // float / double -> double
  const vb::Value root = vb::sqrt(vb::scalar_cast<int>(i * i));  // std::sqrt(int) -> double
  const vb::Value less = i < 1;
  EXPECT_TRUE(half.is_cpp_scalar());
  EXPECT_EQ(half.dtype(), kInt64);
  EXPECT_EQ(ratio.dtype(), kFloat64);
  EXPECT_EQ(root.dtype(), kFloat64);
  EXPECT_EQ(less.dtype(), kBool);
  for (int64_t k = 0; k < 7; ++k) {
    const int64_t value = k - 3;
    EXPECT_EQ(half.physical()[k].item<int64_t>(), value / 2);
    EXPECT_EQ(rest.physical()[k].item<int64_t>(), value % 2);
    EXPECT_EQ(ratio.physical()[k].item<double>(), static_cast<float>(value) / 2.0);
    EXPECT_EQ(root.physical()[k].item<double>(), std::sqrt(static_cast<int>(value * value)));
    EXPECT_EQ(less.physical()[k].item<bool>(), value < 1);
  }
  EXPECT_EQ(vb::sqrt(vb::scalar_cast<float>(i * i)).dtype(), kFloat32);  // float stays float
  EXPECT_EQ(vb::floor(vb::scalar_cast<double>(i) / 2.0).physical()[0].item<double>(), -2.0);
}

// Per example, vb::tensor of per-example numbers equals vmap::tensor of the same C++ numbers:
// values, nesting and dtype (Note [Per-example tensor literals]).
TEST(BatchedApi, TensorLiteralsOfPerExampleNumbers) {
  vb::Level level(-2, 3);
  const vb::Value i = level.index();                  // int64
  const vb::Value f = vb::scalar_cast<float>(i) / 4.0f;  // float
  const vb::Value d = vb::scalar_cast<double>(i) / 3.0;  // double
  const vb::Value n = vb::scalar_cast<int>(i);         // int
  const vb::Value ints = vb::tensor({n, 7, n * 2});
  const vb::Value mixed = vb::tensor({{f, 0.5f}, {d, 2.0}});
  const vb::Value promoted = vb::tensor({i, f});
  const vb::Value flags = vb::tensor({i < 0, true});
  const vb::Value as_double = vb::tensor({f, d}, kFloat64);
  for (int64_t k = 0; k < 5; ++k) {
    const int64_t ik = k - 2;
    const float fk = static_cast<float>(ik) / 4.0f;
    const double dk = static_cast<double>(ik) / 3.0;
    const int nk = static_cast<int>(ik);
    EXPECT_TRUE(equal(ints.physical()[k], tensor({nk, 7, nk * 2})));
    EXPECT_TRUE(equal(mixed.physical()[k], tensor({{fk, 0.5f}, {dk, 2.0}})));
    EXPECT_TRUE(equal(promoted.physical()[k], tensor({ik, fk})));
    EXPECT_TRUE(equal(flags.physical()[k], tensor({ik < 0, true})));
    EXPECT_TRUE(equal(as_double.physical()[k], tensor({fk, dk}, kFloat64)));
  }
  EXPECT_EQ(ints.dtype(), kInt64);
  EXPECT_EQ(mixed.dtype(), kFloat32);
  EXPECT_EQ(vb::tensor(f).dim(), 0);
  EXPECT_THROW(vb::tensor({{f, f}, {f}}), Error);
}

// The C library's fmax / fmin, called through pointers the compiler cannot see through: GCC
// takes std::fmax as commutative and may swap its operands (Note [fmax and fmin on ties]).
float (*volatile library_fmaxf)(float, float) = ::fmaxf;
float (*volatile library_fminf)(float, float) = ::fminf;
double (*volatile library_fmax)(double, double) = ::fmax;
double (*volatile library_fmin)(double, double) = ::fmin;
float library_fmax_of(float a, float b) { return library_fmaxf(a, b); }
float library_fmin_of(float a, float b) { return library_fminf(a, b); }
double library_fmax_of(double a, double b) { return library_fmax(a, b); }
double library_fmin_of(double a, double b) { return library_fmin(a, b); }

template <class T>
bool same_value(T got, T expected) {  // -0 differs from +0; any NaN is a NaN
  return std::isnan(got) ? std::isnan(expected)
                         : got == expected && std::signbit(got) == std::signbit(expected);
}

// std::max / std::min keep or drop a NaN by position and return the first of equal zeros;
// std::fmax / std::fmin skip a NaN and, on equal zeros, give what the C library gives; in
// every argument order, float and double.
template <class T>
void check_cpp_min_max() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> values = {T(-0.0), T(0.0), nan, T(1), T(-4)};
  std::vector<T> as, bs;
  for (T p : values)
    for (T q : values) {
      as.push_back(p);
      bs.push_back(q);
    }
  const Tensor a_values = tensor(as), b_values = tensor(bs);
  vb::Level level(0, static_cast<int64_t>(as.size()));
  const vb::Value i = level.index();
  const vb::Value a = vb::at(a_values, i).item<T>();
  const vb::Value b = vb::at(b_values, i).item<T>();
  const vb::Value results[] = {vb::max(a, b), vb::min(a, b), vb::fmax(a, b), vb::fmin(a, b)};
  for (std::size_t k = 0; k < as.size(); ++k) {
    const T expected[] = {std::max(as[k], bs[k]), std::min(as[k], bs[k]),
                          library_fmax_of(as[k], bs[k]), library_fmin_of(as[k], bs[k])};
    for (int f = 0; f < 4; ++f) {
      EXPECT_TRUE(results[f].is_cpp_scalar());
      const T got = results[f].physical()[static_cast<int64_t>(k)].template item<T>();
      EXPECT_TRUE(same_value(got, expected[f]))
          << "function " << f << " of " << as[k] << ", " << bs[k] << ": got " << got
          << ", expected " << expected[f];
    }
  }
}

TEST(BatchedApi, CppMinMaxTreatNaNAndZerosAsTheStandardLibraryDoes) {
  check_cpp_min_max<float>();
  check_cpp_min_max<double>();
}

// `m = std::fmax(m, v)` folded over the examples gives the loop's m with the library's
// calls, equal zeros of different sign and NaNs included, from either zero.
template <class T>
void check_fmax_folds() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> values = {T(-0.0), T(0.0), nan, T(-0.0), T(0.0), T(-0.0)};
  const Tensor x = tensor(values);
  for (const T start : {T(0.0), T(-0.0)}) {
    for (std::size_t prefix = 1; prefix <= values.size(); ++prefix) {
      T top = start, bottom = start, top_expected = start, bottom_expected = start;
      for (std::size_t k = 0; k < prefix; ++k) {
        top_expected = library_fmax_of(top_expected, values[k]);
        bottom_expected = library_fmin_of(bottom_expected, values[k]);
      }
      {
        vb::Level level(0, static_cast<int64_t>(prefix));
        const vb::Value i = level.index();
        vb::accumulate(top, vb::at(x, i).item<T>(), vb::Reduce::fmax);
        vb::accumulate(bottom, vb::at(x, i).item<T>(), vb::Reduce::fmin);
      }
      EXPECT_TRUE(same_value(top, top_expected)) << "fmax from " << start << " over " << prefix;
      EXPECT_TRUE(same_value(bottom, bottom_expected))
          << "fmin from " << start << " over " << prefix;
    }
  }
}

TEST(BatchedApi, FmaxFoldsPickZerosAsTheStandardLibraryDoes) {
  check_fmax_folds<float>();
  check_fmax_folds<double>();
}

TEST(BatchedApi, PromotionUsesPerExampleRanks) {
  Rng rng(5);
  const Tensor x = random(rng, {4, 3});         // float32 rows
  const Tensor w = random(rng, {4}, kFloat64);  // a float64 0-d per example
  const Tensor n = random(rng, {4, 3}, kInt32);
  const Tensor m = random(rng, {4}, kInt64);
  Tensor expected = zeros({4, 3}), out = zeros({4, 3});
  vb::Level level(0, 4);
  const vb::Value i = level.index();
  const vb::Value scaled = vb::at(x, i) * vb::at(w, i);   // float32 * float64-0d: float32
  const vb::Value shifted = vb::at(n, i) + vb::at(m, i);  // int32 + int64-0d: int32
  const vb::Value wrapped = vb::at(n, i) * 2.5;           // int32 * double: float32
  EXPECT_EQ(scaled.dtype(), kFloat32);
  EXPECT_EQ(shifted.dtype(), kInt32);
  EXPECT_EQ(wrapped.dtype(), kFloat32);
  for (int64_t k = 0; k < 4; ++k) {
    EXPECT_EQ((x[k] * w[k]).dtype(), kFloat32);
    expect_equal(scaled.physical()[k], x[k] * w[k]);
    expect_equal(shifted.physical()[k], n[k] + m[k]);
  }
}

TEST(BatchedApi, NestedLevelsNest) {
  Rng rng(6);
  const Tensor a = random(rng, {3, 2});
  const Tensor b = random(rng, {4, 2});
  Tensor expected = zeros({3, 4}), out = zeros({3, 4});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) expected[i][j] = (a[i] - b[j]).abs().sum();
  {
    vb::Level outer(0, 3);
    const vb::Value i = outer.index();
    vb::Level inner(0, 4);
    const vb::Value j = inner.index();
    vb::at(vb::at(out, i), j) = (vb::at(a, i) - vb::at(b, j)).abs().sum();
  }
  expect_equal(out, expected);
}

// A non-pointwise op whose operands vary along different levels: merged into one batch dim.
TEST(BatchedApi, OpsOnValuesOfDifferentLevels) {
  Rng rng(14);
  const Tensor a = random(rng, {3, 2, 4});
  const Tensor b = random(rng, {5, 4});
  Tensor expected = zeros({3, 5, 2}), out = zeros({3, 5, 2});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) expected[i][j] = a[i].matmul(b[j]);
  {
    vb::Level outer(0, 3);
    const vb::Value i = outer.index();
    const vb::Value rows = vb::at(a, i);
    vb::Level inner(0, 5);
    const vb::Value j = inner.index();
    vb::at(vb::at(out, i), j) = rows.matmul(vb::at(b, j));
  }
  expect_equal(out, expected);
}

TEST(BatchedApi, InnerReductionIntoAnOuterValue) {
  Rng rng(7);
  const Tensor x = random(rng, {3, 5});
  Tensor expected = zeros({3}), out = zeros({3});
  for (int64_t i = 0; i < 3; ++i) {
    Tensor row_max = full({}, -10.0);
    for (int64_t j = 0; j < 5; ++j) row_max = maximum(row_max, x[i][j]);
    expected[i] = row_max;
  }
  {
    vb::Level outer(0, 3);
    const vb::Value i = outer.index();
    vb::Value row_max = full({}, -10.0);
    {
      vb::Level inner(0, 5);
      const vb::Value j = inner.index();
      vb::accumulate(row_max, vb::at(vb::at(x, i), j), vb::Reduce::max);
    }
    vb::at(out, i) = row_max;
  }
  expect_equal(out, expected);
}

TEST(BatchedApi, InPlaceOpsOnPlacesWriteThrough) {
  Rng rng(8);
  const Tensor x = random(rng, {4, 3});
  Tensor expected = ones({4, 3}), out = ones({4, 3});
  for (int64_t i = 0; i < 4; ++i) {
    expected[i] += x[i];
    expected[i][0] = 0.0;
  }
  {
    vb::Level level(0, 4);
    const vb::Value i = level.index();
    vb::at(out, i) += vb::at(x, i);
    vb::at(out, i)[0] = 0.0;
  }
  expect_equal(out, expected);
}

TEST(BatchedApi, BodyLocalTensorsGetARowPerExample) {
  Rng rng(9);
  const Tensor x = random(rng, {4, 3});
  Tensor expected = zeros({4, 3}), out = zeros({4, 3});
  for (int64_t i = 0; i < 4; ++i) {
    Tensor local = zeros({3});
    local += x[i];
    local *= 2;
    expected[i] = local;
  }
  {
    vb::Level level(0, 4);
    const vb::Value i = level.index();
    vb::Value local = zeros({3});
    local += vb::at(x, i);
    local *= 2;
    vb::at(out, i) = local;
  }
  expect_equal(out, expected);
}

TEST(BatchedApi, LinearPerVectorIsOneGemmForAnyBatch) {
  Rng rng(10);
  const Tensor weight = random(rng, {8, 5});
  const Tensor bias = random(rng, {8});
  auto batched_cost = [&](int64_t batch) {
    const Tensor x = random(rng, {batch, 5});
    Tensor out = zeros({batch, 8});
    const int64_t before = detail::op_count();
    {
      vb::Level level(0, batch);
      const vb::Value i = level.index();
      vb::at(out, i) = vb::linear(vb::at(x, i), weight, bias);
    }
    const int64_t cost = detail::op_count() - before;
    for (int64_t k = 0; k < batch; ++k) expect_equal(out[k], linear(x[k], weight, bias));
    return cost;
  };
  EXPECT_EQ(batched_cost(2), batched_cost(64));
}

TEST(BatchedApi, PerExampleFallbackWarnsOnceAndStacks) {
  Rng rng(12);
  const Tensor x = random(rng, {3, 4});
  Tensor out = zeros({3});
  auto norm = [](std::vector<Tensor> args) { return args[0].pow(2).sum().sqrt(); };
  ::testing::internal::CaptureStderr();
  {
    vb::Level level(0, 3);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::per_example("my_norm", norm, {vb::at(x, i)});
    vb::at(out, i) = vb::per_example("my_norm", norm, {vb::at(x, i)});
  }
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find("'my_norm'"), std::string::npos);
  EXPECT_EQ(warnings.find("my_norm"), warnings.rfind("my_norm"));  // once
  for (int64_t k = 0; k < 3; ++k) expect_equal(out[k], norm({x[k]}));
}

TEST(BatchedApi, UnsafeOverlapDetectsPartialAliasing) {
  const Tensor buffer = zeros({4, 4});
  EXPECT_FALSE(vb::unsafe_overlap(buffer, buffer));  // the same view: safe
  EXPECT_FALSE(vb::unsafe_overlap(buffer.narrow(0, 0, 2), buffer.narrow(0, 2, 2)));
  EXPECT_TRUE(vb::unsafe_overlap(buffer.narrow(0, 0, 3), buffer.narrow(0, 1, 3)));
  EXPECT_TRUE(vb::unsafe_overlap(buffer, buffer.t()));
  EXPECT_FALSE(vb::unsafe_overlap(buffer, zeros({4, 4})));
}

// Every guard also answers for the output's own elements: an expanded view is written once
// per example as written (the last write wins), which one batched write cannot do.
TEST(BatchedApi, OverlapGuardsSeeAnOutputThatOverlapsItself) {
  const Tensor wide = zeros({1, 3}).expand({4, 3});
  const Tensor input = zeros({4, 3});
  EXPECT_TRUE(vb::internal_overlap(wide));
  EXPECT_TRUE(vb::internal_overlap(zeros({3, 1}).expand({3, 2}).t()));
  EXPECT_TRUE(vb::unsafe_overlap(wide, input));
  EXPECT_TRUE(vb::any_overlap(wide, input));
  EXPECT_FALSE(vb::internal_overlap(input));
  EXPECT_FALSE(vb::internal_overlap(input.t()));
  EXPECT_FALSE(vb::internal_overlap(zeros({4, 1}).expand({4, 1})));  // one element per row
  EXPECT_FALSE(vb::unsafe_overlap(input, wide));  // only the written one's own elements count
}

// `acc = maximum(acc, e)` rebinds acc to a new tensor, as in LibTorch: a copy of the old
// handle keeps the old values, and the dtype is ATen's promoted one; `acc += e` writes in
// place.
TEST(BatchedApi, RebindingAccumulatorLeavesTheOldHandle) {
  const Tensor x = arange(6).reshape({3, 2}).to(kFloat);
  Tensor max = full({2}, -1.0), kept = max;
  Tensor ints = zeros({2}, kInt32);
  {
    vb::Level level(0, 3);
    const vb::Value i = level.index();
    vb::accumulate_rebinding(max, vb::at(x, i), vb::Reduce::max);
    vb::accumulate_rebinding(ints, vb::at(x, i) + 0.5, vb::Reduce::max);
  }
  expect_equal(max, tensor({4.0f, 5.0f}));
  expect_equal(kept, full({2}, -1.0));
  EXPECT_EQ(ints.dtype(), kFloat32);
  expect_equal(ints, tensor({4.5f, 5.5f}));
}

TEST(BatchedApi, MetadataIsPerExample) {
  const Tensor x = zeros({5, 2, 3});
  vb::Level level(0, 5);
  const vb::Value row = vb::at(x, level.index());
  EXPECT_EQ(row.dim(), 2);
  EXPECT_EQ(row.size(-1), 3);
  EXPECT_EQ(row.numel(), 6);
  EXPECT_TRUE(row.is_contiguous());
  EXPECT_FALSE(row.t().is_contiguous());
  EXPECT_EQ(level.index().dim(), 0);
}

// Every op of the runtime's pointwise op list (Note [Pointwise op list]) through vb::Value's
// member and free function, per example and loop-invariant operands, against the loop run
// example by example: an op the list names but a layer lacks fails to compile or here.
using Example = std::function<Tensor(int64_t)>;
using Batched = std::function<vb::Value(const vb::Value&)>;

void expect_loop_matches(const char* op, int64_t examples, const Example& per_example,
                         const Batched& batched) {
  SCOPED_TRACE(op);
  std::vector<Tensor> results;
  try {
    for (int64_t i = 0; i < examples; ++i) results.push_back(per_example(i));
  } catch (const Error&) {  // the op refuses these dtypes: so must the batched form
    vb::Level level(0, examples);
    EXPECT_THROW(batched(level.index()), Error);
    return;
  }
  const Tensor expected = stack(results);
  Tensor out = zeros_like(expected);
  {
    vb::Level level(0, examples);
    const vb::Value i = level.index();
    vb::at(out, i) = batched(i);
  }
  test::expect_same(out, expected, false);
}

TEST(BatchedApi, EveryOpOfThePointwiseListMatchesTheLoop) {
  Rng rng(31);
  for (Dtype dtype : {kFloat32, kFloat64, kInt64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor x = random(rng, {4, 5}, dtype), y = random(rng, {4, 5}, dtype);
    const Tensor shared = random(rng, {5}, dtype);
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost)                                    \
    expect_loop_matches(#name, 4, [&](int64_t i) { return x[i].name(); },                 \
                        [&](const vb::Value& i) { return vb::at(x, i).name(); });         \
    expect_loop_matches(#name, 4, [&](int64_t i) { return name(x[i]); },                  \
                        [&](const vb::Value& i) { return vb::name(vb::at(x, i)); });
#define VMAP_BINARY_OP(name, Functor, domain)                                               \
    expect_loop_matches(#name, 4, [&](int64_t i) { return x[i].name(y[i]); },             \
                        [&](const vb::Value& i) { return vb::at(x, i).name(vb::at(y, i)); }); \
    expect_loop_matches(#name, 4, [&](int64_t i) { return name(x[i], shared); },          \
                        [&](const vb::Value& i) { return vb::name(vb::at(x, i), shared); }); \
    expect_loop_matches(#name, 4, [&](int64_t i) { return name(shared, x[i]); },          \
                        [&](const vb::Value& i) { return vb::name(shared, vb::at(x, i)); }); \
    expect_loop_matches(#name, 4, [&](int64_t i) { return name(x[i], 3); },               \
                        [&](const vb::Value& i) { return vb::name(vb::at(x, i), 3); });
#include <vmap/detail/pointwise_ops.def>
  }
}

}  // namespace
}  // namespace vmap

namespace vmap {
namespace {

// sort / topk return (values, indices) on Values as on Tensors: the values are a gather of
// the batched positions (Note [Sorting]); member and free forms, every dim, 0-d examples, and
// an operand shared by the examples of an inner level.
TEST(BatchedApi, SortingOpsMatchTheLoop) {
  Rng rng(37);
  for (Dtype dtype : {kFloat32, kInt64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor x = random(rng, {4, 3, 5}, dtype);
    expect_loop_matches("sort values", 4, [&](int64_t i) { return std::get<0>(x[i].sort()); },
                        [&](const vb::Value& i) { return std::get<0>(vb::at(x, i).sort()); });
    expect_loop_matches(
        "sort indices", 4, [&](int64_t i) { return std::get<1>(sort(x[i], 0, true)); },
        [&](const vb::Value& i) { return std::get<1>(vb::sort(vb::at(x, i), 0, true)); });
    expect_loop_matches("argsort", 4, [&](int64_t i) { return argsort(x[i], -2); },
                        [&](const vb::Value& i) { return vb::argsort(vb::at(x, i), -2); });
    expect_loop_matches(
        "topk", 4,
        [&](int64_t i) {
          auto [values, indices] = x[i].topk(2, 1, false);
          return values * 10 + indices.to(values.dtype());
        },
        [&](const vb::Value& i) {
          auto [values, indices] = vb::at(x, i).topk(2, 1, false);
          return values * 10 + indices.to(values.dtype());
        });
    expect_loop_matches(
        "topk of 0-d", 4, [&](int64_t i) { return std::get<0>(topk(x[i][0][0], 0)); },
        [&](const vb::Value& i) { return std::get<0>(vb::topk(vb::at(x, i)[0][0], 0)); });
  }
  const Tensor labels = tensor({{0, 2, 1}, {2, 2, 0}}).to(kInt64);
  expect_loop_matches("one_hot", 2, [&](int64_t i) { return one_hot(labels[i]); },
                      [&](const vb::Value& i) { return vb::one_hot(vb::at(labels, i)); });
  // topk of an inner-level value sorted against an outer one
  const Tensor rows = random(rng, {3, 6}), shifts = random(rng, {2, 6});
  Tensor expected = zeros({3, 2, 2}), out = zeros({3, 2, 2});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) expected[i][j] = std::get<0>((rows[i] + shifts[j]).topk(2));
  {
    vb::Level outer(0, 3);
    const vb::Value i = outer.index();
    vb::Level inner(0, 2);
    const vb::Value j = inner.index();
    vb::at(vb::at(out, i), j) = std::get<0>((vb::at(rows, i) + vb::at(shifts, j)).topk(2));
  }
  expect_equal(out, expected);
}

// LibTorch's sub_check: a subtraction with a bool tensor on either side raises the error the
// loop as written raises, in every batched form (eager, the casting pointwise node, a compiled
// fused kernel, `-=`, reductions), only where some example runs it; C++ bools subtract as ints.
TEST(BatchedApi, SubtractionWithABoolRaisesAsTheLoopDoes) {
  const Tensor x = tensor({1.0f, 2.0f, 3.0f}), m = tensor({true, false, true});
  const std::string one_bool = message_of([&] { (void)(x[0] - m[0]); });
  const std::string two_bools = message_of([&] { (void)(m[0] - m[0]); });
  const std::string in_place = message_of([&] { x.clone()[0] -= m[0]; });
  ASSERT_EQ(one_bool.rfind("sub: subtraction, the `-` operator, with a bool tensor", 0), 0u)
      << one_bool;
  ASSERT_EQ(two_bools.rfind("sub: subtraction, the `-` operator, with two bool tensors", 0), 0u)
      << two_bools;
  ASSERT_EQ(in_place.rfind("sub_: subtraction", 0), 0u) << in_place;
  EXPECT_EQ(message_of([&] { (void)(x - 1.5 - m); }), one_bool);
  EXPECT_EQ(message_of([&] { (void)(1.5f - m); }), one_bool);
  EXPECT_EQ(message_of([&] { (void)x.sub(m); }), one_bool);

  Tensor acc = zeros({}), rebound = zeros({});
  vb::Level level(0, 3);
  const vb::Value i = level.index();
  const vb::Value xi = vb::at(x, i), mi = vb::at(m, i);
  EXPECT_EQ(message_of([&] { (void)(xi - mi); }), one_bool);
  EXPECT_EQ(message_of([&] { (void)(mi - vb::Value(1)); }), one_bool);
  EXPECT_EQ(message_of([&] { (void)(vb::Value(1.5f) - mi); }), one_bool);
  EXPECT_EQ(message_of([&] { (void)xi.sub(mi); }), one_bool);
  EXPECT_EQ(message_of([&] { (void)(mi - mi); }), two_bools);
  EXPECT_EQ(message_of([&] { (void)(xi - vb::Value(true)); }), one_bool);
  EXPECT_EQ(message_of([&] {
              vb::Value t = xi * 2.0f;
              t -= mi;
            }),
            in_place);
  EXPECT_EQ(message_of([&] {
              vb::Value t = xi * 2.0f;
              t = vb::fused([](const auto& a, const auto& b) { return a - b; }, t, mi);
            }),
            one_bool);
  EXPECT_EQ(message_of([&] {
              const vb::Value r =
                  vb::fused([](const auto& a) { return (a > 1.0f) - (a < 3.0f); }, xi);
              (void)r.physical();  // computed where it is read, as a store reads it
            }),
            two_bools);
  EXPECT_EQ(message_of([&] { vb::accumulate(acc, mi, vb::Reduce::sub); }),
            "sub_" + one_bool.substr(3));
  EXPECT_EQ(message_of([&] { vb::accumulate_rebinding(rebound, mi, vb::Reduce::sub); }), one_bool);
  EXPECT_EQ(acc.item<float>(), 0.0f);
  {
    vb::Where none(xi > 10.0f);  // no example subtracts
    EXPECT_EQ(message_of([&] { (void)(xi - mi); }), "no error");
    EXPECT_EQ(message_of([&] { vb::accumulate(acc, mi, vb::Reduce::sub); }), "no error");
  }
  const vb::Value p = mi.item<bool>();
  const vb::Value difference = p - vb::Value(true);  // C++: int
  EXPECT_EQ(difference.dtype(), kInt32);
  EXPECT_EQ(difference.physical()[1].item<int32_t>(), -1);
}

}  // namespace
}  // namespace vmap
