// Factories, random generation, and the caching allocator.
#include "test_util.hpp"

#include "internal.hpp"

#include <cmath>

using namespace vmap;
using namespace vmap_test;
using V = std::vector<int64_t>;
using F = std::vector<float>;

namespace {

TEST(Factories, FilledDtypesAndShapes) {
  EXPECT_EQ(zeros({2, 3}).dtype(), kFloat32);
  EXPECT_EQ(elements<float>(ones({2})), F({1, 1}));
  EXPECT_EQ(zeros({2}, kInt32).dtype(), kInt32);
  EXPECT_EQ(zeros({2}, TensorOptions().dtype(kFloat64).device(kCPU)).dtype(), kFloat64);
  EXPECT_EQ(full({2}, 3).dtype(), kInt64);
  EXPECT_EQ(full({2}, 2.5).dtype(), kFloat32);
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_EQ(elements<double>(full({2}, 1.5, kFloat64)), std::vector<double>({1.5, 1.5}));
  EXPECT_EQ(shape(empty({3, 0})), V({3, 0}));
  EXPECT_EQ(shape(zeros(5)), V({5}));
  EXPECT_EQ(shape(zeros({})), V({}));
  EXPECT_NE(error_of([] { zeros({-1}); }).find("negative dimension"), std::string::npos);
}

TEST(Factories, Like) {
  Tensor x = zeros({2, 3}, kInt32).t();
  EXPECT_EQ(shape(zeros_like(x)), V({3, 2}));
  EXPECT_EQ(ones_like(x).dtype(), kInt32);
  EXPECT_EQ(ones_like(x, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(elements<int32_t>(full_like(x, 4)), std::vector<int32_t>(6, 4));
  EXPECT_EQ(shape(empty_like(x)), V({3, 2}));
}

TEST(Factories, Arange) {
  EXPECT_EQ(arange(4).dtype(), kInt64);
  EXPECT_EQ(elements<int64_t>(arange(4)), V({0, 1, 2, 3}));
  EXPECT_EQ(elements<int64_t>(arange(2, 11, 3)), V({2, 5, 8}));
  EXPECT_EQ(elements<int64_t>(arange(5, 0, -2)), V({5, 3, 1}));
  EXPECT_EQ(arange(0.0, 1.0, 0.25).dtype(), kFloat32);
  EXPECT_EQ(elements<float>(arange(0.0, 1.0, 0.25)), F({0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(elements<double>(arange(3, kFloat64)), std::vector<double>({0, 1, 2}));
  EXPECT_EQ(arange(0).numel(), 0);
  EXPECT_NE(error_of([] { arange(0, 5, 0); }).find("step must be nonzero"), std::string::npos);
  EXPECT_NE(error_of([] { arange(5, 0, 1); }).find("inconsistent with step sign"), std::string::npos);
}

TEST(Factories, TensorLiterals) {
  Tensor ints = tensor({{1, 2}, {3, 4}});
  EXPECT_EQ(ints.dtype(), kInt64);
  EXPECT_EQ(shape(ints), V({2, 2}));
  EXPECT_EQ(elements<int64_t>(ints), V({1, 2, 3, 4}));
  EXPECT_EQ(tensor({1.5, 2.0}).dtype(), kFloat32);
  EXPECT_EQ(tensor({1.5f}).dtype(), kFloat32);
  EXPECT_EQ(tensor({true, false}).dtype(), kBool);
  EXPECT_EQ(tensor(3).dim(), 0);
  EXPECT_EQ(tensor(3).item<int64_t>(), 3);
  EXPECT_EQ(tensor({1, 2}, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(elements<float>(tensor(std::vector<float>{1, 2, 3})), F({1, 2, 3}));
  EXPECT_NE(error_of([] { tensor({{1, 2}, {3}}); }).find("sub-lists"), std::string::npos);
}

TEST(Factories, FromBlobAliasesUserMemory) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  Tensor x = from_blob(data, {2, 3});
  EXPECT_EQ(x.data_ptr<float>(), data);
  x[1][2] = 50;
  EXPECT_EQ(data[5], 50);
  int64_t ints[2] = {7, 8};
  EXPECT_EQ(elements<int64_t>(from_blob(ints, {2}, kInt64)), V({7, 8}));
}

TEST(Factories, RandomIsSeededAndInRange) {
  manual_seed(42);
  Tensor a = rand({1000});
  Tensor n = randn({1000});
  Tensor i = randint(3, 7, {1000});
  manual_seed(42);
  EXPECT_TRUE(equal(a, rand({1000})));
  EXPECT_TRUE(equal(n, randn({1000})));
  EXPECT_TRUE(equal(i, randint(3, 7, {1000})));
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(randint(5, {2}).dtype(), kInt64);
  double sum = 0, sum_sq = 0;
  for (float v : elements<float>(a)) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  for (float v : elements<float>(n)) {
    sum += v;
    sum_sq += double(v) * v;
  }
  EXPECT_NEAR(sum / 1000, 0.0, 0.15);
  EXPECT_NEAR(sum_sq / 1000, 1.0, 0.2);
  std::vector<int64_t> seen(10, 0);
  for (int64_t v : elements<int64_t>(i)) {
    ASSERT_GE(v, 3);
    ASSERT_LT(v, 7);
    ++seen[v];
  }
  for (int64_t v = 3; v < 7; ++v) EXPECT_GT(seen[v], 150);
  EXPECT_NE(error_of([] { randint(3, 3, {1}); }).find("randint"), std::string::npos);
  EXPECT_NE(error_of([] { rand({2}, kInt32); }).find("floating"), std::string::npos);
}

// rand_like / randn_like take self's shape, dtype and device; bernoulli's mean is p, per
// element, with p = 0 and p = 1 exact.
TEST(Factories, LikeDrawsAndBernoulliHaveTheirMoments) {
  manual_seed(7);
  const Tensor like = zeros({200, 50}, kFloat64);
  const Tensor u = rand_like(like), n = randn_like(like);
  EXPECT_EQ(u.sizes(), like.sizes());
  EXPECT_EQ(u.dtype(), kFloat64);
  EXPECT_EQ(rand_like(like, kFloat32).dtype(), kFloat32);
  EXPECT_NEAR(u.mean().item<double>(), 0.5, 0.01);
  EXPECT_NEAR(u.var().item<double>(), 1.0 / 12, 0.005);
  EXPECT_NEAR(n.mean().item<double>(), 0.0, 0.03);
  EXPECT_NEAR(n.var().item<double>(), 1.0, 0.04);

  // One row per probability; each row's mean is its p.
  const Tensor p = tensor({0.0, 0.1, 0.5, 0.9, 1.0}, kFloat32).unsqueeze(1).expand({5, 20000});
  const Tensor b = bernoulli(p);
  EXPECT_EQ(b.dtype(), kFloat32);
  EXPECT_EQ(b.sizes(), p.sizes());
  EXPECT_TRUE(b.eq(0).logical_or(b.eq(1)).all().item<bool>());
  const std::vector<double> expected = {0.0, 0.1, 0.5, 0.9, 1.0};
  for (int64_t row = 0; row < 5; ++row)
    EXPECT_NEAR(b[row].mean().item<double>(), expected[static_cast<size_t>(row)], 0.01) << row;
  const Tensor half = bernoulli(zeros({40000}, kFloat64), 0.25);
  EXPECT_EQ(half.dtype(), kFloat64);
  EXPECT_NEAR(half.mean().item<double>(), 0.25, 0.01);

  EXPECT_NE(error_of([] { bernoulli(full({3}, 1.5)); }).find("expected every p in [0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of([] { bernoulli(zeros({2}), -0.5); }).find("p=-0.5"), std::string::npos);
  EXPECT_NE(error_of([] { bernoulli(zeros({2}, kInt64)); }).find("floating"), std::string::npos);
}

TEST(Allocator, ReusesFreedBlocks) {
  if (!detail::allocator_stats().caching) GTEST_SKIP() << "sanitizer build: no caching";
  void* first = nullptr;
  {
    Tensor x = empty({1000});
    first = x.raw_data();
  }
  const auto before = detail::allocator_stats();
  Tensor y = empty({1000});
  const auto after = detail::allocator_stats();
  EXPECT_EQ(y.raw_data(), first);
  EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
  EXPECT_EQ(after.fresh_allocations, before.fresh_allocations);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(y.raw_data()) % 64, 0u);
}

TEST(Allocator, SmallOpLoopDoesNotAllocateFresh) {
  if (!detail::allocator_stats().caching) GTEST_SKIP() << "sanitizer build: no caching";
  Tensor x = ones({4});
  { Tensor warm = x * 2 + x; }  // the first round fills the cache
  const auto before = detail::allocator_stats();
  for (int k = 0; k < 100; ++k) Tensor y = x * 2 + x;
  EXPECT_EQ(detail::allocator_stats().fresh_allocations, before.fresh_allocations);
}

}  // namespace
