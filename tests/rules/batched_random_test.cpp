// The batched random factories (Note [Randomness] in vmap/batched.hpp): `different` draws
// every example's own numbers, `same` one draw shared by all. Random numbers differ from the
// loop as written by design, so the tests check distributions (moments), independence
// across examples and identity across examples, not values.
#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace vmap {
namespace {

namespace vb = vmap::batched;

// The per-example draws of a loop of `batch` examples: [batch, per-example shape...].
Tensor stacked(const vb::Value& value, int64_t batch) {
  std::vector<int64_t> sizes = value.sizes();
  sizes.insert(sizes.begin(), batch);
  return value.aligned(1).expand(sizes);
}

double correlation(const Tensor& a, const Tensor& b) {
  const Tensor x = a.to(kFloat64) - a.to(kFloat64).mean();
  const Tensor y = b.to(kFloat64) - b.to(kFloat64).mean();
  return (x * y).sum().item<double>() /
         std::sqrt((x * x).sum().item<double>() * (y * y).sum().item<double>());
}

TEST(BatchedRandom, DifferentDrawsEachExampleIndependently) {
  manual_seed(1);
  const int64_t batch = 64, n = 4000;
  vb::RandomDraws draws(vb::Randomness::different);
  vb::Level level(0, batch);
  const vb::Value u = vb::rand({n}), z = vb::randn({n}, kFloat64);
  const vb::Value k = vb::randint(2, 6, {n});
  EXPECT_EQ(u.levels(), 1);
  EXPECT_EQ(u.sizes(), (std::vector<int64_t>{n}));
  const Tensor us = stacked(u, batch), zs = stacked(z, batch), ks = stacked(k, batch);
  EXPECT_EQ(us.dtype(), kFloat32);
  EXPECT_EQ(zs.dtype(), kFloat64);
  EXPECT_EQ(ks.dtype(), kInt64);
  // Moments of the whole batch, and of each example.
  EXPECT_NEAR(us.mean().item<double>(), 0.5, 0.005);
  EXPECT_NEAR(us.var().item<double>(), 1.0 / 12, 0.002);
  EXPECT_NEAR(zs.mean().item<double>(), 0.0, 0.01);
  EXPECT_NEAR(zs.var().item<double>(), 1.0, 0.02);
  EXPECT_NEAR(ks.to(kFloat64).mean().item<double>(), 3.5, 0.02);
  EXPECT_EQ(ks.amin().item<int64_t>(), 2);
  EXPECT_EQ(ks.amax().item<int64_t>(), 5);
  for (int64_t e = 0; e < batch; e += 9) {
    EXPECT_NEAR(zs[e].mean().item<double>(), 0.0, 0.08) << e;
    EXPECT_NEAR(zs[e].var().item<double>(), 1.0, 0.12) << e;
  }
  // Independent across examples: no two equal, neighbours uncorrelated.
  for (int64_t e = 0; e + 1 < batch; ++e) {
    EXPECT_FALSE(equal(us[e], us[e + 1])) << e;
    EXPECT_NEAR(correlation(zs[e], zs[e + 1]), 0.0, 0.08) << e;
  }
}

TEST(BatchedRandom, SameDrawsOneSampleForEveryExample) {
  manual_seed(2);
  const int64_t batch = 16, n = 20000;
  vb::RandomDraws draws(vb::Randomness::same);
  vb::Level level(0, batch);
  const vb::Value x = vb::at(zeros({batch, n}, kFloat64), level.index());
  const vb::Value z = vb::randn_like(x);
  // Unbatched: one sample, broadcast over the level without a copy.
  EXPECT_EQ(z.levels(), 0);
  EXPECT_EQ(z.physical().sizes(), (std::vector<int64_t>{n}));
  EXPECT_EQ(z.dtype(), kFloat64);
  EXPECT_NEAR(z.physical().mean().item<double>(), 0.0, 0.03);
  EXPECT_NEAR(z.physical().var().item<double>(), 1.0, 0.04);
  const vb::Value shifted = x + z;  // every example's row is the one sample
  const Tensor rows = stacked(shifted, batch);
  for (int64_t e = 1; e < batch; ++e) EXPECT_TRUE(equal(rows[e], rows[0])) << e;
}

// A per-example argument: each example's probability (and shape, dtype) is its own.
TEST(BatchedRandom, BernoulliUsesEachExamplesProbability) {
  manual_seed(3);
  const int64_t n = 20000;
  const Tensor p = tensor({0.0, 0.2, 0.5, 0.8, 1.0}, kFloat32).unsqueeze(1).expand({5, n});
  for (vb::Randomness mode : {vb::Randomness::different, vb::Randomness::same}) {
    vb::RandomDraws draws(mode);
    vb::Level level(0, 5);
    const vb::Value mask = vb::bernoulli(vb::at(p, level.index()));
    const Tensor masks = stacked(mask, 5);
    EXPECT_EQ(masks.dtype(), kFloat32);
    const double expected[] = {0.0, 0.2, 0.5, 0.8, 1.0};
    for (int64_t e = 0; e < 5; ++e)
      EXPECT_NEAR(masks[e].mean().item<double>(), expected[e], 0.015) << e;
    // same: one uniform draw for all, so an example with a larger p keeps every element a
    // smaller one keeps (common random numbers); different: independent masks.
    const bool nested = masks[1].le(masks[2]).all().item<bool>();
    EXPECT_EQ(nested, mode == vb::Randomness::same);
    // bernoulli(x, p): x's shape and dtype, p for every element.
    const vb::Value dropout = vb::bernoulli(vb::at(p, level.index()), 0.25);
    EXPECT_NEAR(stacked(dropout, 5).mean().item<double>(), 0.25, 0.01);
  }
}

TEST(BatchedRandom, DrawsCoverEveryActiveLevel) {
  vb::RandomDraws draws(vb::Randomness::different);
  vb::Level outer(0, 3);
  vb::Level inner(0, 4);
  const vb::Value u = vb::rand_like(vb::Value(zeros({2})));
  EXPECT_EQ(u.levels(), 2);
  EXPECT_EQ(u.physical().sizes(), (std::vector<int64_t>{3, 4, 2}));
}

TEST(BatchedRandom, BadCallsNameTheOp) {
  auto error_of = [](auto f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of([] { vb::rand({2}); }).find("randomness clause"), std::string::npos);
  vb::RandomDraws draws(vb::Randomness::different);
  vb::Level level(0, 2);
  EXPECT_NE(error_of([] {
              vb::bernoulli(vb::Value(full({2}, 2.0)));
            }).find("bernoulli: expected every p in [0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of([] { vb::bernoulli(vb::Value(zeros({2})), 1.5); }).find("p=1.5"),
            std::string::npos);
}

}  // namespace
}  // namespace vmap
