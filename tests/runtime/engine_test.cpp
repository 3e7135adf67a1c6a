// The elementwise engine's iteration: collapsed dims, broadcast strides, threaded splits that
// start and end inside inner runs, empty and 0-d operands.
#include "test_util.hpp"

#include "internal.hpp"

using namespace vmap;
using vmap_test::elements;
using vmap_test::error_of;

namespace {

TEST(Engine, ThreadedStridedOutputMatchesNaiveLoop) {
  // 700 x 300 written through a transposed view: the parallel split cuts inner runs.
  Tensor base = zeros({300, 700});
  Tensor out = base.t();  // [700, 300], strides [1, 700]
  Tensor row = arange(300).to(kFloat32);
  Tensor column = arange(700).to(kFloat32).unsqueeze(1);
  out += row * 1000 + column;
  const float* data = base.data_ptr<float>();
  for (int64_t i = 0; i < 700; i += 7)
    for (int64_t j = 0; j < 300; j += 3)
      ASSERT_EQ(data[j * 700 + i], static_cast<float>(j * 1000 + i)) << i << "," << j;
}

TEST(Engine, PlanCollapsesContiguousDims) {
  Tensor a = zeros({4, 5, 6});
  Tensor b = zeros({4, 5, 6});
  const std::array<Tensor, 1> inputs{b};
  detail::StridedLoop loop = detail::plan_loop("test", a, inputs);
  EXPECT_EQ(loop.rank, 1);
  EXPECT_EQ(loop.sizes[0], 120);
  const std::array<Tensor, 1> broadcast{zeros({5, 1})};
  loop = detail::plan_loop("test", a, broadcast);
  EXPECT_EQ(loop.rank, 3);
  EXPECT_EQ(loop.strides[1][0], 0);  // broadcast over the leading dim
  EXPECT_EQ(loop.strides[1][2], 0);  // and over the size-1 trailing dim
  EXPECT_EQ(loop.strides[1][1], 4);  // bytes
  const std::array<Tensor, 1> bad{zeros({3})};
  EXPECT_NE(error_of([&] { detail::plan_loop("test", a, bad); }).find("cannot be broadcast"),
            std::string::npos);
}

TEST(Engine, GenericFunctorOverMixedDtypes) {
  // What ops_*.cpp do: an arbitrary functor, inputs converted to the functor's types.
  Tensor x = tensor({1, 2, 3}, kInt32);
  Tensor y = tensor({0.5, 0.25, 2.0}, kFloat64);
  Tensor r = detail::elementwise<double, double, double>(
      "fma", {x, y}, [](double a, double b) { return a * b + 1; });
  EXPECT_EQ(r.dtype(), kFloat64);
  EXPECT_EQ(elements<double>(r), std::vector<double>({1.5, 1.5, 7.0}));
  Tensor flags = detail::elementwise<bool, float>("positive", {tensor({-1.0, 2.0})},
                                                  [](float v) { return v > 0; });
  EXPECT_EQ(elements<bool>(flags), std::vector<bool>({false, true}));
}

TEST(Engine, EmptyAndZeroDim) {
  Tensor e = zeros({3, 0, 2});
  EXPECT_EQ((e + 1).numel(), 0);
  e += 1;  // nothing to do, no error
  Tensor z = tensor(2.0);
  z += tensor(3.0);
  EXPECT_EQ(z.item<float>(), 5.0f);
  z *= 2;
  EXPECT_EQ(z.item<float>(), 10.0f);
  EXPECT_EQ((zeros({0}) < 1).dtype(), kBool);
  EXPECT_EQ(where(zeros({0}, kBool), 1.0, 2.0).numel(), 0);
}

TEST(Engine, DispatchVisitsEveryDtype) {
  std::vector<int64_t> sizes;
  for (Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64, kBool})
    sizes.push_back(detail::visit_dtype(dtype, []<class T>(std::type_identity<T>) {
      return static_cast<int64_t>(sizeof(T));
    }));
  EXPECT_EQ(sizes, std::vector<int64_t>({4, 8, 4, 8, 1}));
}

TEST(Engine, RankLimitIsAnError) {
  std::vector<int64_t> too_many(17, 1);
  EXPECT_NE(error_of([&] { zeros(too_many); }).find("at most 16 dims"), std::string::npos);
}

}  // namespace

namespace {

TEST(Engine, TiledTransposedCopyMatchesNaiveLoop) {
  // [3, 100, 70] permuted: the inner dim of the input has a large stride -> tiled walk with
  // partial tiles at both edges.
  Tensor source = arange(3 * 70 * 100).view({3, 70, 100});
  Tensor permuted = source.permute({0, 2, 1});
  Tensor copy = permuted.contiguous();
  ASSERT_TRUE(copy.is_contiguous());
  const int64_t* data = copy.data_ptr<int64_t>();
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t i = 0; i < 100; ++i)
      for (int64_t j = 0; j < 70; ++j)
        ASSERT_EQ(data[(b * 100 + i) * 70 + j], (b * 70 + j) * 100 + i) << b << "," << i << "," << j;
  // And a large one, split across threads.
  Tensor big = arange(1000 * 700).view({1000, 700}).to(kFloat64);
  Tensor sum = big.t() + big.t().contiguous();
  EXPECT_EQ(sum[699][999].item<double>(), 2.0 * (999 * 700 + 699));
  EXPECT_EQ(sum[3][5].item<double>(), 2.0 * (5 * 700 + 3));
}

}  // namespace
