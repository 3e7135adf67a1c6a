// Compiled fused kernels (Note [Compiled fusion] in rules/include/vmap/fused.hpp): vb::fused
// as rewritten code calls it, against the per-example loop in plain runtime ops. Kernels
// that do not apply (int tensors, mixed dtypes, an op a float does not have) take the
// batched ops and must give what they give.
#include "omp_threads.hpp"
#include "rules_test_util.hpp"

#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace vmap {
namespace {

namespace vb = vmap::batched;
using test::Rng;

void expect_close(const Tensor& actual, const Tensor& expected, double rtol = 1e-5) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  EXPECT_TRUE(vmap::allclose(actual, expected, rtol, 1e-6)) << actual << "\n" << expected;
}

// out[i][j] = (x[i] - y[j]).pow(2).sum(), as the tool rewrites it.
Tensor pairwise_distance(const Tensor& x, const Tensor& y) {
  Tensor out = zeros({x.size(0), y.size(0)}, x.dtype());
  vb::Level level0(0, x.size(0));
  const vb::Value i = level0.index();
  vb::Level level1(0, y.size(0));
  const vb::Value j = level1.index();
  vb::at(vb::at(out, i), j) = vb::sum(vb::fused(
      [](const auto& a, const auto& b) { return (a - b).pow(2); }, vb::at(x, i), vb::at(y, j)));
  return out;
}

Tensor pairwise_distance_loop(const Tensor& x, const Tensor& y) {
  Tensor out = zeros({x.size(0), y.size(0)}, x.dtype());
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < y.size(0); ++j) out[i][j] = (x[i] - y[j]).pow(2).sum();
  return out;
}

TEST(CompiledFusion, PairwiseDistanceFloatAndDouble) {
  Rng rng(1);
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const Tensor x = test::random_tensor(rng, {13, 10}, dtype);
    const Tensor y = test::random_tensor(rng, {7, 10}, dtype);
    expect_close(pairwise_distance(x, y), pairwise_distance_loop(x, y));
  }
}

// Short examples are summed side by side along the rows (Note [Short examples summed side
// by side]); widths below, at and above the 16 elements a long example's run is split at;
// float64 through the same loops (Note [Loops per fused kernel]).
TEST(CompiledFusion, PairwiseDistanceOfShortAndLongRows) {
  Rng rng(11);
  for (Dtype dtype : {kFloat32, kFloat64})
    for (int64_t width : {1, 3, 10, 15, 16, 17, 40})
      for (int64_t rows : {8, 29}) {
        SCOPED_TRACE(testing::Message() << rows << " rows of width " << width << ", " << dtype);
        const Tensor x = test::random_tensor(rng, {5, width}, dtype);
        const Tensor y = test::random_tensor(rng, {rows, width}, dtype);
        expect_close(pairwise_distance(x, y), pairwise_distance_loop(x, y));
      }
  // A row longer than a block of the rows loop (kRowBlock): summed in two blocks.
  const Tensor x = test::random_tensor(rng, {3, 10}, kFloat32);
  const Tensor y = test::random_tensor(rng, {2100, 10}, kFloat32);
  expect_close(pairwise_distance(x, y), pairwise_distance_loop(x, y));
}

TEST(CompiledFusion, MeanOfShortRowsPerPair) {
  Rng rng(12);
  const Tensor x = test::random_tensor(rng, {3, 6}, kFloat64);
  const Tensor y = test::random_tensor(rng, {19, 6}, kFloat64);
  Tensor out = zeros({3, 19}, kFloat64);
  {
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::Level level1(0, y.size(0));
    const vb::Value j = level1.index();
    vb::at(vb::at(out, i), j) =
        vb::fused([](const auto& a, const auto& b) { return vb::abs(a - b); }, vb::at(x, i),
                  vb::at(y, j))
            .mean();
  }
  Tensor expected = zeros({3, 19}, kFloat64);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 19; ++j) expected[i][j] = vmap::abs(x[i] - y[j]).mean();
  expect_close(out, expected);
}

TEST(CompiledFusion, PairwiseDistanceOnThreadsAndStridedRows) {
  vmap_test::OmpThreads threads(2);
  Rng rng(2);
  const Tensor x = test::random_tensor(rng, {300, 64}, kFloat32);
  const Tensor y = test::random_tensor(rng, {64, 200}, kFloat32).t();  // rows of stride 1 x 200
  expect_close(pairwise_distance(x, y), pairwise_distance_loop(x, y), 1e-4);
}

// Three levels: one call of the rows loop takes the rows that follow each other along the
// middle level, up to where the outer level steps on, and a thread's share of the rows may
// start or end inside such a run (Note [Short examples summed side by side]).
TEST(CompiledFusion, RowsOfThreeLevelsAcrossOuterStepsAndThreads) {
  Rng rng(13);
  const Tensor x = test::random_tensor(rng, {3, 37, 12}, kFloat32);
  const Tensor y = test::random_tensor(rng, {50, 12}, kFloat32);  // the same for every b
  // One row per b, positive: sums of terms of one sign compare at rtol 1e-5.
  const Tensor scale = test::random_tensor(rng, {3, 12}, kFloat32).abs() + 0.5;
  Tensor expected_sums = zeros({3, 37, 50}), expected_means = zeros({3, 37, 50});
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t i = 0; i < 37; ++i)
      for (int64_t j = 0; j < 50; ++j) {
        const Tensor terms = (x[b][i] - y[j]).pow(2) * scale[b];
        expected_sums[b][i][j] = terms.sum();
        expected_means[b][i][j] = terms.mean();
      }
  for (int threads : {1, 2}) {
    SCOPED_TRACE(testing::Message() << threads << " threads");
    vmap_test::OmpThreads omp(threads);
    Tensor sums = zeros({3, 37, 50}), means = zeros({3, 37, 50});
    {
      vb::Level level0(0, 3);
      const vb::Value b = level0.index();
      vb::Level level1(0, 37);
      const vb::Value i = level1.index();
      vb::Level level2(0, 50);
      const vb::Value j = level2.index();
      auto terms = [](const auto& a, const auto& c, const auto& s) { return (a - c).pow(2) * s; };
      const vb::Value xs = vb::at(vb::at(x, b), i), ys = vb::at(y, j), scales = vb::at(scale, b);
      vb::at(vb::at(vb::at(sums, b), i), j) = vb::fused(terms, xs, ys, scales).sum();
      vb::at(vb::at(vb::at(means, b), i), j) = vb::fused(terms, xs, ys, scales).mean();
    }
    expect_close(sums, expected_sums);
    expect_close(means, expected_means);
  }
}

// A sum or mean over one dim: compiled over any dim of the example, walked innermost (the
// other dims kept, in order, as rows: `(x[i] - y).pow(2).sum(1)`, a column sum `sum(0)`, the
// middle dim of a 3-d example with a broadcast operand); keepdim runs the batched ops. Every
// form against the loop.
TEST(CompiledFusion, SumsOverOneDimOfTheExample) {
  Rng rng(14);
  for (Dtype dtype : {kFloat32, kFloat64}) {
    SCOPED_TRACE(testing::Message() << dtype);
    const Tensor x = test::random_tensor(rng, {7, 10}, dtype);
    const Tensor y = test::random_tensor(rng, {30, 10}, dtype);
    auto squares = [](const auto& a, const auto& b) { return (a - b).pow(2); };
    const Tensor cube = test::random_tensor(rng, {7, 4, 5, 6}, dtype);
    const Tensor weights = test::random_tensor(rng, {4, 1, 6}, dtype);
    auto scaled = [](const auto& a, const auto& w) { return a * w; };
    Tensor last = zeros({7, 30}, dtype), negative = zeros({7, 30}, dtype),
           first = zeros({7, 10}, dtype), kept = zeros({7, 30, 1}, dtype),
           middle = zeros({7, 4, 6}, dtype), middle_mean = zeros({7, 4, 6}, dtype),
           outer = zeros({7, 5, 6}, dtype);
    {
      vb::Level level(0, 7);
      const vb::Value i = level.index();
      vb::at(last, i) = vb::fused(squares, vb::at(x, i), y).sum(1);
      vb::at(negative, i) = vb::mean(vb::fused(squares, vb::at(x, i), y), -1);
      vb::at(first, i) = vb::fused(squares, vb::at(x, i), y).sum(0);
      vb::at(kept, i) = vb::fused(squares, vb::at(x, i), y).sum(1, true);
      vb::at(middle, i) = vb::fused(scaled, vb::at(cube, i), weights).sum(1);
      vb::at(middle_mean, i) = vb::fused(scaled, vb::at(cube, i), weights).mean(-2);
      vb::at(outer, i) = vb::fused(scaled, vb::at(cube, i), weights).sum(0);
    }
    Tensor expected_last = zeros({7, 30}, dtype), expected_negative = zeros({7, 30}, dtype),
           expected_first = zeros({7, 10}, dtype), expected_kept = zeros({7, 30, 1}, dtype),
           expected_middle = zeros({7, 4, 6}, dtype), expected_middle_mean = zeros({7, 4, 6}, dtype),
           expected_outer = zeros({7, 5, 6}, dtype);
    for (int64_t i = 0; i < 7; ++i) {
      expected_last[i] = (x[i] - y).pow(2).sum(1);
      expected_negative[i] = mean((x[i] - y).pow(2), -1);
      expected_first[i] = (x[i] - y).pow(2).sum(0);
      expected_kept[i] = (x[i] - y).pow(2).sum(1, true);
      expected_middle[i] = (cube[i] * weights).sum(1);
      expected_middle_mean[i] = (cube[i] * weights).mean(-2);
      expected_outer[i] = (cube[i] * weights).sum(0);
    }
    expect_close(last, expected_last);
    expect_close(negative, expected_negative);
    expect_close(first, expected_first);
    expect_close(kept, expected_kept);
    expect_close(middle, expected_middle);
    expect_close(middle_mean, expected_middle_mean);
    expect_close(outer, expected_outer);
  }
}

// Long examples read with a stride (columns of x): a kernel has no loop for them (Note
// [Loops per fused kernel]); up to 4096 elements they are summed side by side, the columns
// the row, longer ones by the batched ops. Both as the loop.
TEST(CompiledFusion, LongStridedExamplesSumAsTheLoop) {
  Rng rng(16);
  for (Dtype dtype : {kFloat32, kFloat64})
    for (int64_t length : {300, 5000}) {
      SCOPED_TRACE(testing::Message() << dtype << ", " << length << " elements");
      const Tensor x = test::random_tensor(rng, {length, 40}, dtype);
      const Tensor columns = x.t();  // example i: column i, `length` elements 40 apart
      Tensor out = zeros({40}, dtype), expected = zeros({40}, dtype);
      {
        vb::Level level(0, 40);
        const vb::Value i = level.index();
        vb::at(out, i) =
            vb::fused([](const auto& a) { return a * a + 1; }, vb::at(columns, i)).sum();
      }
      for (int64_t i = 0; i < 40; ++i) expected[i] = (columns[i] * columns[i] + 1).sum();
      expect_close(out, expected);
    }
}

TEST(CompiledFusion, MeanOfALocalComputedInTheKernel) {
  Rng rng(3);
  const Tensor x = test::random_tensor(rng, {5, 3, 4}, kFloat64);
  const Tensor w = test::random_tensor(rng, {4}, kFloat64);  // loop-invariant, broadcast
  Tensor out = zeros({5});
  {
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::at(out, i) = vb::fused(
                         [](const auto& a, const auto& w) {
                           auto d = a * w - 0.5;
                           return vb::sqrt(d * d + 1);
                         },
                         vb::at(x, i), w)
                         .mean();
  }
  Tensor expected = zeros({5});
  for (int64_t i = 0; i < 5; ++i) {
    Tensor d = x[i] * w - 0.5;
    expected[i] = vmap::sqrt(d * d + 1).mean();
  }
  expect_close(out, expected);
}

TEST(CompiledFusion, StoreOfAChainIntoTheSlots) {
  vmap_test::OmpThreads threads(2);
  Rng rng(4);
  const Tensor x = test::random_tensor(rng, {400, 100}, kFloat32);  // above one block
  const Tensor y = test::random_tensor(rng, {100}, kFloat32);
  Tensor out = zeros({400, 100});
  {
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::at(out, i) = vb::fused(
        [](const auto& a, const auto& b, float s) { return vb::maximum(a * s, b).abs().pow(3); },
        vb::at(x, i), y, 1.5f);
  }
  Tensor expected = zeros({400, 100});
  for (int64_t i = 0; i < 400; ++i) expected[i] = vmap::maximum(x[i] * 1.5f, y).abs().pow(3);
  expect_close(out, expected);
}

// Note [Vector math in fused kernels]: every float math op of the pointwise op list in a
// kernel whose loop is vectorised (libmvec's variants where GCC builds it), against the eager
// op on the same values. NaN and infinities exactly where the eager op gives them; the rest
// within a few ulp, or near zero a few of the smallest normal's.
TEST(CompiledFusion, FloatMathInVectorisedLoopsIsTheEagerOps) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {std::nan(""), inf, -inf, 0.0, -0.0, 1e-40, -1e-40, 1e-310,
                                88.7, 89.0, -87.5, -104.0, 709.0, 710.0, -745.0, 1e30, -1e30,
                                1.0, -1.0, 0.5, -0.5, 2.0, 1e-8, -0.999, -1.0 - 1e-7, 3.14159};
  while (values.size() < 512)  // whole vectors of each and tails, from -60 to 60
    values.push_back(std::ldexp(static_cast<double>(values.size() * 37 % 101) - 50.0,
                                static_cast<int>(values.size() % 9) - 6));
  const Tensor all = vmap::from_blob(values.data(), {8, 64}, kFloat64).clone();
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const Tensor x = all.to(dtype);
    const double ulps = dtype == kFloat32 ? 1e-6 : 1e-14;
    const double tiny = dtype == kFloat32 ? 1e-37 : 1e-307;
    auto check = [&](const char* op, const Tensor& fused, const Tensor& eager) {
      const Tensor got = fused.to(kFloat64).contiguous(), want = eager.to(kFloat64).contiguous();
      const double* g = got.data_ptr<double>();
      const double* w = want.data_ptr<double>();
      for (int64_t k = 0; k < got.numel(); ++k) {
        const std::string at = std::string(op) + " of " + std::to_string(all.view({-1})[k].item<double>()) +
                               (dtype == kFloat32 ? " (float)" : " (double)");
        if (std::isnan(w[k]) || std::isinf(w[k]))
          EXPECT_TRUE(std::isnan(w[k]) ? std::isnan(g[k]) : g[k] == w[k]) << at << ": " << g[k];
        else
          EXPECT_LE(std::abs(g[k] - w[k]), 4 * ulps * std::abs(w[k]) + 4 * tiny)
              << at << ": " << g[k] << " vs " << w[k];
      }
    };
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost)                                    \
  {                                                                                        \
    Tensor out = zeros({8, 64}, dtype);                                                    \
    {                                                                                      \
      vb::Level level0(0, x.size(0));                                                      \
      const vb::Value i = level0.index();                                                  \
      vb::at(out, i) = vb::fused([](const auto& a) { return vb::name(a); }, vb::at(x, i)); \
    }                                                                                      \
    Tensor expected = zeros({8, 64}, dtype);                                               \
    for (int64_t i = 0; i < 8; ++i) expected[i] = x[i].name();                             \
    if (std::string(#domain) == "float_math" || std::string(#name) == "silu")              \
      check(#name, out, expected);                                                         \
  }
#define VMAP_BINARY_OP(name, Functor, domain)
#define VMAP_COMPARISON_OP(name, Functor, symbol)
#include <vmap/detail/pointwise_ops.def>
  }
}

TEST(CompiledFusion, ComparisonsGiveBoolAndWhereSelects) {
  Rng rng(5);
  const Tensor x = test::random_tensor(rng, {6, 5}, kFloat32);
  Tensor mask = zeros({6, 5}, kBool);
  Tensor picked = zeros({6, 5});
  {
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::at(mask, i) = vb::fused([](const auto& a) { return (a > 0) & (a < 1); }, vb::at(x, i));
    vb::at(picked, i) = vb::fused([](const auto& a) { return vb::where(a > 0, a, -a * 2); },
                                  vb::at(x, i));
  }
  Tensor expected_mask = zeros({6, 5}, kBool), expected_picked = zeros({6, 5});
  for (int64_t i = 0; i < 6; ++i) {
    expected_mask[i] = (x[i] > 0) & (x[i] < 1);
    expected_picked[i] = vmap::where(x[i] > 0, x[i], -x[i] * 2);
  }
  EXPECT_TRUE(vmap::equal(mask, expected_mask));
  expect_close(picked, expected_picked);
}

TEST(CompiledFusion, AccumulatorAddsEveryExampleInDouble) {
  vmap_test::OmpThreads threads(2);
  Rng rng(6);
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const Tensor x = test::random_tensor(rng, {700}, dtype);
    const Tensor y = test::random_tensor(rng, {300}, dtype);
    Tensor total = zeros({}, kFloat64);
    {
      vb::Level level0(0, x.size(0));
      const vb::Value i = level0.index();
      vb::Level level1(0, y.size(0));
      const vb::Value j = level1.index();
      vb::accumulate(total, vb::fused([](const auto& a, const auto& b) { return a * b; },
                                      vb::at(x, i), vb::at(y, j)),
                     vb::Reduce::add);
    }
    Tensor expected = zeros({}, kFloat64);
    for (int64_t i = 0; i < 700; ++i)
      for (int64_t j = 0; j < 300; ++j) expected += x[i] * y[j];
    expect_close(total, expected);
  }
}

// A float accumulator over a long run: the run is summed in float blocks, the blocks in
// double, within SPEC's 1e-4 of a double sum.
TEST(CompiledFusion, AccumulatorOverALongRun) {
  Rng rng(13);
  const Tensor x = test::random_tensor(rng, {300000}, kFloat32) + 1.0f;
  Tensor total = zeros({}, kFloat64);
  {
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::accumulate(total, vb::fused([](const auto& a) { return a * a; }, vb::at(x, i)),
                   vb::Reduce::add);
  }
  double expected = 0;
  const float* data = x.data_ptr<float>();
  for (int64_t i = 0; i < x.size(0); ++i) expected += static_cast<double>(data[i] * data[i]);
  EXPECT_NEAR(total.item<double>(), expected, 1e-5 * std::abs(expected));
}

// total += x[i] * 2 inside the j loop adds each row once per j.
TEST(CompiledFusion, AccumulatorCountsTheLevelsItsValueDoesNotVaryAlong) {
  const Tensor x = arange(5).to(kFloat32);
  Tensor total = zeros({});
  {
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::Level level1(0, 3);
    vb::accumulate(total, vb::fused([](const auto& a) { return a * 2; }, vb::at(x, i)),
                   vb::Reduce::add);
  }
  EXPECT_FLOAT_EQ(total.item<float>(), 3 * 2 * (0 + 1 + 2 + 3 + 4));
}

TEST(CompiledFusion, AccumulatorUnderAMaskTakesTheBatchedOps) {
  const Tensor x = arange(10).to(kFloat32);
  Tensor total = zeros({});
  {
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::Where where(vb::at(x, i) > 4);
    vb::accumulate(total, vb::fused([](const auto& a) { return a * a; }, vb::at(x, i)),
                   vb::Reduce::sub);
  }
  EXPECT_FLOAT_EQ(total.item<float>(), -(25 + 36 + 49 + 64 + 81));
}

// Kernels that do not apply run the same lambda on the Values: the eager ops' dtypes and
// errors.
TEST(CompiledFusion, IntegerAndMixedDtypesTakeTheBatchedOps) {
  const Tensor ints = arange(12).reshape({4, 3});
  const Tensor floats = ints.to(kFloat32) / 3.0;
  const Tensor halves = arange(3).to(kFloat64) / 2.0;  // float32 * float64: a float64 sum
  Tensor out = zeros({4}, kInt64);
  Tensor mixed = zeros({4}, kFloat64);
  {
    vb::Level level0(0, ints.size(0));
    const vb::Value i = level0.index();
    vb::at(out, i) = vb::fused([](const auto& a) { return a * a - 1; }, vb::at(ints, i)).sum();
    vb::at(mixed, i) = vb::fused([](const auto& a, const auto& h) { return a * h + 1; },
                                 vb::at(floats, i), halves)
                           .sum();
  }
  Tensor expected = zeros({4}, kInt64), expected_mixed = zeros({4}, kFloat64);
  for (int64_t i = 0; i < 4; ++i) {
    expected[i] = (ints[i] * ints[i] - 1).sum();
    expected_mixed[i] = (floats[i] * halves + 1).sum();
  }
  EXPECT_TRUE(vmap::equal(out, expected));
  expect_close(mixed, expected_mixed);
}

TEST(CompiledFusion, AnOpFloatsLackRaisesTheEagerError) {
  const Tensor x = ones({4, 3});
  vb::Level level0(0, x.size(0));
  const vb::Value i = level0.index();
  EXPECT_THROW((void)vb::fused([](const auto& a) { return (a & a) + 1; }, vb::at(x, i)).sum(),
               vmap::Error);
}

TEST(CompiledFusion, ElementPromotionFollowsATen) {
  using vb::Element;
  static_assert(std::is_same_v<decltype(Element<float>{1} * 2.5), Element<float>>);
  static_assert(std::is_same_v<decltype(Element<float>{1} + Element<double>{1}), Element<double>>);
  static_assert(std::is_same_v<decltype(Element<bool>{true} + 1), Element<int64_t>>);
  static_assert(std::is_same_v<decltype(Element<int32_t>{1} / 2), Element<float>>);
  static_assert(std::is_same_v<decltype(Element<int32_t>{1} * 2.0), Element<float>>);
  static_assert(std::is_same_v<decltype(Element<double>{1} < 2), Element<bool>>);
  static_assert(std::is_same_v<decltype(vb::sqrt(Element<int64_t>{4})), Element<float>>);
  EXPECT_EQ((Element<int32_t>{7} / 2).value, 3.5f);
  EXPECT_EQ((Element<int32_t>{2147483647} + 1).value, -2147483648);  // wraps, as the tensor op
}

TEST(CompiledFusion, PowByASmallConstantIsMultipliesAndRoots) {
  for (double base : {0.3, 1.7, 4.0}) {
    const vb::Element<double> x{base};
    for (double exponent : {2.0, 3.0, 1.0, 0.5, -0.5, -1.0, -2.0, 2.5, 0.0})
      EXPECT_NEAR(x.pow(exponent).value, std::pow(base, exponent), 1e-12 * std::pow(base, exponent))
          << base << "^" << exponent;
  }
  EXPECT_EQ(vb::Element<int64_t>{3}.pow(2).value, 9);
}

// out[i] = x[i].pow(e) as a compiled kernel, the exponent an operand (not folded).
Tensor fused_power(const Tensor& x, int64_t exponent) {
  Tensor out = zeros(x.sizes().vec(), x.dtype());
  vb::Level level0(0, x.size(0));
  const vb::Value i = level0.index();
  vb::at(out, i) = vb::fused([](const auto& a, int64_t e) { return a.pow(e); }, vb::at(x, i),
                             exponent);
  return out;
}

// Every integer power takes repeated squaring (Note [pow strength reduction]): in a kernel
// bit for bit the eager op (so the rewrite and the per-example build agree exactly), and
// both within SPEC's 1e-4 relative of std::pow; integers keep their exact, wrapping powers.
TEST(CompiledFusion, PowByEveryIntegerIsTheEagerPow) {
  manual_seed(5);
  for (Dtype dtype : {kFloat32, kFloat64}) {
    // Near 1, so that x^1024 stays finite; and a few special values.
    const Tensor x =
        cat({rand({4, 37}) * 0.02 + 0.99, tensor({{0.0, -1.0, 2.0, -0.5}}).expand({4, 4})}, 1)
            .to(dtype);
    for (int64_t e : {0, 1, 2, 3, 4, 7, 31, 32, 100, 1024, 1025, -1, -2, -3, -31, -32}) {
      SCOPED_TRACE(testing::Message() << dtype << " x^" << e);
      Tensor expected = zeros(x.sizes().vec(), dtype);
      for (int64_t k = 0; k < x.size(0); ++k) expected[k] = x[k].pow(e);
      const Tensor out = fused_power(x, e);
      EXPECT_TRUE(vmap::equal(out, expected)) << out << "\n" << expected;
      // Where the power is a normal float (not 0^-1, 2^1024, (-0.5)^1025).
      const Tensor exact = x.to(kFloat64).pow(static_cast<double>(e));
      const Tensor outside = !logical_and(exact.abs() > 1e-30, exact.abs() < 1e30);
      EXPECT_TRUE(vmap::allclose(out.to(kFloat64).masked_fill(outside, 0),
                                 exact.masked_fill(outside, 0), 1e-4, 0));
    }
  }
  // A literal exponent folds into the kernel's multiplies: the same values.
  const Tensor x = rand({3, 50}) * 0.2 + 0.9;
  Tensor out = zeros({3, 50}), inverse = zeros({3, 50});
  vb::Level level0(0, 3);
  const vb::Value i = level0.index();
  vb::at(out, i) = vb::fused([](const auto& a) { return a.pow(32); }, vb::at(x, i));
  vb::at(inverse, i) = vb::fused([](const auto& a) { return pow(a, -2.0); }, vb::at(x, i));
  EXPECT_TRUE(vmap::equal(out, x.pow(32)));
  EXPECT_TRUE(vmap::equal(inverse, x.pow(-2)));
  const Tensor ints = tensor({{3, -2}, {5, 7}}, kInt64);
  EXPECT_TRUE(vmap::equal(fused_power(ints, 31), ints.pow(31)));  // wraps as multiplies do
}

// out[i][j] = norm(x[i] - y[j]) under two levels, `form` the kernel's use.
template <class Form>
Tensor pairwise_norms(const Tensor& x, const Tensor& y, Form form) {
  Tensor out = zeros({x.size(0), y.size(0)}, x.dtype());
  vb::Level level0(0, x.size(0));
  const vb::Value i = level0.index();
  vb::Level level1(0, y.size(0));
  const vb::Value j = level1.index();
  vb::at(vb::at(out, i), j) =
      form(vb::fused([](const auto& a, const auto& b) { return a - b; }, vb::at(x, i), vb::at(y, j)));
  return out;
}

// norm() is the root of the kernel's compiled sum of squares: the unfused op's values, short
// examples (summed side by side) and long ones, float and double; norm(2).pow(2) the sum of
// squares within tolerance; another p and integer chains run the batched ops.
TEST(CompiledFusion, NormIsTheRootOfACompiledSumOfSquares) {
  Rng rng(9);
  for (Dtype dtype : {kFloat32, kFloat64})
    for (int64_t width : {1, 10, 64, 300}) {
      SCOPED_TRACE(testing::Message() << dtype << " width " << width);
      const Tensor x = test::random_tensor(rng, {9, width}, dtype);
      const Tensor y = test::random_tensor(rng, {5, width}, dtype);
      Tensor norms = zeros({9, 5}, dtype), squares = zeros({9, 5}, dtype),
             ones_norms = zeros({9, 5}, dtype);
      for (int64_t i = 0; i < 9; ++i)
        for (int64_t j = 0; j < 5; ++j) {
          norms[i][j] = (x[i] - y[j]).norm();
          squares[i][j] = (x[i] - y[j]).pow(2).sum();
          ones_norms[i][j] = (x[i] - y[j]).norm(1);
        }
      expect_close(pairwise_norms(x, y, [](const auto& e) { return e.norm(); }), norms);
      expect_close(pairwise_norms(x, y, [](const auto& e) { return vb::norm(e, 2.0); }), norms);
      expect_close(pairwise_norms(x, y, [](const auto& e) { return e.norm().pow(2); }), squares,
                   1e-4);
      expect_close(pairwise_norms(x, y, [](const auto& e) { return e.norm(1); }), ones_norms);
    }
  const Tensor ints = ones({4, 3}, kInt64);
  vb::Level level0(0, 4);
  const vb::Value i = level0.index();
  EXPECT_THROW((void)vb::fused([](const auto& a) { return a * 2; }, vb::at(ints, i)).norm(),
               vmap::Error);
}

}  // namespace
}  // namespace vmap

namespace vmap {
// Note [Epilogues of whole nodes]: a pointwise op after a compiled sum or mean joins it and
// lands in the store's slots. Each must equal the runtime op on the same sums (stored by the
// same kernel): bit for bit, not close.
struct PairwiseSums {
  Tensor x, y;
  bool mean = false;

  vb::Value reduced(const vb::Value& i, const vb::Value& j) const {
    const auto difference = vb::fused([](const auto& a, const auto& b) { return (a - b) * (a - b); },
                                      vb::at(x, i), vb::at(y, j));
    return mean ? difference.mean() : difference.sum();
  }
  // out[i][j] = epilogue(reduced, i), under two levels as the tool rewrites it.
  template <class Epilogue>
  Tensor stored(Epilogue epilogue) const {
    Tensor out = zeros({x.size(0), y.size(0)}, x.dtype());
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::Level level1(0, y.size(0));
    const vb::Value j = level1.index();
    vb::at(vb::at(out, i), j) = epilogue(reduced(i, j), i);
    return out;
  }
  Tensor sums() const {
    return stored([](const vb::Value& reduced, const vb::Value&) { return reduced; });
  }
};

void expect_equal(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  EXPECT_TRUE(vmap::allclose(actual, expected, 0, 0, true)) << actual << "\n" << expected;
}

TEST(CompiledFusion, UnaryEpiloguesOfASumEqualTheOpOnTheSums) {
  Rng rng(21);
  // Below one block (eager before), and above it on threads.
  for (const int64_t rows : {100, 2000}) {
    SCOPED_TRACE(testing::Message() << rows << " rows");
    vmap_test::OmpThreads threads(2);
    const PairwiseSums pairs{test::random_tensor(rng, {rows, 10}, kFloat32),
                             test::random_tensor(rng, {40, 10}, kFloat32)};
    const Tensor sums = pairs.sums();
    expect_equal(pairs.stored([](const vb::Value& s, const vb::Value&) { return s.sqrt(); }),
                 sums.sqrt());
    expect_equal(pairs.stored([](const vb::Value& s, const vb::Value&) { return (-s).exp(); }),
                 (-sums).exp());
    // Composites (ops_composite.cpp) read their input after writing their result.
    expect_equal(pairs.stored([](const vb::Value& s, const vb::Value&) { return vb::gelu(s); }),
                 vmap::gelu(sums));
    expect_equal(
        pairs.stored([](const vb::Value& s, const vb::Value&) { return vb::softplus(s, 0.5); }),
        vmap::softplus(sums, 0.5));
  }
}

TEST(CompiledFusion, EpiloguesWithNumbersAndChainsOfThem) {
  Rng rng(22);
  const PairwiseSums pairs{test::random_tensor(rng, {30, 10}, kFloat32),
                           test::random_tensor(rng, {20, 10}, kFloat32)};
  const Tensor sums = pairs.sums();
  expect_equal(pairs.stored([](const vb::Value& s, const vb::Value&) { return s * 0.5; }),
               sums * 0.5);
  expect_equal(pairs.stored([](const vb::Value& s, const vb::Value&) { return 1.0 - s; }),
               1.0 - sums);
  expect_equal(pairs.stored([](const vb::Value& s, const vb::Value&) { return s.sqrt() * 2 + 1; }),
               sums.sqrt() * 2 + 1);
  // A bool result converted by the store, as eagerly.
  expect_equal(pairs.stored([](const vb::Value& s, const vb::Value&) { return s > 3; }),
               (sums > 3).to(kFloat32));
}

TEST(CompiledFusion, EpiloguesOfAMeanAndOfFloat64Sums) {
  Rng rng(23);
  for (const Dtype dtype : {kFloat32, kFloat64})
    for (const bool mean : {false, true}) {
      SCOPED_TRACE(testing::Message() << dtype << (mean ? " mean" : " sum"));
      const PairwiseSums pairs{test::random_tensor(rng, {25, 7}, dtype),
                               test::random_tensor(rng, {33, 7}, dtype), mean};
      const Tensor sums = pairs.sums();
      expect_equal(pairs.stored([](const vb::Value& s, const vb::Value&) { return s.exp(); }),
                   sums.exp());
      expect_equal(pairs.stored([](const vb::Value& s, const vb::Value&) { return s.sqrt(); }),
                   sums.sqrt());
    }
}

// What does not join the sum (a per-example tensor operand, a second sum, a reduction, a use
// other than a store) takes the eager ops on the materialised sums.
TEST(CompiledFusion, EpiloguesThatDoNotJoinTheSum) {
  Rng rng(24);
  const PairwiseSums pairs{test::random_tensor(rng, {30, 10}, kFloat32),
                           test::random_tensor(rng, {20, 10}, kFloat32)};
  const Tensor scale = test::random_tensor(rng, {30}, kFloat32);
  const Tensor sums = pairs.sums();
  expect_equal(pairs.stored([&](const vb::Value& s, const vb::Value& i) { return s * vb::at(scale, i); }),
               sums * scale.unsqueeze(1));
  expect_equal(pairs.stored([&](const vb::Value& s, const vb::Value&) { return s + s.sqrt(); }),
               sums + sums.sqrt());
  expect_equal(pairs.stored([&](const vb::Value& s, const vb::Value&) { return s.sqrt().amax(); }),
               sums.sqrt());
  // A joined value used twice, as an operand: computed once, outside the store.
  expect_equal(pairs.stored([&](const vb::Value& s, const vb::Value&) {
                 const vb::Value root = s.sqrt();
                 return root * root;
               }),
               sums.sqrt() * sums.sqrt());
}

namespace {

// The compiled kernel makes no tensor per block or per example: its op count is the same for
// 20 and 4000 rows (the batched ops' pending path reduces block by block).
TEST(CompiledFusion, TheKernelCostsTheSameOpsWhateverTheBatch) {
  // Elsewhere the batched ops run the chains (Note [Vector ISA of compiled kernels]).
  if (!vb::detail::cpu_runs(vb::detail::kFusedIsa))
    GTEST_SKIP() << "this CPU lacks the vector ISA the kernels are compiled for";
  Rng rng(7);
  const Tensor y = test::random_tensor(rng, {300, 16}, kFloat32);
  auto cost = [&](int64_t rows) {
    const Tensor x = test::random_tensor(rng, {rows, 16}, kFloat32);
    Tensor squares = zeros({rows, 300}), scaled = zeros({rows, 16}), total = zeros({}),
           row_squares = zeros({rows, 300}), column_squares = zeros({rows, 16});
    const int64_t before = vmap::detail::op_count();
    {
      vb::Level level0(0, rows);
      const vb::Value i = level0.index();
      vb::at(scaled, i) = vb::fused([](const auto& a) { return (a * 2 + 1).relu(); }, vb::at(x, i));
      // Over the example's last dim: y's rows kept.
      vb::at(row_squares, i) =
          vb::fused([](const auto& a, const auto& b) { return (a - b).pow(2); }, vb::at(x, i), y)
              .sum(-1);
      // Over its first dim (walked innermost): y's columns kept.
      vb::at(column_squares, i) =
          vb::fused([](const auto& a, const auto& b) { return (a - b).pow(2); }, vb::at(x, i), y)
              .sum(0);
      vb::Level level1(0, y.size(0));
      const vb::Value j = level1.index();
      vb::at(vb::at(squares, i), j) = vb::sum(vb::fused(
          [](const auto& a, const auto& b) { return (a - b).pow(2); }, vb::at(x, i), vb::at(y, j)));
      // Columns: per-example 0-d reads with a stride.
      vb::accumulate(total, vb::fused([](const auto& a, const auto& b) { return a * b; },
                                      vb::at(x.select(1, 0), i), vb::at(y.select(1, 3), j)),
                     vb::Reduce::add);
    }
    const int64_t ops = vmap::detail::op_count() - before;
    expect_close(scaled, (x * 2 + 1).relu());
    expect_close(squares, pairwise_distance_loop(x, y), 1e-4);
    expect_close(row_squares, squares, 1e-4);
    for (int64_t r = 0; r < rows; r += rows / 10)
      expect_close(column_squares[r], (x[r] - y).pow(2).sum(0), 1e-4);
    expect_close(total, x.select(1, 0).sum() * y.select(1, 3).sum(), 1e-4);
    return ops;
  };
  EXPECT_EQ(cost(20), cost(4000));
}

}  // namespace
}  // namespace vmap
