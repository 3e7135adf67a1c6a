// Pointwise ops: broadcasting, promotion, every dtype, non-contiguous inputs, in-place rules.
// Expected values come from naive loops in the test or are written out by hand.
#include "test_util.hpp"

#include <cmath>
#include <limits>

using namespace vmap;
using vmap_test::elements;
using vmap_test::error_of;
using vmap_test::shape;
using V = std::vector<int64_t>;
using F = std::vector<float>;

namespace {

TEST(Pointwise, BroadcastingShapes) {
  Tensor a = tensor({{1.0, 2.0, 3.0}});           // [1, 3]
  Tensor b = tensor({{10.0}, {20.0}});            // [2, 1]
  Tensor c = a + b;
  EXPECT_EQ(shape(c), V({2, 3}));
  EXPECT_EQ(elements<float>(c), F({11, 12, 13, 21, 22, 23}));
  EXPECT_EQ(shape(zeros({4, 1, 3}) * zeros({5, 1})), V({4, 5, 3}));
  EXPECT_EQ(shape(zeros({0, 3}) + zeros({3})), V({0, 3}));
  EXPECT_EQ(shape(zeros({2, 0}) + zeros({1})), V({2, 0}));
  EXPECT_EQ(shape(tensor(2.0) * tensor(3.0)), V({}));
  EXPECT_FLOAT_EQ((tensor(2.0) * tensor(3.0)).item<float>(), 6.0f);
  EXPECT_EQ(error_of([] { zeros({2, 3}) + zeros({4}); }),
            "add: the size of tensor a (3) must match the size of tensor b (4) at non-singleton "
            "dimension 1; shapes [2, 3] and [4]");
}

TEST(Pointwise, NonContiguousInputsMatchNaiveLoop) {
  manual_seed(3);
  Tensor a = randn({37, 29});
  Tensor b = randn({29, 37}).t();  // transposed
  Tensor c = randn({37, 58}).narrow(1, 3, 29);  // row gaps
  Tensor out = a * b - c / 2.0;
  std::vector<float> av = elements<float>(a), bv = elements<float>(b), cv = elements<float>(c);
  std::vector<float> ov = elements<float>(out);
  ASSERT_EQ(ov.size(), av.size());
  for (size_t k = 0; k < ov.size(); ++k) EXPECT_FLOAT_EQ(ov[k], av[k] * bv[k] - cv[k] / 2.0f);
}

TEST(Pointwise, LargeThreadedAndVectorised) {
  const int64_t n = 1 << 20;
  Tensor a = arange(n).to(kFloat32);
  Tensor b = full({n}, 0.5);
  Tensor c = a * b + 1;
  Tensor d = maximum(a, full({1}, 1000.0));
  std::vector<float> cv = elements<float>(c), dv = elements<float>(d);
  for (int64_t k = 0; k < n; k += 997) {
    EXPECT_EQ(cv[k], static_cast<float>(k) * 0.5f + 1.0f);
    EXPECT_EQ(dv[k], std::max(static_cast<float>(k), 1000.0f));
  }
  EXPECT_EQ(cv[n - 1], static_cast<float>(n - 1) * 0.5f + 1.0f);
}

// Integer arithmetic wraps on every path: the SIMD kernels' vectors, their scalar tails
// (runs of every length up to three vectors) and the strided engine.
TEST(Pointwise, IntegerOverflowWrapsInVectorsAndTails) {
  constexpr int32_t big = std::numeric_limits<int32_t>::max();
  for (int64_t count = 1; count <= 50; ++count) {
    SCOPED_TRACE(count);
    const Tensor x = full({count}, big, kInt32), one = ones({count}, kInt32);
    const Tensor sum = x + one, product = x * 2, difference = -x - 2;
    for (int64_t k = 0; k < count; ++k) {
      EXPECT_EQ(sum[k].item<int32_t>(), std::numeric_limits<int32_t>::min());
      EXPECT_EQ(product[k].item<int32_t>(), -2);
      EXPECT_EQ(difference[k].item<int32_t>(), big);
    }
  }
}

TEST(Pointwise, EveryDtypeAdds) {
  EXPECT_EQ(elements<float>(tensor({1.5, 2.5}) + tensor({1.0, 1.0})), F({2.5, 3.5}));
  EXPECT_EQ(elements<double>(tensor({1.5}, kFloat64) + 1), std::vector<double>({2.5}));
  EXPECT_EQ(elements<int32_t>(tensor({1, 2}, kInt32) + tensor({3, 4}, kInt32)),
            std::vector<int32_t>({4, 6}));
  EXPECT_EQ(elements<int64_t>(tensor({1, 2}) * 3), V({3, 6}));
  EXPECT_EQ(elements<bool>(tensor({true, false}) + tensor({false, false})),
            std::vector<bool>({true, false}));
  // Integer overflow wraps (no UB).
  const int32_t big = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(elements<int32_t>(tensor({big}, kInt32) + tensor({1}, kInt32))[0],
            std::numeric_limits<int32_t>::min());
}

TEST(Pointwise, PromotionTiers) {
  // float32 * float64-0d stays float32; int32 + int64-0d stays int32; int * 2.5 -> float32.
  EXPECT_EQ((zeros({2}) * tensor(2.0, kFloat64)).dtype(), kFloat32);
  EXPECT_EQ((zeros({2}, kInt32) + tensor(int64_t{5})).dtype(), kInt32);
  EXPECT_EQ((zeros({2}, kInt32) * 2.5).dtype(), kFloat32);
  EXPECT_EQ((zeros({2}, kInt32) + tensor(2.0, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ((zeros({2}, kInt32) + zeros({2}, kInt64)).dtype(), kInt64);
  EXPECT_EQ((zeros({2}, kFloat32) + zeros({2}, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ((zeros({2}, kBool) + 1).dtype(), kInt64);
  EXPECT_EQ((zeros({2}, kBool) + zeros({2}, kInt32)).dtype(), kInt32);
  EXPECT_EQ((zeros({2}, kFloat64) * 2).dtype(), kFloat64);
  EXPECT_EQ((2.5 * zeros({2}, kInt64)).dtype(), kFloat32);
  EXPECT_EQ((tensor(1) + tensor(1.5)).dtype(), kFloat32);  // both 0-d: ordinary promotion
  EXPECT_EQ((zeros({2}, kInt32) / 2).dtype(), kFloat32);  // true division
  EXPECT_EQ((zeros({2}, kInt32) < 2.5).dtype(), kBool);
  EXPECT_EQ(detail::result_type({detail::tensor_operand(kInt32, 1),
                                 detail::number_operand(kFloat64)}),
            kFloat32);
}

TEST(Pointwise, DivisionIsTrueDivision) {
  EXPECT_EQ(elements<float>(tensor({7, -7}) / 2), F({3.5, -3.5}));
  EXPECT_EQ(elements<float>(1 / tensor({2.0, 4.0})), F({0.5, 0.25}));
  EXPECT_EQ(elements<float>(10 - tensor({1.0, 4.0})), F({9, 6}));
  Tensor q = detail::div_trunc(tensor({7, -7, 7}), tensor({2, 2, -2}));
  EXPECT_EQ(elements<int64_t>(q), V({3, -3, -3}));
  Tensor r = detail::remainder_trunc(tensor({7, -7, 7}), tensor({2, 2, -2}));
  EXPECT_EQ(elements<int64_t>(r), V({1, -1, 1}));
  EXPECT_EQ(elements<float>(detail::div_trunc(tensor({7.0}), tensor({2.0}))), F({3.5}));
  EXPECT_NE(error_of([] { detail::div_trunc(tensor({1}), tensor({0})); }).find("division by zero"),
            std::string::npos);
  EXPECT_NE(error_of([] { detail::remainder_trunc(tensor({1}), tensor(0)); }).find("by zero"),
            std::string::npos);
  // No dividend, no division: `k % x.size(0)` over a batch of no examples raises nothing.
  const Tensor none = zeros({0, 3}, kInt64);
  EXPECT_EQ(detail::remainder_trunc(none, tensor(int64_t{0})).sizes(), none.sizes());
  EXPECT_EQ(detail::div_trunc(none, tensor(int64_t{0})).sizes(), none.sizes());
}

TEST(Pointwise, UnaryMath) {
  Tensor x = tensor({0.25, 1.0, 4.0});
  std::vector<float> xs = {0.25f, 1.0f, 4.0f};
  auto check = [&](const Tensor& result, float (*f)(float)) {
    std::vector<float> got = elements<float>(result);
    for (size_t k = 0; k < xs.size(); ++k) EXPECT_NEAR(got[k], f(xs[k]), 1e-6f * (1 + std::abs(f(xs[k]))));
  };
  check(x.sqrt(), [](float v) { return std::sqrt(v); });
  check(exp(x), [](float v) { return std::exp(v); });
  check(log(x), [](float v) { return std::log(v); });
  check(sin(x), [](float v) { return std::sin(v); });
  check(cos(x), [](float v) { return std::cos(v); });
  check(x.tanh(), [](float v) { return std::tanh(v); });
  check(sigmoid(x), [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
  EXPECT_EQ(sqrt(tensor({4, 9})).dtype(), kFloat32);  // ints compute in float32
  EXPECT_EQ(elements<float>(sqrt(tensor({4, 9}))), F({2, 3}));
  EXPECT_EQ(elements<int64_t>(abs(tensor({-3, 4}))), V({3, 4}));
  EXPECT_EQ(elements<int64_t>(-tensor({-3, 4})), V({3, -4}));
  EXPECT_EQ(elements<float>(relu(tensor({-1.0, 2.0}))), F({0, 2}));
  EXPECT_EQ(elements<int64_t>(sign(tensor({-5, 0, 7}))), V({-1, 0, 1}));
  EXPECT_NE(error_of([] { -tensor({true}); }).find("bool"), std::string::npos);
  // Subtraction refuses a bool operand on either side, in place too (LibTorch's sub_check).
  Tensor floats = tensor({1.0f, 2.0f}), mask = tensor({true, false});
  EXPECT_NE(error_of([&] { floats -= mask; }).find("with a bool tensor"), std::string::npos);
  EXPECT_NE(error_of([&] { floats -= true; }).find("with a bool tensor"), std::string::npos);
  EXPECT_NE(error_of([&] { mask -= mask; }).find("two bool tensors"), std::string::npos);
  EXPECT_NE(error_of([&] { mask -= 1; }).find("with a bool tensor"), std::string::npos);
  EXPECT_EQ(error_of([&] { (void)(floats - mask); }).rfind("sub: subtraction", 0), 0u);
  EXPECT_EQ(error_of([&] { (void)(mask - floats); }).rfind("sub: subtraction", 0), 0u);
  EXPECT_EQ(error_of([&] { (void)(1.5f - mask); }).rfind("sub: subtraction", 0), 0u);
  EXPECT_EQ(error_of([&] { (void)floats.sub(mask); }).rfind("sub: subtraction", 0), 0u);
  EXPECT_NE(error_of([&] { (void)sub(mask, mask); }).find("two bool tensors"), std::string::npos);
  EXPECT_EQ(elements<float>(floats), F({1, 2}));
}

TEST(Pointwise, PowClampMaximum) {
  EXPECT_EQ(elements<int64_t>(pow(tensor({2, 3}), 3)), V({8, 27}));
  EXPECT_EQ(elements<float>(tensor({2.0, 3.0}).pow(2)), F({4, 9}));
  EXPECT_EQ(elements<float>(pow(2, tensor({1.0, 3.0}))), F({2, 8}));
  EXPECT_EQ(elements<int64_t>(pow(tensor({2, 1, -1}), tensor({-1, -2, -3}))), V({0, 1, -1}));
  EXPECT_NE(error_of([] { pow(tensor({2}), -1); }).find("negative integer powers"), std::string::npos);
  EXPECT_EQ(elements<float>(clamp(tensor({-2.0, 0.5, 3.0}), 0, 1)), F({0, 0.5, 1}));
  EXPECT_EQ(elements<int64_t>(tensor({-2, 5}).clamp(0)), V({0, 5}));
  EXPECT_EQ(elements<int64_t>(tensor({-2, 5}).clamp(std::nullopt, 1)), V({-2, 1}));
  EXPECT_EQ(clamp(tensor({1, 2}), 0.5).dtype(), kFloat32);
  EXPECT_EQ(elements<float>(clamp(tensor({-2.0, 5.0}), tensor({0.0, 0.0}), tensor({1.0, 3.0}))),
            F({0, 3}));
  EXPECT_NE(error_of([] { clamp(tensor({1.0})); }).find("at least one"), std::string::npos);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> m = elements<float>(maximum(tensor({1.0f, nan, 3.0f}), tensor({2.0f, 0.0f, nan})));
  EXPECT_EQ(m[0], 2.0f);
  EXPECT_TRUE(std::isnan(m[1]));
  EXPECT_TRUE(std::isnan(m[2]));
  EXPECT_EQ(elements<int32_t>(minimum(tensor({1, 5}, kInt32), tensor({3, 2}, kInt32))),
            std::vector<int32_t>({1, 2}));
}

TEST(Pointwise, ComparisonsAndLogic) {
  Tensor x = tensor({1.0, 2.0, 3.0});
  EXPECT_EQ(elements<bool>(x < 2), std::vector<bool>({true, false, false}));
  EXPECT_EQ(elements<bool>(2 < x), std::vector<bool>({false, false, true}));
  EXPECT_EQ(elements<bool>(x >= tensor({1.0, 3.0, 3.0})), std::vector<bool>({true, false, true}));
  EXPECT_EQ(elements<bool>(x == 2), std::vector<bool>({false, true, false}));
  EXPECT_EQ(elements<bool>(x != 2), std::vector<bool>({true, false, true}));
  EXPECT_EQ(elements<bool>(tensor({1, 2}) == tensor({1.0, 2.5})), std::vector<bool>({true, false}));
  Tensor p = tensor({true, true, false}), q = tensor({true, false, false});
  EXPECT_EQ(elements<bool>(p & q), std::vector<bool>({true, false, false}));
  EXPECT_EQ(elements<bool>(p | q), std::vector<bool>({true, true, false}));
  EXPECT_EQ(elements<bool>(!p), std::vector<bool>({false, false, true}));
  EXPECT_EQ(elements<bool>(logical_and(tensor({1.0, 0.0}), tensor({2, 2}))), std::vector<bool>({true, false}));
  EXPECT_EQ(elements<int64_t>(tensor({6, 5}) & tensor({3, 1})), V({2, 1}));
  EXPECT_NE(error_of([] { tensor({1.0}) & tensor({1.0}); }).find("bitwise_and"), std::string::npos);
}

TEST(Pointwise, Where) {
  Tensor c = tensor({true, false, true});
  EXPECT_EQ(elements<float>(where(c, tensor({1.0, 2.0, 3.0}), 0.0)), F({1, 0, 3}));
  EXPECT_EQ(elements<int64_t>(where(c, 1, tensor({7, 8, 9}))), V({1, 8, 1}));
  EXPECT_EQ(shape(where(tensor({{true}, {false}}), zeros({3}), ones({1}))), V({2, 3}));
  EXPECT_EQ(where(c, tensor({1, 2, 3}, kInt32), 2.5).dtype(), kFloat32);
  EXPECT_NE(error_of([] { where(tensor({1.0}), tensor({1.0}), tensor({1.0})); }).find("boolean"),
            std::string::npos);
}

// logical_and / logical_or on bool runs long enough for their vector kernels (bytes and-ed
// and or-ed), with tails and a broadcast side, against a naive loop.
TEST(Pointwise, LogicalOpsOnLongBoolRunsMatchNaiveLoop) {
  manual_seed(6);
  for (int64_t length : {16, 33, 1000}) {
    SCOPED_TRACE(::testing::Message() << "length " << length);
    const Tensor a = rand({2, length}) < 0.5, b = rand({2, length}) < 0.5;
    const Tensor first_row = b.narrow(0, 0, 1);  // [1, length]: broadcast over the rows
    const std::vector<bool> av = elements<bool>(a), bv = elements<bool>(b);
    std::vector<bool> both, either, with_first;
    for (size_t k = 0; k < av.size(); ++k) {
      both.push_back(av[k] && bv[k]);
      either.push_back(av[k] || bv[k]);
      with_first.push_back(av[k] && bv[k % static_cast<size_t>(length)]);
    }
    EXPECT_EQ(elements<bool>(logical_and(a, b)), both);
    EXPECT_EQ(elements<bool>(logical_or(a, b)), either);
    EXPECT_EQ(elements<bool>(logical_and(a, first_row)), with_first);
    EXPECT_EQ(elements<bool>(logical_and(a, tensor(true))), av);
    EXPECT_EQ(elements<bool>(logical_or(a, tensor(false))), av);
  }
}

// where's vector kernel (float32 and int32 runs of 16 and more) against a naive loop: runs with
// tails, scalar sides (step 0), rows with gaps between them, NaN and infinities passed through
// unchanged, and the dtypes without a kernel.
TEST(Pointwise, WhereVectorKernelMatchesNaiveLoop) {
  manual_seed(5);
  for (int64_t length : {16, 17, 100, 1001}) {
    SCOPED_TRACE(::testing::Message() << "length " << length);
    const Tensor condition = rand({3, length}) < 0.5;
    const Tensor a = randn({3, length + 4}).narrow(1, 2, length);  // rows with gaps
    Tensor b = randn({3, length});
    b[1][length - 1] = std::numeric_limits<float>::quiet_NaN();
    b[2][0] = std::numeric_limits<float>::infinity();
    const std::vector<bool> picks = elements<bool>(condition);
    const std::vector<float> av = elements<float>(a), bv = elements<float>(b);
    std::vector<float> both, a_only, b_only;
    for (size_t k = 0; k < picks.size(); ++k) {
      both.push_back(picks[k] ? av[k] : bv[k]);
      a_only.push_back(picks[k] ? av[k] : -2.5f);
      b_only.push_back(picks[k] ? 4.0f : bv[k]);
    }
    auto same = [](const std::vector<float>& actual, const std::vector<float>& expected) {
      ASSERT_EQ(actual.size(), expected.size());
      for (size_t k = 0; k < actual.size(); ++k)
        EXPECT_TRUE(actual[k] == expected[k] || (std::isnan(actual[k]) && std::isnan(expected[k])))
            << "element " << k << ": " << actual[k] << " vs " << expected[k];
    };
    same(elements<float>(where(condition, a, b)), both);
    same(elements<float>(where(condition, a, -2.5f)), a_only);
    same(elements<float>(where(condition, tensor(4.0f), b)), b_only);
    std::vector<int64_t> ints;
    for (size_t k = 0; k < picks.size(); ++k) ints.push_back(picks[k] ? int64_t(k) : -7);
    const Tensor counter = arange(3 * length).reshape({3, length});
    const Tensor from_int32 = where(condition, counter.to(kInt32), -7);
    EXPECT_EQ(from_int32.dtype(), kInt32);
    EXPECT_EQ(elements<int64_t>(from_int32.to(kInt64)), ints);
    EXPECT_EQ(elements<int64_t>(where(condition, counter, -7)), ints);  // int64: no kernel
    const Tensor strided_condition = condition.t().contiguous().t();  // the scalar loop
    EXPECT_EQ(elements<int64_t>(where(strided_condition, counter.to(kInt32), -7).to(kInt64)), ints);
    // bool: bytes blended (a per-example `if (c) mask[i][j] = true;` is such a where).
    const Tensor flags = rand({3, length}) < 0.3;
    const std::vector<bool> fv = elements<bool>(flags);
    std::vector<bool> bool_both, bool_true, bool_false;
    for (size_t k = 0; k < picks.size(); ++k) {
      bool_both.push_back(picks[k] ? !fv[k] : fv[k]);
      bool_true.push_back(picks[k] || fv[k]);
      bool_false.push_back(!picks[k] && fv[k]);
    }
    EXPECT_EQ(elements<bool>(where(condition, flags.logical_not(), flags)), bool_both);
    EXPECT_EQ(elements<bool>(where(condition, tensor(true), flags)), bool_true);
    EXPECT_EQ(elements<bool>(where(condition, tensor(false), flags)), bool_false);
  }
}

TEST(Pointwise, InPlaceRules) {
  Tensor x = tensor({1, 2, 3});
  x += 2;
  EXPECT_EQ(elements<int64_t>(x), V({3, 4, 5}));
  x *= tensor({true, false, true});
  EXPECT_EQ(elements<int64_t>(x), V({3, 0, 5}));
  EXPECT_EQ(error_of([&] { x += 1.5; }),
            "add_: result type Float can't be cast to the desired output type Long");
  EXPECT_NE(error_of([&] { x /= 2; }).find("can't be cast"), std::string::npos);
  Tensor f = zeros({2, 3});
  f += tensor({1.0, 2.0, 3.0}, kFloat64);  // same category: allowed
  EXPECT_EQ(elements<float>(f), F({1, 2, 3, 1, 2, 3}));
  f -= 1;
  f /= 2;
  EXPECT_EQ(elements<float>(f[1]), F({0, 0.5, 1}));
  EXPECT_NE(error_of([&] { f[0] += zeros({2, 3}); }).find("doesn't match the broadcast shape"),
            std::string::npos);
  // In-place through a view updates the base.
  Tensor m = zeros({2, 2});
  m[1] += 5;
  m.t()[0] -= 1;
  EXPECT_EQ(elements<float>(m), F({-1, 0, 4, 5}));
}

TEST(Pointwise, InPlaceWithOverlappingOperand) {
  Tensor m = tensor({{1.0, 2.0}, {3.0, 4.0}});
  m += m.t();  // reads the old values, as if m.t() were copied first
  EXPECT_EQ(elements<float>(m), F({2, 5, 5, 8}));
  Tensor v = tensor({1.0, 2.0, 3.0});
  v.narrow(0, 1, 2).copy_(v.narrow(0, 0, 2));
  EXPECT_EQ(elements<float>(v), F({1, 1, 2}));
  Tensor s = tensor({1.0, 2.0});
  s += s;
  EXPECT_EQ(elements<float>(s), F({2, 4}));
}

TEST(Pointwise, CopyFillAndConversion) {
  Tensor a = zeros({2, 2}, kInt32);
  a.copy_(tensor({1.9, -1.9}));  // broadcast + truncation
  EXPECT_EQ(elements<int32_t>(a), std::vector<int32_t>({1, -1, 1, -1}));
  a.fill_(7);
  EXPECT_EQ(elements<int32_t>(a), std::vector<int32_t>({7, 7, 7, 7}));
  a.zero_();
  EXPECT_EQ(elements<int32_t>(a), std::vector<int32_t>({0, 0, 0, 0}));
  a.fill_(tensor(3));
  EXPECT_EQ(a[1][1].item<int>(), 3);
  EXPECT_NE(error_of([&] { a.fill_(tensor({3})); }).find("0-dimension"), std::string::npos);
  EXPECT_NE(error_of([&] { a.copy_(zeros({3})); }).find("cannot be broadcast"), std::string::npos);
  Tensor b = tensor({0.0, 2.0}).to(kBool);
  EXPECT_EQ(elements<bool>(b), std::vector<bool>({false, true}));
  Tensor x = tensor({1, 2});
  EXPECT_TRUE(x.to(kInt64).is_same(x));
  Tensor huge = tensor({1e30, -1e30, std::nan("")}, kFloat64).to(kInt32);  // no UB
  EXPECT_EQ(huge.numel(), 3);
}

TEST(Pointwise, CloneContiguousAllcloseEqual) {
  Tensor x = tensor({{1.0, 2.0}, {3.0, 4.0}});
  Tensor t = x.t();
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(elements<float>(c), F({1, 3, 2, 4}));
  EXPECT_TRUE(x.contiguous().is_same(x));
  Tensor y = x.clone();
  y[0][0] = 9;
  EXPECT_EQ(x[0][0].item<float>(), 1.0f);
  EXPECT_TRUE(allclose(x, x + 1e-7));
  EXPECT_FALSE(allclose(x, x + 1e-3));
  EXPECT_TRUE(allclose(x, x + 1e-3, 1e-5, 1e-2));
  EXPECT_TRUE(equal(x, x.clone()));
  EXPECT_FALSE(equal(x, t));
  EXPECT_FALSE(equal(x, x.view(-1)));
}

TEST(Pointwise, OpCountIsPerCallNotPerElement) {
  Tensor a = zeros({1000});
  const int64_t before = detail::op_count();
  Tensor b = a + a;
  const int64_t small = detail::op_count() - before;
  Tensor big = zeros({100000});
  const int64_t before_big = detail::op_count();
  Tensor c = big + big;
  EXPECT_EQ(detail::op_count() - before_big, small);
  EXPECT_GE(small, 1);
}

}  // namespace
