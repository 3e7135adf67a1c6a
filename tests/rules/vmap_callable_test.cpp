// vmap::vmap: callables batched at run time on the same rules.
#include "rules_test_util.hpp"

#include <vmap/functional.hpp>

#include <gtest/gtest.h>

namespace vmap {
namespace {

using batched::Value;
using test::Rng;

TEST(VmapCallable, MapsOverDimZero) {
  Rng rng(21);
  const Tensor rows = test::random_tensor(rng, {5, 3}, kFloat32);
  auto norm = vmap::vmap([](const Value& x) { return x.pow(2.0).sum().sqrt(); });
  const Tensor norms = norm(rows);
  ASSERT_EQ(norms.sizes().vec(), std::vector<int64_t>{5});
  for (int64_t k = 0; k < 5; ++k) test::expect_same(norms[k], rows[k].pow(2.0).sum().sqrt(), false);
}

TEST(VmapCallable, InDimsAndOutDim) {
  Rng rng(22);
  const Tensor columns = test::random_tensor(rng, {3, 4}, kFloat32);  // examples along dim 1
  const Tensor shift = test::random_tensor(rng, {3}, kFloat32);       // shared
  auto add = vmap::vmap([](const Value& x, const Value& s) { return (x + s).unsqueeze(0); },
                        {1, std::nullopt}, 1);
  const Tensor result = add(columns, shift);
  ASSERT_EQ(result.sizes().vec(), (std::vector<int64_t>{1, 4, 3}));
  for (int64_t k = 0; k < 4; ++k)
    test::expect_same(result.select(1, k), (columns.select(1, k) + shift).unsqueeze(0), false);
}

TEST(VmapCallable, NestedCallsNest) {
  Rng rng(23);
  const Tensor a = test::random_tensor(rng, {3, 2}, kFloat32);
  const Tensor b = test::random_tensor(rng, {4, 2}, kFloat32);
  auto distances = vmap::vmap([&](const Value& x) {
    return vmap::vmap([&](const Value& y) { return (x - y).abs().sum(); })(Value(b));
  });
  const Tensor result = distances(a);
  ASSERT_EQ(result.sizes().vec(), (std::vector<int64_t>{3, 4}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      test::expect_same(result[i][j], (a[i] - b[j]).abs().sum(), false);
}

TEST(VmapCallable, ResultsThatDoNotVaryAreExpanded) {
  auto constant = vmap::vmap([](const Value&) { return Value(ones({2})); });
  const Tensor result = constant(zeros({3, 5}));
  EXPECT_EQ(result.sizes().vec(), (std::vector<int64_t>{3, 2}));
}

TEST(VmapCallable, DisagreeingBatchSizesRaise) {
  auto add = vmap::vmap([](const Value& x, const Value& y) { return x + y; });
  EXPECT_THROW(add(zeros({3}), zeros({4})), Error);
}

}  // namespace
}  // namespace vmap
