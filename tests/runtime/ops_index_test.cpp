// gather and index_select against naive loops: every dtype, every dim, int32/int64 indices,
// non-contiguous operands, 0-d and empty cases, and the bounds-check messages.
#include "ops_reference.hpp"

#include <functional>
#include <random>

using namespace vmap;
using namespace vmap_test;
using V = std::vector<int64_t>;

namespace {

Tensor random_indices(std::vector<int64_t> sizes, int64_t high, Dtype dtype = kInt64,
                      unsigned seed = 11) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<int64_t> pick(0, high - 1);
  Tensor t = empty(sizes, dtype);
  for (int64_t k = 0; k < t.numel(); ++k) {
    if (dtype == kInt64) t.data_ptr<int64_t>()[k] = pick(engine);
    else t.data_ptr<int32_t>()[k] = static_cast<int32_t>(pick(engine));
  }
  return t;
}

// Row-major multi-index of flat position k.
std::vector<int64_t> unravel(int64_t k, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> index(sizes.size());
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    index[d] = k % sizes[d];
    k /= sizes[d];
  }
  return index;
}

int64_t ravel(const std::vector<int64_t>& index, const std::vector<int64_t>& sizes) {
  int64_t k = 0;
  for (size_t d = 0; d < sizes.size(); ++d) k = k * sizes[d] + index[d];
  return k;
}

std::vector<double> naive_gather(const Tensor& self, int64_t dim, const Tensor& index) {
  const auto self_values = values(self), index_values = values(index);
  const auto self_sizes = shape(self), index_sizes = shape(index);
  std::vector<double> result;
  for (size_t k = 0; k < index_values.size(); ++k) {
    auto position = unravel(static_cast<int64_t>(k), index_sizes);
    position[dim] = static_cast<int64_t>(index_values[k]);
    result.push_back(self_values[ravel(position, self_sizes)]);
  }
  return result;
}

std::vector<double> naive_index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const auto self_values = values(self), index_values = values(index);
  auto out_sizes = shape(self);
  out_sizes[dim] = static_cast<int64_t>(index_values.size());
  int64_t numel = 1;
  for (int64_t s : out_sizes) numel *= s;
  std::vector<double> result;
  for (int64_t k = 0; k < numel; ++k) {
    auto position = unravel(k, out_sizes);
    position[dim] = static_cast<int64_t>(index_values[position[dim]]);
    result.push_back(self_values[ravel(position, shape(self))]);
  }
  return result;
}

TEST(OpsIndex, GatherEveryDtypeAndDim) {
  for (Dtype dtype : all_dtypes) {
    const Tensor self = random_tensor({4, 5, 6}, dtype);
    for (int64_t dim : {0, 1, 2}) {
      SCOPED_TRACE(::testing::Message() << dtype << " dim " << dim);
      // Index smaller than self in the other dims, larger along dim (repeats allowed).
      V index_sizes = {3, 4, 5};
      index_sizes[dim] = 9;
      const Tensor index = random_indices(index_sizes, self.size(dim));
      const Tensor result = gather(self, dim, index);
      EXPECT_EQ(result.dtype(), dtype);
      EXPECT_EQ(shape(result), index_sizes);
      EXPECT_EQ(values(result), naive_gather(self, dim, index));
      EXPECT_EQ(values(self.gather(dim - 3, index)), naive_gather(self, dim, index));
      EXPECT_EQ(values(gather(non_contiguous(self), dim, non_contiguous(index))),
                naive_gather(self, dim, index));
    }
  }
}

TEST(OpsIndex, IndexSelectEveryDtypeDimAndIndexType) {
  for (Dtype dtype : all_dtypes) {
    const Tensor self = random_tensor({4, 5, 6}, dtype);
    for (int64_t dim : {0, 1, 2}) {
      for (Dtype index_dtype : {kInt64, kInt32}) {
        SCOPED_TRACE(::testing::Message() << dtype << " dim " << dim << " " << index_dtype);
        const Tensor index = random_indices({7}, self.size(dim), index_dtype);
        const Tensor result = index_select(self, dim, index);
        V expected_shape = shape(self);
        expected_shape[dim] = 7;
        EXPECT_EQ(shape(result), expected_shape);
        EXPECT_EQ(result.dtype(), dtype);
        EXPECT_EQ(values(result), naive_index_select(self, dim, index));
        EXPECT_EQ(values(self.index_select(dim - 3, non_contiguous(index))),
                  naive_index_select(self, dim, index));
        EXPECT_EQ(values(index_select(non_contiguous(self), dim, index)),
                  naive_index_select(self, dim, index));
      }
    }
  }
  // A 0-d index selects one slice but keeps the dim (as LibTorch).
  const Tensor self = random_tensor({3, 4}, kFloat32);
  EXPECT_EQ(shape(index_select(self, 1, tensor(int64_t{2}))), V({3, 1}));
  EXPECT_EQ(values(index_select(self, 1, tensor(int64_t{2}))), values(self.select(1, 2)));
}

TEST(OpsIndex, TensorSubscriptUsesIndexSelect) {
  const Tensor self = random_tensor({5, 3}, kInt64);
  const Tensor index = tensor({{4, 0}, {2, 2}});
  const Tensor picked = self[index];
  EXPECT_EQ(shape(picked), V({2, 2, 3}));
  EXPECT_EQ(values(picked), naive_index_select(self, 0, index.reshape({4})));
}

TEST(OpsIndex, ZeroDimAndEmpty) {
  const Tensor scalar = tensor(3.5);
  EXPECT_EQ(shape(index_select(scalar, 0, tensor({int64_t{0}}))), V{});
  EXPECT_EQ(index_select(scalar, -1, tensor({int64_t{0}})).item<double>(), 3.5);
  EXPECT_EQ(gather(scalar, 0, tensor(int64_t{0})).item<double>(), 3.5);
  const Tensor self = random_tensor({3, 4}, kFloat32);
  EXPECT_EQ(shape(index_select(self, 0, empty({0}, kInt64))), V({0, 4}));
  EXPECT_EQ(shape(gather(self, 1, empty({3, 0}, kInt64))), V({3, 0}));
  EXPECT_EQ(shape(gather(empty({0, 4}), 1, empty({0, 2}, kInt64))), V({0, 2}));
}

// Sizes that split the copy over threads with chunks starting in the middle of a dim (the
// kernel steps row to row from each chunk's first row), for each fast path: whole rows copied
// (index_select along an outer dim), picks along contiguous rows (gather and index_select along
// the last dim), and the general strided walk (non-contiguous self, gather along an outer dim,
// an expanded index with stride 0).
TEST(OpsIndex, ThreadedFastPathsMatchNaiveLoops) {
  const Tensor self = random_tensor({63, 41, 40}, kFloat32, 4);
  for (int64_t dim : {0, 1, 2}) {
    SCOPED_TRACE(::testing::Message() << "dim " << dim);
    V index_sizes = {63, 41, 40};
    index_sizes[dim] = 50;
    const Tensor index = random_indices(index_sizes, self.size(dim), kInt64, 21);
    EXPECT_EQ(values(gather(self, dim, index)), naive_gather(self, dim, index));
    EXPECT_EQ(values(gather(non_contiguous(self), dim, index)), naive_gather(self, dim, index));
    for (Dtype index_dtype : {kInt64, kInt32}) {
      const Tensor picks = random_indices({50}, self.size(dim), index_dtype, 22);
      EXPECT_EQ(values(index_select(self, dim, picks)), naive_index_select(self, dim, picks));
      EXPECT_EQ(values(index_select(non_contiguous(self), dim, picks)),
                naive_index_select(self, dim, picks));
    }
  }
  // The batch gather of the samples: [1024, 256] rows, 32 picks each, along the last dim.
  const Tensor rows = random_tensor({1024, 256}, kFloat64, 5);
  const Tensor picks = random_indices({1024, 32}, 256, kInt64, 6);
  EXPECT_EQ(values(gather(rows, 1, picks)), naive_gather(rows, 1, picks));
  EXPECT_EQ(values(gather(rows, -1, picks.t().contiguous().t())), naive_gather(rows, 1, picks));
  // An index expanded along dim 0 (stride 0) is checked and used like its contiguous copy.
  const Tensor shared = random_indices({1, 32}, 256, kInt64, 7).expand({1024, 32});
  EXPECT_EQ(values(gather(rows, 1, shared)), naive_gather(rows, 1, shared.contiguous()));
  Tensor bad = random_indices({1, 32}, 256, kInt64, 7);
  bad[0][31] = int64_t{256};
  EXPECT_EQ(error_of([&] { gather(rows, 1, bad.expand({1024, 32})); }),
            "gather: index 256 out of range for dim 1 of size 256");
  // float32 rows check their indices a vector at a time before picking: an index out of
  // range is caught (2^33 too, which an int32 narrowing would make 0), in the vectors and in
  // the tail.
  const Tensor floats = random_tensor({4, 256}, kFloat32, 9);
  Tensor wild = random_indices({4, 37}, 256, kInt64, 10);
  EXPECT_EQ(values(gather(floats, 1, wild)), naive_gather(floats, 1, wild));
  for (int64_t position : {3, 36}) {
    for (int64_t index : {int64_t{-1}, int64_t{256}, int64_t{1} << 33}) {
      Tensor broken = wild.clone();
      broken[2][position] = index;
      EXPECT_EQ(error_of([&] { gather(floats, 1, broken); }),
                "gather: index " + std::to_string(index) + " out of range for dim 1 of size 256");
    }
  }
  // Picks along the last dim go a run of rows at a time: rank 3 (runs end where the dim
  // before the last wraps), an index with a row stride of its own, and a bad index in the
  // middle of a run, in the vectors or in the tail.
  const Tensor blocks = random_tensor({5, 7, 40}, kFloat32, 12);
  const Tensor wide_picks = random_indices({5, 7, 50}, 40, kInt64, 13);
  const Tensor strided_picks = wide_picks.narrow(2, 4, 35);
  EXPECT_EQ(values(gather(blocks, 2, strided_picks)),
            naive_gather(blocks, 2, strided_picks.contiguous()));
  EXPECT_EQ(values(gather(non_contiguous(blocks), 2, strided_picks)),
            naive_gather(blocks, 2, strided_picks.contiguous()));
  for (int64_t position : {2, 34}) {
    Tensor broken = strided_picks.clone();
    broken[3][4][position] = int64_t{-3};
    EXPECT_EQ(error_of([&] { gather(blocks, 2, broken); }),
              "gather: index -3 out of range for dim 2 of size 40");
  }
  Tensor bad_picks = random_indices({100000}, 4096, kInt32, 8);
  bad_picks[77777] = -1;
  EXPECT_EQ(error_of([&] { index_select(random_tensor({4096, 2}, kInt32), 0, bad_picks); }),
            "index_select: index -1 out of range for dim 0 of size 4096");
}

// Note [Results into a destination]: gathers copy into a destination that fits and overlaps
// neither the source nor the index, with the same values; otherwise they leave it alone.
TEST(OpsIndex, ResultsIntoADestination) {
  auto computed_into = [](const Tensor& destination, const std::function<Tensor()>& op) {
    detail::ResultInto into(destination);
    return op();
  };
  const Tensor source = random_tensor({30, 40}, kFloat32);
  const Tensor index = random_indices({30, 25}, 40), rows = random_indices({12}, 30);
  const Tensor gathered = zeros({30, 25}), selected = zeros({12, 40});
  EXPECT_EQ(computed_into(gathered, [&] { return source.gather(1, index); }).raw_data(),
            gathered.raw_data());
  EXPECT_TRUE(equal(gathered, source.gather(1, index)));
  EXPECT_EQ(computed_into(selected, [&] { return source.index_select(0, rows); }).raw_data(),
            selected.raw_data());
  EXPECT_TRUE(equal(selected, source.index_select(0, rows)));
  // Other dtype, not contiguous, or the source itself: a new tensor.
  const Tensor doubles = zeros({30, 25}, kFloat64), transposed = zeros({25, 30}).t();
  for (const Tensor& out : {doubles, transposed}) {
    const Tensor result = computed_into(out, [&] { return source.gather(1, index); });
    EXPECT_NE(result.raw_data(), out.raw_data());
    EXPECT_TRUE(equal(result, source.gather(1, index)));
    EXPECT_EQ(out.abs().sum().item<double>(), 0.0);
  }
  const Tensor square = random_tensor({30, 30}, kFloat32), before = square.clone();
  const Tensor shuffle = random_indices({30, 30}, 30);
  const Tensor result = computed_into(square, [&] { return square.gather(1, shuffle); });
  EXPECT_TRUE(equal(result, before.gather(1, shuffle)));
  EXPECT_TRUE(equal(square, before));
}

TEST(OpsIndex, BoundsAndArgumentErrors) {
  const Tensor self = random_tensor({3, 4}, kFloat32);
  EXPECT_EQ(error_of([&] { gather(self, 1, tensor({{0, 7}, {1, 2}})); }),
            "gather: index 7 out of range for dim 1 of size 4");
  EXPECT_EQ(error_of([&] { gather(self, 0, tensor({{0, 1}, {-1, 2}})); }),
            "gather: index -1 out of range for dim 0 of size 3");
  EXPECT_EQ(error_of([&] { index_select(self, 0, tensor({0, 3})); }),
            "index_select: index 3 out of range for dim 0 of size 3");
  EXPECT_EQ(error_of([&] { index_select(self, 1, tensor({1, -2}).to(kInt32)); }),
            "index_select: index -2 out of range for dim 1 of size 4");
  EXPECT_EQ(error_of([&] { self[tensor({5})]; }),
            "index_select: index 5 out of range for dim 0 of size 3");
  // Nothing is in range of an empty dim, not even 0.
  EXPECT_EQ(error_of([&] { index_select(empty({0, 3}), 0, tensor({0})); }),
            "index_select: index 0 out of range for dim 0 of size 0");
  EXPECT_EQ(error_of([&] { gather(empty({2, 0}), 1, zeros({2, 1}, kInt64)); }),
            "gather: index 0 out of range for dim 1 of size 0");
  // Large index tensors are checked inside the threaded kernel; the first bad one is named.
  Tensor big_index = random_indices({2000, 4}, 4);
  big_index[1500][1] = int64_t{9};
  big_index[1700][2] = int64_t{-3};
  EXPECT_EQ(error_of([&] { gather(random_tensor({2000, 4}, kFloat32), 1, big_index); }),
            "gather: index 9 out of range for dim 1 of size 4");

  EXPECT_EQ(error_of([&] { gather(self, 1, tensor({{0, 1}}).to(kInt32)); }),
            "gather: Expected dtype int64 for index, but got Int");
  EXPECT_EQ(error_of([&] { gather(self, 1, tensor({0, 1})); }),
            "gather: Index tensor must have the same number of dimensions as input tensor, but "
            "got [2] and [3, 4]");
  EXPECT_EQ(error_of([&] { gather(self, 1, empty({4, 1}, kInt64)); }),
            "gather: Size does not match at dimension 0 expected index [4, 1] to be smaller than "
            "self [3, 4] apart from dimension 1");
  EXPECT_EQ(error_of([&] { index_select(self, 0, tensor({1.0f})); }),
            "index_select: Expected dtype int32 or int64 for index, but got Float");
  EXPECT_EQ(error_of([&] { index_select(self, 0, tensor({{0}})); }),
            "index_select: Index is supposed to be a vector, but got [1, 1]");
  EXPECT_EQ(error_of([&] { index_select(tensor(1.0f), 0, tensor({0, 0})); }),
            "index_select: Index to scalar can have only 1 value, got 2 value(s)");
  EXPECT_NE(error_of([&] { index_select(self, 2, tensor({0})); }).find("index_select: dimension"),
            std::string::npos);
}

}  // namespace
