// dot, mv and matmul of vectors over several vmap levels (Note [Dot products over levels] in
// rules/src/batched/batched_linalg.cpp): each test writes the per-example loop and its batched
// form side by side, and checks the batched result's physical sizes, which show that each
// operand was used over its own levels only (no [n, m, d] expansion).
#include "rules_test_util.hpp"

#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <string>

namespace vmap {
namespace {

namespace vb = vmap::batched;
using test::Rng;

Tensor random(Rng& rng, std::vector<int64_t> sizes, Dtype dtype = kFloat32) {
  return test::random_tensor(rng, sizes, dtype);
}

void expect_equal(const Tensor& actual, const Tensor& expected) {
  test::expect_same(actual, expected, false);
}

class BatchedDot : public ::testing::TestWithParam<Dtype> {};

// out[i][j] = x[i].dot(y[j]): x over level 0 only, y over level 1 only; one x @ y^T.
TEST_P(BatchedDot, DisjointLevelsAreOneProduct) {
  Rng rng(11);
  const Tensor x = random(rng, {5, 33}, GetParam()), y = random(rng, {4, 33}, GetParam());
  Tensor expected = zeros({5, 4}, GetParam()), out = zeros({5, 4}, GetParam());
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 4; ++j) expected[i][j] = x[i].dot(y[j]);
  vb::Level outer(0, 5);
  const vb::Value i = outer.index();
  vb::Level inner(0, 4);
  const vb::Value j = inner.index();
  const vb::Value member = vb::at(x, i).dot(vb::at(y, j));
  EXPECT_EQ(member.physical().sizes().vec(), (std::vector<int64_t>{5, 4}));
  vb::at(out, i)[j] = member;
  expect_equal(out, expected);
  vb::at(out, i)[j] = vb::dot(vb::at(x, i), vb::at(y, j)) + vb::matmul(vb::at(x, i), vb::at(y, j));
  expect_equal(out, expected * 2);
  // y[j].dot(x[i]): the levels in the other order.
  vb::at(out, i)[j] = vb::at(y, j).dot(vb::at(x, i));
  expect_equal(out, expected);
}

// x[i].dot(x[i]) under levels i and j varies over level 0 only: 5 dots, not 20; beside it
// x[i].dot(y[j]) over both levels.
TEST_P(BatchedDot, AnOperandPairOverASubsetOfLevelsStaysThere) {
  Rng rng(12);
  const Tensor x = random(rng, {5, 40}, GetParam()), y = random(rng, {4, 40}, GetParam());
  Tensor expected = zeros({5, 4}, GetParam()), out = zeros({5, 4}, GetParam());
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 4; ++j)
      expected[i][j] = x[i].dot(x[i]) - 2 * x[i].dot(y[j]) + y[j].dot(y[j]);
  vb::Level outer(0, 5);
  const vb::Value i = outer.index();
  vb::Level inner(0, 4);
  const vb::Value j = inner.index();
  const vb::Value squares = vb::at(x, i).dot(vb::at(x, i));
  EXPECT_EQ(squares.levels(), 1);
  EXPECT_EQ(squares.physical().sizes().vec(), (std::vector<int64_t>{5}));
  vb::at(out, i)[j] = squares - 2 * vb::at(x, i).dot(vb::at(y, j)) + vb::at(y, j).dot(vb::at(y, j));
  expect_equal(out, expected);
}

// Both operands over the same levels: each example's own pair, summed per example, also
// when an operand is a pending chain (`d = a - b; d.dot(d)` of a helper).
TEST_P(BatchedDot, SharedLevelsSumEachExamplesProducts) {
  Rng rng(13);
  const Tensor a = random(rng, {5, 4, 300}, GetParam()), b = random(rng, {5, 4, 300}, GetParam());
  const Tensor x = random(rng, {5, 300}, GetParam()), y = random(rng, {4, 300}, GetParam());
  Tensor expected = zeros({5, 4}, GetParam()), out = zeros({5, 4}, GetParam());
  Tensor expected_distance = zeros({5, 4}, GetParam()), distance = zeros({5, 4}, GetParam());
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      expected[i][j] = a[i][j].dot(b[i][j]);
      const Tensor d = x[i] - y[j];
      expected_distance[i][j] = d.dot(d).sqrt();
    }
  vb::Level outer(0, 5);
  const vb::Value i = outer.index();
  vb::Level inner(0, 4);
  const vb::Value j = inner.index();
  vb::at(out, i)[j] = vb::at(vb::at(a, i), j).dot(vb::at(vb::at(b, i), j));
  expect_equal(out, expected);
  const vb::Value d = vb::at(x, i) - vb::at(y, j);
  vb::at(distance, i)[j] = d.dot(d).sqrt();
  expect_equal(distance, expected_distance);
}

// A level both share and one each: a batch (over j) of products (over i).
TEST_P(BatchedDot, SharedAndOwnLevelsTogether) {
  Rng rng(14);
  const Tensor a = random(rng, {5, 4, 9}, GetParam()), y = random(rng, {4, 9}, GetParam());
  Tensor expected = zeros({5, 4}, GetParam()), out = zeros({5, 4}, GetParam());
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 4; ++j) expected[i][j] = a[i][j].dot(y[j]);
  vb::Level outer(0, 5);
  const vb::Value i = outer.index();
  vb::Level inner(0, 4);
  const vb::Value j = inner.index();
  vb::at(out, i)[j] = vb::at(y, j).dot(vb::at(vb::at(a, i), j));
  expect_equal(out, expected);
}

// An operand that is the same for every example (a loop-invariant tensor): one matrix-vector
// product over the batched operand's rows.
TEST_P(BatchedDot, OneOperandUnbatched) {
  Rng rng(15);
  const Tensor x = random(rng, {6, 17}, GetParam()), w = random(rng, {17}, GetParam());
  Tensor expected = zeros({6}, GetParam()), out = zeros({6}, GetParam());
  for (int64_t i = 0; i < 6; ++i) expected[i] = w.dot(x[i]);
  vb::Level level(0, 6);
  const vb::Value i = level.index();
  vb::at(out, i) = vb::Value(w).dot(vb::at(x, i));
  expect_equal(out, expected);
}

// out[i][o] = weight[o].dot(x[i]) (a Linear's inner loop as two levels): x @ weight^T; and
// mv of a per-example matrix by a per-example vector over their own levels.
TEST_P(BatchedDot, MatrixVectorProductsOverTheirOwnLevels) {
  Rng rng(16);
  const Tensor x = random(rng, {6, 12}, GetParam()), weight = random(rng, {5, 12}, GetParam());
  const Tensor matrices = random(rng, {6, 3, 12}, GetParam());
  Tensor expected = zeros({6, 5}, GetParam()), out = zeros({6, 5}, GetParam());
  Tensor expected_mv = zeros({6, 5, 3}, GetParam()), out_mv = zeros({6, 5, 3}, GetParam());
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t o = 0; o < 5; ++o) {
      expected[i][o] = weight[o].dot(x[i]);
      expected_mv[i][o] = matrices[i].mv(weight[o]);
    }
  vb::Level outer(0, 6);
  const vb::Value i = outer.index();
  vb::Level inner(0, 5);
  const vb::Value o = inner.index();
  vb::at(out, i)[o] = vb::at(weight, o).dot(vb::at(x, i));
  expect_equal(out, expected);
  const vb::Value products = vb::at(matrices, i).mv(vb::at(weight, o));
  EXPECT_EQ(products.physical().sizes().vec(), (std::vector<int64_t>{6, 5, 3}));
  vb::at(out_mv, i)[o] = products;
  expect_equal(out_mv, expected_mv);
  vb::at(out_mv, i)[o] = vb::matmul(vb::at(matrices, i), vb::at(weight, o));
  expect_equal(out_mv, expected_mv);
}

// An empty level, and empty vectors: empty products and zero dots, as the loop.
TEST_P(BatchedDot, EmptyLevelsAndVectors) {
  for (const int64_t rows : {int64_t{0}, int64_t{3}})
    for (const int64_t width : {int64_t{0}, int64_t{4}}) {
      const Tensor x = ones({rows, width}, GetParam()), y = ones({2, width}, GetParam());
      Tensor out = full({rows, 2}, 7.0, GetParam());
      {
        vb::Level outer(0, rows);
        const vb::Value i = outer.index();
        vb::Level inner(0, 2);
        const vb::Value j = inner.index();
        vb::at(out, i)[j] = vb::at(x, i).dot(vb::at(y, j)) + vb::at(x, i).dot(vb::at(x, i));
      }
      expect_equal(out, full({rows, 2}, static_cast<double>(2 * width), GetParam()));
    }
}

INSTANTIATE_TEST_SUITE_P(FloatTypes, BatchedDot, ::testing::Values(kFloat32, kFloat64),
                         [](const auto& info) {
                           return info.param == kFloat32 ? "float32" : "float64";
                         });

TEST(BatchedDotErrors, MismatchedSizesNameTheOpAndSizes) {
  const Tensor x = ones({5, 7}), y = ones({4, 6});
  vb::Level outer(0, 5);
  const vb::Value i = outer.index();
  vb::Level inner(0, 4);
  const vb::Value j = inner.index();
  try {
    (void)vb::at(x, i).dot(vb::at(y, j));
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("dot"), std::string::npos) << message;
    EXPECT_NE(message.find("[7]"), std::string::npos) << message;
    EXPECT_NE(message.find("[6]"), std::string::npos) << message;
  }
  // mv of a vector: mv's rank error, not a dot.
  EXPECT_THROW((void)vb::at(x, i).mv(vb::at(x, i)), Error);
}

}  // namespace
}  // namespace vmap
