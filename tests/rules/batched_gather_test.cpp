// The batched API's per-example positions (vmap/batched.hpp): reads and writes at indices
// each example computes (`input[i][index[i][j].item<int64_t>()]`, index_select of a
// per-example index), each batched form beside the per-example loop, its cost and its errors.
#include "rules_test_util.hpp"

#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <functional>
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

TEST(BatchedApi, DataDependentReadsGatherAndWritesScatter) {
  Rng rng(2);
  const Tensor table = random(rng, {6, 3});
  const Tensor index = tensor({4, 0, 5, 4});
  Tensor expected = zeros({4, 3}), out = zeros({4, 3});
  Tensor expected_marks = zeros({4, 6}), marks = zeros({4, 6});
  for (int64_t i = 0; i < 4; ++i) {
    expected[i] = table[index[i].item<int64_t>()];
    expected_marks[i][index[i].item<int64_t>()] = 1.0 + i;
  }
  {
    vb::Level level(0, 4);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::at(table, vb::at(index, i).item<int64_t>());
    vb::at(vb::at(marks, i), vb::at(index, i).item<int64_t>()) = 1.0 + i;
  }
  expect_equal(out, expected);
  expect_equal(marks, expected_marks);
}

// input[i][index[i][j].item<int64_t>()] under levels i and j, the row varying along i alone,
// rows of several elements, positions from the end, and the loop's own error past the end.
TEST(BatchedApi, PerExamplePositionsReadRowsOfFewerLevels) {
  Rng rng(21);
  const Tensor input = random(rng, {4, 5, 2});
  const Tensor index = tensor({0, -1, 3, 4, -5, 2, 1, 1, 0, -2, 4, 3}).reshape({4, 3});
  Tensor expected = zeros({4, 3, 2}), out = zeros({4, 3, 2});
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) expected[i][j] = input[i][index[i][j].item<int64_t>()];
  const auto read = [&](const Tensor& positions, Tensor& into) {
    vb::Level level_i(0, 4);
    const vb::Value i = level_i.index();
    vb::Level level_j(0, 3);
    const vb::Value j = level_j.index();
    vb::at(into, i)[j] = vb::at(input, i)[vb::at(positions, i)[j].item<int64_t>()];
  };
  read(index, out);
  expect_equal(out, expected);
  Tensor unused = zeros({4, 3, 2});
  try {
    read(index + 3, unused);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("select: index 6 out of range for dim 0 of size 5"),
              std::string::npos)
        << e.what();
  }
}

// An element of a 1-d example at a per-example position (select_by_gather's picks along
// rows): the rows varying along i, along neither level (a table), the positions along both or
// along j alone; positions from the end; the loop's own error past the end.
TEST(BatchedApi, PerExamplePositionsPickElementsOfRows) {
  Rng rng(22);
  const Tensor input = random(rng, {4, 5}), table = random(rng, {5});
  const Tensor index = tensor({0, -1, 3, 4, -5, 2, 1, 1, 0, -2, 4, 3}).reshape({4, 3});
  const Tensor columns = tensor({2, -1, 0});
  Tensor expected = zeros({4, 3}), expected_table = zeros({4, 3}), expected_columns = zeros({4, 3});
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      expected[i][j] = input[i][index[i][j].item<int64_t>()];
      expected_table[i][j] = table[index[i][j].item<int64_t>()];
      expected_columns[i][j] = input[i][columns[j].item<int64_t>()];
    }
  Tensor out = zeros({4, 3}), out_table = zeros({4, 3}), out_columns = zeros({4, 3});
  const auto read = [&](const Tensor& positions, Tensor& into, Tensor& from_table,
                        Tensor& by_column) {
    vb::Level level_i(0, 4);
    const vb::Value i = level_i.index();
    vb::Level level_j(0, 3);
    const vb::Value j = level_j.index();
    vb::at(into, i)[j] = vb::at(input, i)[vb::at(positions, i)[j].item<int64_t>()];
    vb::at(from_table, i)[j] = vb::at(table, vb::at(positions, i)[j].item<int64_t>());
    vb::at(by_column, i)[j] = vb::at(input, i)[vb::at(columns, j).item<int64_t>()];
  };
  read(index, out, out_table, out_columns);
  expect_equal(out, expected);
  expect_equal(out_table, expected_table);
  expect_equal(out_columns, expected_columns);
  try {
    read(index + 3, out, out_table, out_columns);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("select: index 6 out of range for dim 0 of size 5"),
              std::string::npos)
        << e.what();
  }
}

TEST(BatchedApi, BatchGatherCostsTheSameForAnyBatch) {
  Rng rng(11);
  auto batched_cost = [&](int64_t batch) {
    const Tensor input = random(rng, {batch, 16});
    const Tensor index = test::random_index(rng, {batch, 4}, 16);
    Tensor out = zeros({batch, 4});
    const int64_t before = detail::op_count();
    {
      vb::Level level(0, batch);
      const vb::Value i = level.index();
      vb::at(out, i) = vb::at(input, i).index_select(0, vb::at(index, i));
    }
    const int64_t cost = detail::op_count() - before;
    for (int64_t k = 0; k < batch; ++k) expect_equal(out[k], input[k].index_select(0, index[k]));
    return cost;
  };
  EXPECT_EQ(batched_cost(2), batched_cost(64));
}

// `out[i] = input[i].index_select(0, index[i])` batched against the loop: int64 and int32
// indices, non-contiguous inputs and indices, large enough for the deferred store into out
// (Note [Deferred results]) and small enough to run eagerly.
TEST(BatchedApi, BatchGatherMatchesTheLoop) {
  Rng rng(12);
  for (const int64_t batch : {3, 1500}) {
    for (const Dtype index_dtype : {kInt64, kInt32}) {
      SCOPED_TRACE(::testing::Message() << "batch " << batch << ", index " << index_dtype);
      const Tensor wide = random(rng, {batch, 40});
      const Tensor input = wide.narrow(1, 3, 30);  // rows of 30 with a row stride of 40
      const Tensor index = test::random_index(rng, {32, batch}, 30).t().to(index_dtype);
      Tensor expected = zeros({batch, 32}), out = zeros({batch, 32});
      for (int64_t i = 0; i < batch; ++i) expected[i] = input[i].index_select(0, index[i]);
      {
        vb::Level level(0, batch);
        const vb::Value i = level.index();
        vb::at(out, i) = vb::at(input, i).index_select(0, vb::at(index, i));
      }
      expect_equal(out, expected);
    }
  }
}

// A per-example position read from an empty level (no example: a batch of zero, or a loop
// from 1 to size - 1 over one row) selects nothing and raises nothing, as the loop as
// written runs no example: `out2[i] = x[idx[i][2].item<int64_t>() % x.size(0)] + y[i]`.
// Found by the random sweep (seeds 70024 and 70025): an argmax of no elements, an expand.
TEST(BatchedApi, PerExamplePositionsOfNoExampleSelectNothing) {
  for (const int64_t rows : {int64_t{0}, int64_t{1}}) {
    SCOPED_TRACE(::testing::Message() << rows << " rows");
    const Tensor x = ones({rows, 5}), y = ones({rows, 5}), idx = zeros({rows, 4}, kInt64);
    Tensor out = full({rows, 5}, 0.5);
    vb::Level level(rows == 0 ? 0 : 1, rows == 0 ? 0 : rows - 1);
    const vb::Value i = level.index();
    EXPECT_NO_THROW(vb::at(out, i) =
                        vb::at(x, vb::at(idx, i)[2].item<int64_t>() % x.size(0)) + vb::at(y, i));
    if (rows == 1) EXPECT_EQ(out[0][0].item<float>(), 0.5f);
  }
}

// A bad index of any example raises index_select's message for the example's dim, as the
// per-example loop does: negative, past the end, in the first or a later example; an empty
// index selects nothing.
TEST(BatchedApi, BatchGatherIndexErrorsNameIndexSelect) {
  Rng rng(13);
  for (const int64_t batch : {4, 2000}) {
    const Tensor input = random(rng, {batch, 16});
    for (const int64_t bad : {int64_t{-1}, int64_t{16}, int64_t{1} << 40}) {
      for (const int64_t example : {int64_t{0}, batch - 1}) {
        SCOPED_TRACE(::testing::Message() << "batch " << batch << ", index " << bad
                                          << " in example " << example);
        Tensor index = test::random_index(rng, {batch, 8}, 16);
        index[example][5] = bad;
        const std::string expected = "index_select: index " + std::to_string(bad) +
                                     " out of range for dim 0 of size 16";
        Tensor out = zeros({batch, 8});
        EXPECT_EQ(message_of([&] {
                    for (int64_t i = 0; i < batch; ++i)
                      out[i] = input[i].index_select(0, index[i]);
                  }),
                  expected);
        EXPECT_EQ(message_of([&] {
                    vb::Level level(0, batch);
                    const vb::Value i = level.index();
                    vb::at(out, i) = vb::at(input, i).index_select(0, vb::at(index, i));
                  }),
                  expected);
      }
    }
    Tensor out = zeros({batch, 0});
    const Tensor none = zeros({batch, 0}, kInt64);
    {
      vb::Level level(0, batch);
      const vb::Value i = level.index();
      vb::at(out, i) = vb::at(input, i).index_select(0, vb::at(none, i));
    }
    EXPECT_EQ(out.sizes(), (std::vector<int64_t>{batch, 0}));
  }
}

}  // namespace
}  // namespace vmap
