// Sums and means of compiled fused kernels over short examples, side by side along a level
// dim (Note [Short examples summed side by side] in rules/include/vmap/fused.hpp), and long
// ones: each checked against the same lambda run by the batched ops (the unfused path) and,
// where small, the per-example loop in plain runtime ops.
#include "omp_threads.hpp"
#include "rules_test_util.hpp"

#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace vmap {
namespace {

namespace vb = vmap::batched;
using test::Rng;

void expect_close(const Tensor& actual, const Tensor& expected, double rtol = 1e-5) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  EXPECT_TRUE(vmap::allclose(actual, expected, rtol, 1e-5, /*equal_nan=*/true))
      << actual << "\n" << expected;
}

enum class Path { compiled, batched };

// out[i][j] = reduce_k (a[i] - b[j])^2: the rewrite of a pairwise distance, through either path.
Tensor distances(const Tensor& a, const Tensor& b, bool mean, Path path) {
  Tensor out = zeros({a.size(0), b.size(0)}, a.dtype());
  vb::Level level0(0, a.size(0));
  const vb::Value i = level0.index();
  vb::Level level1(0, b.size(0));
  const vb::Value j = level1.index();
  auto chain = vb::fused([](const auto& x, const auto& y) { return (x - y).pow(2); },
                         vb::at(a, i), vb::at(b, j));
  if (path == Path::compiled)
    vb::at(vb::at(out, i), j) = mean ? chain.mean() : chain.sum();
  else
    vb::at(vb::at(out, i), j) = mean ? chain.batched().mean() : chain.batched().sum();
  return out;
}

void expect_paths_agree(const Tensor& a, const Tensor& b, bool mean = false) {
  expect_close(distances(a, b, mean, Path::compiled), distances(a, b, mean, Path::batched), 1e-4);
}

TEST(FusedReduction, ShortAndLongExamplesOverRowsOfEveryLength) {
  Rng rng(21);
  // 256 elements and fewer are summed side by side; 513 and 1100 rows span several row
  // blocks (512) with a partial last one.
  for (int64_t width : {1, 10, 255, 256, 257, 1000})
    for (int64_t rows : {1, 7, 513, 1100}) {
      SCOPED_TRACE(testing::Message() << rows << " rows of width " << width);
      const Tensor x = test::random_tensor(rng, {3, width}, kFloat32);
      const Tensor y = test::random_tensor(rng, {rows, width}, kFloat32);
      expect_paths_agree(x, y);
    }
}

TEST(FusedReduction, RowsOfShortExamplesInFloat32AndFloat64) {
  Rng rng(25);
  // Rows of examples around a vector's and 64 floats' widths, in both types, examples of
  // one element (every operand broadcasts along the innermost dim), of three (a pair of
  // elements per pass over the row and one left: Fused::sum_row) and of ten.
  for (const Dtype dtype : {kFloat32, kFloat64})
    for (int64_t rows : {3, 4, 8, 9, 31, 32, 33, 63, 64, 65, 71, 200})
      for (int64_t width : {1, 3, 10}) {
        SCOPED_TRACE(testing::Message() << dtype << ", " << rows << " rows of width " << width);
        const Tensor x = test::random_tensor(rng, {5, width}, dtype);
        const Tensor y = test::random_tensor(rng, {rows, width}, dtype);
        expect_paths_agree(x, y);
        expect_paths_agree(x, y, /*mean=*/true);
      }
}

// Whole runs of the innermost dim that follow each other are one call of the kernel's loop;
// a range that starts or ends inside a run (a whole sum's chunks of ~4096 positions, not
// multiples of a run) and runs that carry into the dim above must still be summed and
// stored once each.
TEST(FusedReduction, ManyShortRunsInOneCall) {
  Rng rng(26);
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1, 5}, {3, 1, 5}, {7, 33, 29}, {17, 33, 29}, {2, 300, 70}};
  for (const std::vector<int64_t>& sizes : shapes)
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(testing::Message() << sizes[0] << "x" << sizes[1] << "x" << sizes[2] << " on "
                                      << threads << " threads");
      vmap_test::OmpThreads omp(threads);
      const Tensor x = test::random_tensor(rng, {sizes[0]}, kFloat32);
      const Tensor y = test::random_tensor(rng, {sizes[1]}, kFloat32);
      const Tensor z = test::random_tensor(rng, {sizes[2]}, kFloat32);
      Tensor total = zeros({}, kFloat64);
      Tensor out = zeros(sizes, kFloat32);
      {
        vb::Level level0(0, sizes[0]);
        const vb::Value i = level0.index();
        vb::Level level1(0, sizes[1]);
        const vb::Value j = level1.index();
        vb::Level level2(0, sizes[2]);
        const vb::Value k = level2.index();
        auto chain =
            vb::fused([](const auto& a, const auto& b, const auto& c) { return a * b - c; },
                      vb::at(x, i), vb::at(y, j), vb::at(z, k));
        vb::accumulate(total, chain, vb::Reduce::add);
        vb::at(vb::at(vb::at(out, i), j), k) = chain;
      }
      const float *xs = x.data_ptr<float>(), *ys = y.data_ptr<float>(), *zs = z.data_ptr<float>();
      const float* stored = out.data_ptr<float>();
      double expected = 0;
      for (int64_t a = 0; a < sizes[0]; ++a)
        for (int64_t b = 0; b < sizes[1]; ++b)
          for (int64_t c = 0; c < sizes[2]; ++c) {
            const float element = xs[a] * ys[b] - zs[c];
            expected += element;
            ASSERT_NEAR(stored[(a * sizes[1] + b) * sizes[2] + c], element, 1e-6)
                << a << ", " << b << ", " << c;
          }
      EXPECT_NEAR(total.item<double>(), expected, 1e-5 * (1 + std::abs(expected)));
    }
}

// `total = total + x[i] * y[j]` (vb::accumulate_rebinding of a fused chain) runs as the
// compiled sum `total += ...` does, and still rebinds as the assignment as written: total is
// a new tensor of the promoted dtype, its old handle's copies keep 0, and no example running
// assigns nothing.
TEST(FusedReduction, AssignedSumRebindsThroughTheCompiledKernel) {
  Rng rng(31);
  const Tensor x = test::random_tensor(rng, {37}, kFloat32);
  const Tensor y = test::random_tensor(rng, {23}, kFloat32);
  const auto run = [&](Tensor& total, int64_t rows, Path path) {
    vb::Level level0(0, rows);
    const vb::Value i = level0.index();
    vb::Level level1(0, y.size(0));
    const vb::Value j = level1.index();
    auto chain = vb::fused([](const auto& a, const auto& b) { return a * b; }, vb::at(x, i),
                           vb::at(y, j));
    if (path == Path::compiled)
      vb::accumulate_rebinding(total, chain, vb::Reduce::sub);
    else
      vb::accumulate_rebinding(total, chain.batched(), vb::Reduce::sub);
  };
  for (Dtype dtype : {kInt64, kFloat64}) {
    Tensor compiled = full({}, 2, dtype), batched = full({}, 2, dtype);
    const Tensor kept = compiled;
    run(compiled, x.size(0), Path::compiled);
    run(batched, x.size(0), Path::batched);
    EXPECT_EQ(compiled.dtype(), dtype == kInt64 ? kFloat32 : kFloat64);
    expect_close(compiled, batched, 1e-4);
    EXPECT_EQ(kept.dtype(), dtype);
    EXPECT_EQ(kept.item<double>(), 2);
    Tensor none = full({}, 2, dtype);
    const Tensor before = none;
    run(none, 0, Path::compiled);
    EXPECT_TRUE(none.is_same(before));
  }
}

TEST(FusedReduction, AgreesWithThePerExampleLoop) {
  Rng rng(22);
  const Tensor x = test::random_tensor(rng, {4, 10}, kFloat32);
  const Tensor y = test::random_tensor(rng, {9, 10}, kFloat32);
  Tensor expected = zeros({4, 9});
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 9; ++j) expected[i][j] = (x[i] - y[j]).pow(2).sum();
  expect_close(distances(x, y, false, Path::compiled), expected);
}

TEST(FusedReduction, MeanInFloat32AndFloat64) {
  Rng rng(23);
  for (Dtype dtype : {kFloat32, kFloat64})
    for (int64_t width : {5, 300}) {
      SCOPED_TRACE(testing::Message() << dtype << " width " << width);
      const Tensor x = test::random_tensor(rng, {6, width}, dtype);
      const Tensor y = test::random_tensor(rng, {40, width}, dtype);
      expect_paths_agree(x, y, /*mean=*/true);
      Tensor expected = zeros({6, 40}, dtype);
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 40; ++j) expected[i][j] = (x[i] - y[j]).pow(2).mean();
      expect_close(distances(x, y, true, Path::compiled), expected);
    }
}

TEST(FusedReduction, TransposedAndNarrowedOperands) {
  Rng rng(24);
  const Tensor x = test::random_tensor(rng, {12, 30}, kFloat32);
  const Tensor y_columns = test::random_tensor(rng, {12, 50}, kFloat32);
  const Tensor y = y_columns.t();              // [50, 12]: rows of stride 1 x 50
  const Tensor x_narrow = x.narrow(1, 5, 12);  // [12, 12] inside rows of 30
  const Tensor y_narrow =
      test::random_tensor(rng, {80, 20}, kFloat32).narrow(0, 10, 50).narrow(1, 4, 12);
  expect_paths_agree(x_narrow, y);
  expect_paths_agree(x_narrow, y_narrow);
  expect_paths_agree(y, x_narrow);  // the strided operand on the other side
  expect_paths_agree(x.t().narrow(0, 0, 7), x.t().narrow(0, 7, 9));  // both strided
}

// One level dim: the loop-invariant operand broadcasts along the examples, on either side
// of the op, and the per-example one is packed once.
TEST(FusedReduction, BroadcastOnEachSide) {
  Rng rng(25);
  const Tensor x = test::random_tensor(rng, {37, 9}, kFloat32);
  const Tensor c = test::random_tensor(rng, {9}, kFloat32);
  for (bool invariant_first : {false, true}) {
    SCOPED_TRACE(invariant_first ? "c - x[i]" : "x[i] - c");
    Tensor out = zeros({37}), batched_out = zeros({37});
    {
      vb::Level level(0, 37);
      const vb::Value i = level.index();
      const auto kernel = [](const auto& a, const auto& b) { return (a - b) * a; };
      const vb::Value left = invariant_first ? vb::Value(c) : vb::at(x, i);
      const vb::Value right = invariant_first ? vb::at(x, i) : vb::Value(c);
      vb::at(out, i) = vb::fused(kernel, left, right).sum();
      vb::at(batched_out, i) = vb::fused(kernel, left, right).batched().sum();
    }
    Tensor expected = zeros({37});
    for (int64_t i = 0; i < 37; ++i)
      expected[i] = invariant_first ? ((c - x[i]) * c).sum() : ((x[i] - c) * x[i]).sum();
    expect_close(out, expected);
    expect_close(out, batched_out);
  }
}

// Three level dims: the innermost (k) is summed along; w varies along the outer levels and
// along k with a stride (packed per row), y only along j (a broadcast along the row), z
// along k with stride 1.
TEST(FusedReduction, SeveralLevelDims) {
  Rng rng(26);
  const int64_t n = 3, m = 4, p = 21, d = 6;
  const Tensor w = test::random_tensor(rng, {n, p, d}, kFloat32);
  const Tensor y = test::random_tensor(rng, {m, d}, kFloat32);
  const Tensor z = test::random_tensor(rng, {d, p}, kFloat32).t();  // [p, d], stride 1 along k
  Tensor out = zeros({n, m, p}), batched_out = zeros({n, m, p});
  {
    vb::Level level0(0, n);
    const vb::Value i = level0.index();
    vb::Level level1(0, m);
    const vb::Value j = level1.index();
    vb::Level level2(0, p);
    const vb::Value k = level2.index();
    auto chain = vb::fused([](const auto& a, const auto& b, const auto& c) { return a * b - c; },
                           vb::at(vb::at(w, i), k), vb::at(y, j), vb::at(z, k));
    vb::at(vb::at(vb::at(out, i), j), k) = chain.sum();
    vb::at(vb::at(vb::at(batched_out, i), j), k) = chain.batched().sum();
  }
  Tensor expected = zeros({n, m, p});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      for (int64_t k = 0; k < p; ++k) expected[i][j][k] = (w[i][k] * y[j] - z[k]).sum();
  expect_close(out, expected);
  expect_close(out, batched_out);
}

TEST(FusedReduction, EmptyDims) {
  Rng rng(27);
  const Tensor x = test::random_tensor(rng, {4, 3}, kFloat32);
  const Tensor y = test::random_tensor(rng, {5, 3}, kFloat32);
  expect_paths_agree(x.narrow(0, 0, 0), y);  // no examples along i
  expect_paths_agree(x, y.narrow(0, 0, 0));  // none along j
  // Examples of no elements: a sum of 0, a mean of nan, as the eager ops give.
  const Tensor empty_x = x.narrow(1, 0, 0), empty_y = y.narrow(1, 0, 0);
  expect_close(distances(empty_x, empty_y, false, Path::compiled), zeros({4, 5}));
  expect_paths_agree(empty_x, empty_y, /*mean=*/true);
}

// Each example is summed by one thread in its elements' order: the same bits on 1 and 2
// threads, short examples and long.
TEST(FusedReduction, ResultDoesNotDependOnTheThreadCount) {
  Rng rng(28);
  for (int64_t width : {16, 700}) {
    SCOPED_TRACE(testing::Message() << "width " << width);
    const Tensor x = test::random_tensor(rng, {200, width}, kFloat32);
    const Tensor y = test::random_tensor(rng, {600, width}, kFloat32);
    Tensor one, two;
    {
      vmap_test::OmpThreads threads(1);
      one = distances(x, y, false, Path::compiled);
    }
    {
      vmap_test::OmpThreads threads(2);
      two = distances(x, y, false, Path::compiled);
    }
    EXPECT_TRUE(vmap::equal(one, two));
    expect_close(one, distances(x, y, false, Path::batched), 1e-4);
  }
}

}  // namespace
}  // namespace vmap
