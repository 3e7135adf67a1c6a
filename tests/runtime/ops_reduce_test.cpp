// Reductions against naive loops over the reduction groups, every dtype, every loop shape of
// the engine (per output, vertical, whole-line split), non-contiguous inputs and edge cases.
#include "ops_reference.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace vmap;
using namespace vmap_test;
using V = std::vector<int64_t>;

namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

std::vector<bool> mask(int64_t rank, std::vector<int64_t> dims) {
  std::vector<bool> result(static_cast<size_t>(rank), dims.empty());
  for (int64_t d : dims) result[(d + rank) % rank] = true;
  return result;
}

std::vector<int64_t> reduced_shape(const Tensor& x, const std::vector<bool>& reduced,
                                   bool keepdim) {
  std::vector<int64_t> result;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!reduced[d]) result.push_back(x.size(d));
    else if (keepdim) result.push_back(1);
  return result;
}

template <class F>
std::vector<double> reference(const Tensor& x, const std::vector<bool>& reduced, F reduce) {
  std::vector<double> result;
  for (const auto& group : reduction_groups(x, reduced)) result.push_back(reduce(group));
  return result;
}

double sum_of(const std::vector<double>& g) { return std::accumulate(g.begin(), g.end(), 0.0); }
double max_of(const std::vector<double>& g) {
  double best = -std::numeric_limits<double>::infinity();
  for (double v : g) {
    if (std::isnan(v)) return v;
    best = std::max(best, v);
  }
  return best;
}
double min_of(const std::vector<double>& g) {
  double best = std::numeric_limits<double>::infinity();
  for (double v : g) {
    if (std::isnan(v)) return v;
    best = std::min(best, v);
  }
  return best;
}
// First position of the max (is_max) or min; the first NaN wins.
double arg_of(const std::vector<double>& g, bool is_max) {
  size_t best = 0;
  for (size_t k = 0; k < g.size(); ++k) {
    if (std::isnan(g[k])) return static_cast<double>(k);
    if (is_max ? g[k] > g[best] : g[k] < g[best]) best = k;
  }
  return static_cast<double>(best);
}

const std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {1}, {2}, {-1}, {0, 2}, {2, 0, 1}};

TEST(OpsReduce, SumEveryDtypeEveryDimSet) {
  for (Dtype dtype : all_dtypes) {
    const Tensor x = random_tensor({3, 4, 5}, dtype);
    const Dtype expected_dtype = detail::is_floating(dtype) ? dtype : kInt64;
    EXPECT_EQ(sum(x).dtype(), expected_dtype);
    EXPECT_EQ(shape(sum(x)), V{});
    expect_close(values(x.sum()), reference(x, mask(3, {}), sum_of));
    for (const auto& dims : dim_sets) {
      for (bool keepdim : {false, true}) {
        SCOPED_TRACE(::testing::Message() << dtype << " dims " << ::testing::PrintToString(dims)
                                          << " keepdim " << keepdim);
        const Tensor result = sum(x, dims, keepdim);
        EXPECT_EQ(result.dtype(), expected_dtype);
        EXPECT_EQ(shape(result), reduced_shape(x, mask(3, dims), keepdim));
        expect_close(values(result), reference(x, mask(3, dims), sum_of));
      }
    }
  }
}

TEST(OpsReduce, NonContiguousInputs) {
  const Tensor base = random_tensor({6, 7, 8}, kFloat32);
  const std::vector<Tensor> inputs = {base.transpose(0, 2), base.permute({1, 2, 0}),
                                      base.narrow(2, 1, 5), base.select(1, 3).unsqueeze(1),
                                      base[0].expand({4, 7, 8}), non_contiguous(base)};
  for (const Tensor& x : inputs) {
    for (const auto& dims : dim_sets) {
      SCOPED_TRACE(::testing::Message() << ::testing::PrintToString(shape(x)) << " dims "
                                        << ::testing::PrintToString(dims));
      const auto reduced = mask(3, dims);
      expect_close(values(sum(x, dims)), reference(x, reduced, sum_of));
      expect_close(values(amax(x, dims)), reference(x, reduced, max_of));
      expect_close(values(amin(x, dims, true)), reference(x, reduced, min_of));
      expect_close(values(mean(x, dims)), reference(x, reduced, [](const auto& g) {
        return sum_of(g) / static_cast<double>(g.size());
      }));
    }
  }
}

TEST(OpsReduce, LargeWholeTensorAndVerticalReductions) {
  // Above the whole-line split threshold; exact: integer-valued floats.
  const Tensor big = random_tensor({1 << 18}, kFloat32, 7, true);
  expect_close(values(big.sum()), reference(big, mask(1, {}), sum_of), 0, 0);
  const Tensor noisy = random_tensor({300001}, kFloat32, 8);
  expect_close(values(noisy.sum()), reference(noisy, mask(1, {}), sum_of), 1e-5, 1e-3);
  expect_close(values(noisy.amax()), reference(noisy, mask(1, {}), max_of));
  expect_close(values(argmin(noisy)), {arg_of(values(noisy), false)});
  // Reducing the outer dim of [rows, 513] runs the vertical loop over 256-wide blocks.
  for (Dtype dtype : all_dtypes) {
    const Tensor x = random_tensor({300, 513}, dtype, 9);
    expect_close(values(x.sum({0})), reference(x, mask(2, {0}), sum_of));
    expect_close(values(x.amax({0})), reference(x, mask(2, {0}), max_of));
    expect_close(values(x.any(0)), reference(x, mask(2, {0}), [](const auto& g) {
      return std::any_of(g.begin(), g.end(), [](double v) { return v != 0; }) ? 1.0 : 0.0;
    }));
    if (dtype != kBool)
      expect_close(values(x.argmax(0)), reference(x, mask(2, {0}), [](const auto& g) {
        return arg_of(g, true);
      }));
  }
}

TEST(OpsReduce, MeanFloatingOnly) {
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const Tensor x = random_tensor({4, 6}, dtype);
    EXPECT_EQ(x.mean().dtype(), dtype);
    expect_close(values(x.mean({1}, true)), reference(x, mask(2, {1}), [](const auto& g) {
      return sum_of(g) / static_cast<double>(g.size());
    }));
  }
  EXPECT_TRUE(std::isnan(mean(empty({0}, kFloat32)).item<float>()));
  EXPECT_EQ(error_of([] { mean(random_tensor({3}, kInt64)); }),
            "mean: could not infer output dtype. Input dtype must be either a floating point or "
            "complex dtype. Got: Long");
  EXPECT_NE(error_of([] { random_tensor({3}, kBool).mean({0}); }), "");
}

TEST(OpsReduce, AmaxAminEveryDtypeAndNan) {
  for (Dtype dtype : all_dtypes) {
    const Tensor x = random_tensor({5, 3, 4}, dtype, 3);
    for (const auto& dims : dim_sets) {
      EXPECT_EQ(amax(x, dims).dtype(), dtype);
      expect_close(values(amax(x, dims)), reference(x, mask(3, dims), max_of));
      expect_close(values(amin(x, dims)), reference(x, mask(3, dims), min_of));
    }
  }
  for (Dtype dtype : {kFloat32, kFloat64}) {
    Tensor x = random_tensor({2, 40}, dtype, 4);
    x[1][17] = nan_value;
    expect_close(values(x.amax({1})), reference(x, mask(2, {1}), max_of));
    expect_close(values(x.amin({1})), reference(x, mask(2, {1}), min_of));
    EXPECT_TRUE(std::isnan(x.amax().item<double>()));
    expect_close(values(x.amax({0})), reference(x, mask(2, {0}), max_of));
  }
  const Tensor inf = tensor({-std::numeric_limits<float>::infinity(), -1.0f});
  EXPECT_EQ(inf.amin().item<float>(), -std::numeric_limits<float>::infinity());
}

TEST(OpsReduce, ArgmaxArgminTiesNanAndFlattening) {
  for (Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    const Tensor x = random_tensor({4, 5, 6}, dtype, 5, true);  // many ties
    for (int64_t dim : {0, 1, 2, -1}) {
      for (bool keepdim : {false, true}) {
        const Tensor result = argmax(x, dim, keepdim);
        EXPECT_EQ(result.dtype(), kInt64);
        EXPECT_EQ(shape(result), reduced_shape(x, mask(3, {dim}), keepdim));
        expect_close(values(result), reference(x, mask(3, {dim}), [](const auto& g) {
          return arg_of(g, true);
        }));
        expect_close(values(x.argmin(dim, keepdim)), reference(x, mask(3, {dim}),
                                                              [](const auto& g) {
          return arg_of(g, false);
        }));
      }
    }
    // Without a dim: the position in the flattened tensor, also for non-contiguous input.
    const Tensor transposed = x.transpose(0, 2);
    EXPECT_EQ(shape(argmax(transposed)), V{});
    EXPECT_EQ(argmax(transposed).item<int64_t>(), arg_of(values(transposed), true));
    EXPECT_EQ(argmin(transposed).item<int64_t>(), arg_of(values(transposed), false));
    EXPECT_EQ(shape(argmax(x, std::nullopt, true)), V({1, 1, 1}));
  }
  const Tensor with_nan = tensor({1.0f, NAN, 7.0f, NAN});
  EXPECT_EQ(with_nan.argmax().item<int64_t>(), 1);
  EXPECT_EQ(with_nan.argmin().item<int64_t>(), 1);
  EXPECT_EQ(tensor({3, 9, 9, 1}).argmax().item<int64_t>(), 1);
  EXPECT_EQ(error_of([] { argmax(tensor({true, false})); }),
            "argmax: not implemented for 'Bool'");
}

TEST(OpsReduce, AnyAllEveryDtype) {
  for (Dtype dtype : all_dtypes) {
    const Tensor x = random_tensor({3, 4, 2}, dtype, 6, true);
    EXPECT_EQ(x.any().dtype(), kBool);
    const auto any_of = [](const auto& g) {
      return std::any_of(g.begin(), g.end(), [](double v) { return v != 0; }) ? 1.0 : 0.0;
    };
    const auto all_of = [](const auto& g) {
      return std::all_of(g.begin(), g.end(), [](double v) { return v != 0; }) ? 1.0 : 0.0;
    };
    expect_close(values(x.any()), reference(x, mask(3, {}), any_of));
    expect_close(values(x.all()), reference(x, mask(3, {}), all_of));
    for (int64_t dim : {0, 1, -1}) {
      expect_close(values(any(x, dim)), reference(x, mask(3, {dim}), any_of));
      expect_close(values(all(x.transpose(0, 1), dim, true)),
                   reference(x.transpose(0, 1), mask(3, {dim}), all_of));
    }
  }
  EXPECT_FALSE(any(empty({0, 3})).item<bool>());
  EXPECT_TRUE(all(empty({0, 3})).item<bool>());
  EXPECT_EQ(values(all(empty({0, 3}), 0)), std::vector<double>({1, 1, 1}));
}

TEST(OpsReduce, ZeroDimAndEmptyTensors) {
  const Tensor scalar = tensor(2.5f);
  EXPECT_EQ(shape(scalar.sum()), V{});
  EXPECT_EQ(scalar.sum({0}).item<float>(), 2.5f);
  EXPECT_EQ(shape(scalar.sum({-1}, true)), V{});
  EXPECT_EQ(scalar.amax({0}).item<float>(), 2.5f);
  EXPECT_EQ(scalar.argmax(0).item<int64_t>(), 0);
  EXPECT_EQ(scalar.argmax().item<int64_t>(), 0);

  const Tensor empty_rows = empty({0, 3}, kInt32);
  EXPECT_EQ(sum(empty_rows).item<int64_t>(), 0);
  EXPECT_EQ(values(sum(empty_rows, {0})), std::vector<double>({0, 0, 0}));
  EXPECT_EQ(shape(sum(empty_rows, {1})), V({0}));
  EXPECT_EQ(shape(amax(empty_rows, {1})), V({0}));
  EXPECT_EQ(error_of([&] { amax(empty_rows, {0}); }),
            "amax: Expected reduction dim 0 to have non-zero size.");
  EXPECT_EQ(error_of([&] { amin(empty_rows); }),
            "amin: Expected reduction dim to be specified for input.numel() == 0.");
  EXPECT_EQ(error_of([&] { argmax(empty_rows); }),
            "argmax: Expected reduction dim to be specified for input.numel() == 0.");
  EXPECT_EQ(error_of([&] { argmin(empty_rows, 0); }),
            "argmin: Expected reduction dim 0 to have non-zero size.");
}

TEST(OpsReduce, BadDims) {
  const Tensor x = random_tensor({2, 3}, kFloat32);
  EXPECT_EQ(error_of([&] { sum(x, {0, -2}); }),
            "sum: dim 0 appears multiple times in the list of dims");
  EXPECT_EQ(error_of([&] { sum(x, {2}); }),
            "sum: dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_NE(error_of([&] { argmax(x, -3); }).find("argmax: dimension out of range"),
            std::string::npos);
  EXPECT_NE(error_of([&] { any(x, 5); }).find("any: dimension out of range"), std::string::npos);
  EXPECT_EQ(error_of([] { sum(Tensor()); }), "sum: undefined tensor");
}

}  // namespace

namespace {

// Many short lines reduced at once (a vector of lines per add) give each line's own sum, bit
// for bit: what a per-example sum and its batched form must agree on.
TEST(OpsReduce, ShortLinesSumAsOneLineAtATime) {
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (int64_t width = 1; width <= 20; ++width) {
      SCOPED_TRACE(::testing::Message() << dtype << " width " << width);
      const Tensor wide = random_tensor({4, 37, width + 3}, dtype, width);
      for (const Tensor& x : {wide.narrow(2, 0, width).contiguous(), wide.narrow(2, 2, width),
                              wide.narrow(2, 1, width).transpose(0, 1)}) {
        const Tensor sums = x.sum({-1}), means = x.mean({2});
        for (int64_t i = 0; i < x.size(0); ++i)
          for (int64_t j = 0; j < x.size(1); ++j) {
            ASSERT_TRUE(equal(sums[i][j], x[i][j].sum())) << i << "," << j;
            ASSERT_TRUE(equal(means[i][j], x[i][j].mean())) << i << "," << j;
          }
        expect_close(values(sums), reference(x, mask(3, {2}), sum_of), 1e-5, 1e-4);
      }
    }
  }
}

}  // namespace
