// Shared helpers of the rule tests: a seeded random source, random tensors, and the
// "batched result equals the stack of per-example results" check.
#pragma once

#include <vmap/rules/helpers.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace vmap::test {

class Rng {
 public:
  explicit Rng(unsigned seed) : engine_(seed) {}
  int64_t uniform(int64_t low, int64_t high) {  // inclusive
    return std::uniform_int_distribution<int64_t>(low, high)(engine_);
  }
  double real(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(engine_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(engine_); }
  template <class T>
  void shuffle(std::vector<T>& values) {
    std::shuffle(values.begin(), values.end(), engine_);
  }

 private:
  std::mt19937 engine_;
};

inline Dtype random_dtype(Rng& rng) {
  constexpr Dtype kAll[] = {kFloat32, kFloat64, kInt32, kInt64, kBool};
  return kAll[rng.uniform(0, 4)];
}

// Values away from 0 (so division and log stay finite), small integers, random bools.
inline Tensor random_tensor(Rng& rng, const std::vector<int64_t>& sizes, Dtype dtype) {
  int64_t numel = 1;
  for (int64_t size : sizes) numel *= size;
  std::vector<double> values;
  for (int64_t k = 0; k < numel; ++k) {
    const double magnitude =
        detail::is_floating(dtype) ? rng.real(0.25, 2.0) : static_cast<double>(rng.uniform(1, 4));
    values.push_back(rng.chance(0.3) ? -magnitude : magnitude);
  }
  if (dtype == kBool)
    for (double& value : values) value = rng.chance(0.5) ? 1.0 : 0.0;
  return vmap::tensor(detail::TensorData(values)).to(kFloat64).to(dtype).reshape(sizes);
}

inline Tensor random_index(Rng& rng, const std::vector<int64_t>& sizes, int64_t extent) {
  int64_t numel = 1;
  for (int64_t size : sizes) numel *= size;
  std::vector<int64_t> values;
  for (int64_t k = 0; k < numel; ++k) values.push_back(rng.uniform(0, extent - 1));
  return vmap::tensor(detail::TensorData(values)).reshape(sizes);
}

// Float results within 1e-4 relative (NaN equal to NaN); integers and bools exactly.
inline void expect_same(const Tensor& actual, const Tensor& expected, bool values_unspecified) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  if (values_unspecified) return;
  if (detail::is_floating(expected.dtype())) {
    const Tensor a = actual.to(kFloat64).contiguous(), e = expected.to(kFloat64).contiguous();
    const double* x = a.data_ptr<double>();
    const double* y = e.data_ptr<double>();
    for (int64_t k = 0; k < a.numel(); ++k) {
      if (x[k] == y[k] || (std::isnan(x[k]) && std::isnan(y[k]))) continue;  // incl. infinities
      ASSERT_NEAR(x[k], y[k], 1e-4 * std::max(1.0, std::abs(y[k]))) << "element " << k;
    }
    return;
  }
  EXPECT_TRUE(vmap::equal(actual, expected)) << "actual\n" << actual << "\nexpected\n" << expected;
}

// result (with batch dim `bdim`, or the same for all when nullopt) against the examples.
inline void expect_stacked(const Tensor& result, std::optional<int64_t> bdim,
                           const std::vector<Tensor>& examples, bool values_unspecified = false) {
  for (std::size_t b = 0; b < examples.size(); ++b) {
    SCOPED_TRACE("example " + std::to_string(b));
    const Tensor slice = bdim ? result.select(*bdim, static_cast<int64_t>(b)) : result;
    expect_same(slice, examples[b], values_unspecified);
  }
}

// The message of the first failing example, as the per-example loop raises it.
inline std::string message_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace vmap::test
