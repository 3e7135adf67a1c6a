// Shared by the ops_* tests: inputs of every dtype (filled by hand, not by the runtime's
// factories), element reads as double, and naive reference loops.
#pragma once

#include "test_util.hpp"

#include <cmath>
#include <random>
#include <vector>

namespace vmap_test {

inline const std::vector<vmap::Dtype> all_dtypes = {vmap::kFloat32, vmap::kFloat64, vmap::kInt32,
                                                    vmap::kInt64, vmap::kBool};

// Row-major elements of any tensor as double (exact for the small integers used here).
inline std::vector<double> values(const vmap::Tensor& t) {
  switch (t.dtype()) {
    case vmap::kFloat32: {
      auto v = elements<float>(t);
      return {v.begin(), v.end()};
    }
    case vmap::kFloat64: return elements<double>(t);
    case vmap::kInt32: {
      auto v = elements<int32_t>(t);
      return {v.begin(), v.end()};
    }
    case vmap::kInt64: {
      auto v = elements<int64_t>(t);
      return {v.begin(), v.end()};
    }
    case vmap::kBool: {
      auto v = elements<bool>(t);
      return {v.begin(), v.end()};
    }
  }
  return {};
}

// A contiguous tensor of `dtype` with values drawn by a fixed seed: floats in [-4, 4),
// integers in [-5, 5], bools fair coins. `small_ints` gives floats integer values (exact sums).
inline vmap::Tensor random_tensor(std::vector<int64_t> sizes, vmap::Dtype dtype,
                                  unsigned seed = 1, bool small_ints = false) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> real(-4.0, 4.0);
  std::uniform_int_distribution<int> integer(-5, 5);
  vmap::Tensor t = vmap::empty(sizes, dtype);
  const int64_t n = t.numel();
  for (int64_t k = 0; k < n; ++k) {
    const double r = small_ints ? integer(engine) : real(engine);
    const int i = integer(engine);
    switch (dtype) {
      case vmap::kFloat32: t.data_ptr<float>()[k] = static_cast<float>(r); break;
      case vmap::kFloat64: t.data_ptr<double>()[k] = r; break;
      case vmap::kInt32: t.data_ptr<int32_t>()[k] = i; break;
      case vmap::kInt64: t.data_ptr<int64_t>()[k] = i; break;
      case vmap::kBool: t.data_ptr<bool>()[k] = i > 0; break;
    }
  }
  return t;
}

// For each output position (row-major over the dims not in `reduced`), the input values that
// reduce into it, in row-major input order.
inline std::vector<std::vector<double>> reduction_groups(const vmap::Tensor& x,
                                                         const std::vector<bool>& reduced) {
  const std::vector<int64_t> sizes = x.sizes().vec();
  const std::vector<double> data = values(x);
  int64_t groups = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (!reduced[d]) groups *= sizes[d];
  std::vector<std::vector<double>> result(static_cast<size_t>(groups));
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t k = 0; k < data.size(); ++k) {
    int64_t group = 0;
    for (size_t d = 0; d < sizes.size(); ++d)
      if (!reduced[d]) group = group * sizes[d] + index[d];
    result[group].push_back(data[k]);
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return result;
}

// |a - b| <= atol + rtol * |b| elementwise, NaN matching NaN, infinities exactly.
inline void expect_close(const std::vector<double>& actual, const std::vector<double>& expected,
                         double rtol = 1e-5, double atol = 1e-6) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < actual.size(); ++k) {
    if (std::isnan(expected[k])) {
      EXPECT_TRUE(std::isnan(actual[k])) << "at " << k;
      continue;
    }
    if (std::isinf(expected[k])) {
      EXPECT_EQ(actual[k], expected[k]) << "at " << k;
      continue;
    }
    EXPECT_NEAR(actual[k], expected[k], atol + rtol * std::abs(expected[k])) << "at " << k;
  }
}

// Makes `t` non-contiguous with the same values: stored transposed, then viewed back.
inline vmap::Tensor non_contiguous(const vmap::Tensor& t) {
  if (t.dim() < 2) {
    vmap::Tensor doubled = vmap::empty({t.numel(), 2}, t.dtype());
    doubled.select(1, 0).copy_(t.reshape({t.numel()}));
    return doubled.select(1, 0).view(t.sizes());
  }
  vmap::Tensor stored = t.transpose(0, t.dim() - 1).contiguous();
  return stored.transpose(0, t.dim() - 1);
}

}  // namespace vmap_test
