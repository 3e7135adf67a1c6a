// pow with a scalar exponent (Note [pow strength reduction] in runtime/src/pointwise.cpp):
// the forms ATen uses (x * x, x * x * x, 1 / (x * x), sqrt, 1 / sqrt, 1 / x) bit for bit, the
// other small integer powers close to std::pow, the eager op's dtypes, on vectorised,
// threaded, strided and special-valued inputs. Expected values come from loops over the
// elements here.
#include "test_util.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

using namespace vmap;
using vmap_test::elements;
using vmap_test::error_of;
using vmap_test::shape;
using V = std::vector<int64_t>;

namespace {

// Inputs of every kind the kernels meet: a vector tail (37), a threaded run (100003), a
// transposed view, and special values (zeros of both signs, infinities, NaN, negatives).
template <class T>
std::vector<Tensor> inputs_of(Dtype dtype) {
  manual_seed(11);
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  Tensor special = tensor({0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-3, 1e3}).to(dtype);
  Tensor extremes = from_blob(std::vector<T>{inf, -inf, nan}.data(), {3}, dtype).clone();
  return {randn({37}, dtype) * 3,   randn({100003}, dtype),
          randn({23, 17}, dtype).t(), special,
          extremes,                 tensor(2.5).to(dtype)};
}

// Each element of pow(x, e) equals expected(element) exactly (`ulps` = 0), or within `ulps`
// units in the last place; NaN where expected is NaN. Inexact forms are not compared where
// the result nears overflow or the subnormals (rounding there is coarser than `ulps`).
template <class T>
void expect_elementwise(double e, const std::function<T(T)>& expected, int ulps,
                        const char* what) {
  constexpr Dtype dtype = std::is_same_v<T, float> ? kFloat32 : kFloat64;
  for (const Tensor& x : inputs_of<T>(dtype)) {
    const Tensor result = x.pow(e);
    ASSERT_EQ(result.dtype(), dtype) << what;
    ASSERT_EQ(shape(result), shape(x)) << what;
    const std::vector<T> in = elements<T>(x), out = elements<T>(result);
    for (size_t k = 0; k < in.size(); ++k) {
      const T want = expected(in[k]);
      using limits = std::numeric_limits<T>;
      const bool normal_range = std::abs(want) > 16 * limits::min() &&
                                std::abs(want) < limits::max() / 16;
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(out[k])) << what << " of " << in[k];
      } else if (ulps > 0 && !normal_range) {
        continue;
      } else if (ulps == 0) {
        EXPECT_EQ(out[k], want) << what << " of " << in[k];
        EXPECT_EQ(std::signbit(out[k]), std::signbit(want)) << what << " of " << in[k];
      } else {
        const T tolerance = ulps * limits::epsilon() * std::abs(want);
        EXPECT_NEAR(out[k], want, tolerance) << what << " of " << in[k];
      }
    }
  }
}

template <class T>
void expect_atens_forms() {
  expect_elementwise<T>(2, [](T x) { return x * x; }, 0, "pow 2");
  expect_elementwise<T>(2.0, [](T x) { return x * x; }, 0, "pow 2.0");
  expect_elementwise<T>(3, [](T x) { return x * x * x; }, 0, "pow 3");
  expect_elementwise<T>(-2, [](T x) { return T(1) / (x * x); }, 0, "pow -2");
  expect_elementwise<T>(0.5, [](T x) { return std::sqrt(x); }, 0, "pow 0.5");
  expect_elementwise<T>(-0.5, [](T x) { return T(1) / std::sqrt(x); }, 0, "pow -0.5");
  expect_elementwise<T>(-1, [](T x) { return T(1) / x; }, 0, "pow -1");
  expect_elementwise<T>(1, [](T x) { return x; }, 0, "pow 1");
  expect_elementwise<T>(0, [](T) { return T(1); }, 0, "pow 0");  // NaN too, as std::pow
  // Not reduced: std::pow itself.
  expect_elementwise<T>(2.5, [](T x) { return std::pow(x, T(2.5)); }, 0, "pow 2.5");
}

TEST(Pow, AtensFormsBitForBitFloat) { expect_atens_forms<float>(); }
TEST(Pow, AtensFormsBitForBitDouble) { expect_atens_forms<double>(); }

// Every other integer power up to power_form's bound takes repeated squaring: n - 1 roundings
// at most, so within |n| ULP of std::pow (and of SPEC's 1e-4 relative at the bound, 1024 for
// float).
template <class T>
void expect_integer_powers() {
  for (int e : {4, 5, 6, 7, 8, 9, 31, 32, 100, 1024, -3, -4, -5, -8, -31, -32, -1024})
    expect_elementwise<T>(e, [e](T x) { return std::pow(x, T(e)); }, std::max(8, std::abs(e)),
                          ("pow " + std::to_string(e)).c_str());
}

TEST(Pow, IntegerPowersWithinUlpsFloat) { expect_integer_powers<float>(); }
TEST(Pow, IntegerPowersWithinUlpsDouble) { expect_integer_powers<double>(); }

TEST(Pow, IntegerPowersPastTheBoundAreStdPow) {
  // float32 past 1024: std::pow itself (repeated squaring could stray past 1e-4 relative).
  const Tensor x = tensor({1.0001, 0.9999, -1.0, 1.0, 0.0});
  const std::vector<float> in = elements<float>(x), out = elements<float>(x.pow(1025));
  for (size_t k = 0; k < in.size(); ++k) EXPECT_EQ(out[k], std::pow(in[k], 1025.0f)) << in[k];
}

TEST(Pow, DtypesFollowTheEagerOp) {
  // Integer tensors stay integers for integer exponents, and wrap as multiplies do.
  const uint64_t big = 3037000500;  // squared, it wraps
  const Tensor ints = tensor({int64_t{-3}, int64_t{0}, int64_t{5}, static_cast<int64_t>(big)});
  EXPECT_EQ(ints.pow(2).dtype(), kInt64);
  EXPECT_EQ(elements<int64_t>(ints.pow(2)), V({9, 0, 25, static_cast<int64_t>(big * big)}));
  EXPECT_EQ(elements<int64_t>(ints.pow(0)), V({1, 1, 1, 1}));
  EXPECT_EQ(elements<int64_t>(ints.pow(1)), elements<int64_t>(ints));
  EXPECT_EQ(elements<int64_t>(ints.pow(3)),
            V({-27, 0, 125, static_cast<int64_t>(big * big * big)}));
  const Tensor int32s = tensor({-3, 4}, kInt32);
  EXPECT_EQ(int32s.pow(2).dtype(), kInt32);
  EXPECT_EQ(elements<int32_t>(int32s.pow(2)), std::vector<int32_t>({9, 16}));
  // A floating exponent makes the default float dtype; bools raised to an int are int64.
  EXPECT_EQ(int32s.pow(2.0).dtype(), kFloat32);
  EXPECT_EQ(elements<float>(tensor({4, 9}).pow(0.5)), std::vector<float>({2, 3}));
  EXPECT_EQ(elements<float>(tensor({4, 2}).pow(-1.0)), std::vector<float>({0.25f, 0.5f}));
  EXPECT_EQ(tensor({true, false}).pow(2).dtype(), kInt64);
  EXPECT_EQ(elements<int64_t>(tensor({true, false}).pow(2)), V({1, 0}));
  EXPECT_EQ(tensor({1.5}).to(kFloat64).pow(2).dtype(), kFloat64);
  // Negative integer powers of integers are refused, as before.
  EXPECT_NE(error_of([&] { ints.pow(-1); }).find("negative integer powers"), std::string::npos);
  EXPECT_NE(error_of([&] { ints.pow(-2); }).find("negative integer powers"), std::string::npos);
}

TEST(Pow, ResultIsANewTensor) {
  const Tensor x = tensor({1.5, 2.5});
  for (int e : {0, 1, 2}) {
    Tensor result = x.pow(e);
    result.fill_(7);
    EXPECT_EQ(elements<float>(x), std::vector<float>({1.5f, 2.5f})) << "pow " << e;
  }
}

TEST(Pow, OneElementExponentTensorIsAScalar) {
  const Tensor x = tensor({-1.5, 0.25, 3.0});
  const std::vector<float> xs = elements<float>(x);
  std::vector<float> squares, roots;
  for (float v : xs) squares.push_back(v * v);
  for (float v : xs) roots.push_back(std::sqrt(v));
  // 0-d exponents: promotion by category only (float64 and int64 exponents keep float32).
  EXPECT_EQ(x.pow(tensor(2)).dtype(), kFloat32);
  EXPECT_EQ(elements<float>(x.pow(tensor(2))), squares);
  EXPECT_EQ(x.pow(tensor(2.0).to(kFloat64)).dtype(), kFloat32);
  EXPECT_EQ(elements<float>(pow(x, tensor(2.0).to(kFloat64))), squares);
  // A [1, 1] exponent beside a [3] base broadcasts the result to [1, 3]; a [1] one does not.
  EXPECT_EQ(shape(x.pow(tensor({{0.5}}))), V({1, 3}));
  const std::vector<float> broadcast_roots = elements<float>(x.pow(tensor({{0.5}})));
  for (size_t k = 0; k < xs.size(); ++k)
    if (!std::isnan(roots[k])) EXPECT_EQ(broadcast_roots[k], roots[k]);
  EXPECT_EQ(shape(x.pow(tensor({2.0}))), V({3}));
  EXPECT_EQ(elements<float>(x.pow(tensor({2.0}))), squares);
  // An integer base with a 0-d float exponent computes in float32.
  EXPECT_EQ(tensor({2, 3}).pow(tensor(2.0)).dtype(), kFloat32);
  EXPECT_EQ(elements<float>(tensor({2, 3}).pow(tensor(2.0))), std::vector<float>({4, 9}));
  // Integer tensors to a negative 0-d power follow the tensor form (no error, as LibTorch).
  EXPECT_EQ(elements<int64_t>(tensor({2, 1, -1}).pow(tensor(-1))), V({0, 1, -1}));
}

}  // namespace
