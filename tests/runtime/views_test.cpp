// Views share storage with their base; their geometry follows LibTorch.
#include "test_util.hpp"

using namespace vmap;
using vmap_test::elements;
using vmap_test::error_of;
using vmap_test::shape;
using V = std::vector<int64_t>;

namespace {

Tensor iota(std::vector<int64_t> sizes) {  // 0, 1, 2, ... as int64, filled by hand
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  Tensor t = empty(sizes, kInt64);
  int64_t* data = t.data_ptr<int64_t>();
  for (int64_t k = 0; k < numel; ++k) data[k] = k;
  return t;
}

TEST(Views, IndexAndSelectAlias) {
  Tensor x = iota({3, 4});
  Tensor row = x[1];
  EXPECT_EQ(shape(row), V({4}));
  EXPECT_EQ(elements<int64_t>(row), V({4, 5, 6, 7}));
  Tensor column = x.select(1, -1);
  EXPECT_EQ(elements<int64_t>(column), V({3, 7, 11}));
  row[2] = int64_t{100};
  EXPECT_EQ(x.data_ptr<int64_t>()[6], 100);
  x[0] = x[2];  // writes through the view
  EXPECT_EQ(elements<int64_t>(x[0]), V({8, 9, 10, 11}));
  Tensor other = x[1];
  other = x[2];  // an lvalue rebinds, writes nothing
  EXPECT_EQ(elements<int64_t>(x[1]), V({4, 5, 100, 7}));
}

TEST(Views, ScalarAssignmentConvertsAndBroadcasts) {
  Tensor x = zeros({2, 3}, kInt32);
  x[1] = 2.7;  // float into int truncates, as copy_ does
  EXPECT_EQ(elements<int32_t>(x), std::vector<int32_t>({0, 0, 0, 2, 2, 2}));
  Tensor y = zeros({2, 3});
  y[0] = tensor({1.0, 2.0, 3.0}, kFloat64);
  y[1] = tensor(5);
  EXPECT_EQ(elements<float>(y), std::vector<float>({1, 2, 3, 5, 5, 5}));
}

TEST(Views, TransposePermuteAreStridedViews) {
  Tensor x = iota({2, 3});
  Tensor t = x.t();
  EXPECT_EQ(shape(t), V({3, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(elements<int64_t>(t), V({0, 3, 1, 4, 2, 5}));
  Tensor p = iota({2, 3, 4}).permute({2, 0, 1});
  EXPECT_EQ(shape(p), V({4, 2, 3}));
  EXPECT_EQ(p.strides().vec(), V({1, 12, 4}));
  EXPECT_EQ(elements<int64_t>(p[1][1]), V({13, 17, 21}));
  EXPECT_EQ(shape(transpose(iota({2, 3, 4}), -1, 0)), V({4, 3, 2}));
}

TEST(Views, MovedimAndFlatten) {
  Tensor x = iota({2, 3, 4});
  EXPECT_EQ(shape(movedim(x, 0, -1)), V({3, 4, 2}));
  EXPECT_EQ(shape(movedim(x, {0, 1}, {2, 0})), V({3, 4, 2}));
  EXPECT_EQ(elements<int64_t>(movedim(x, 2, 0)[1][0]), V({1, 5, 9}));
  EXPECT_EQ(shape(x.flatten()), V({24}));
  EXPECT_EQ(shape(x.flatten(1)), V({2, 12}));
  EXPECT_EQ(shape(flatten(x, 0, 1)), V({6, 4}));
  EXPECT_EQ(shape(tensor(3).flatten()), V({1}));
  Tensor flat = x.flatten();
  flat[5] = int64_t{-1};
  EXPECT_EQ(x.data_ptr<int64_t>()[5], -1);  // contiguous flatten is a view
}

TEST(Views, ExpandHasStrideZero) {
  Tensor x = iota({3, 1});
  Tensor e = x.expand({2, 3, 4});
  EXPECT_EQ(shape(e), V({2, 3, 4}));
  EXPECT_EQ(e.strides().vec(), V({0, 1, 0}));
  EXPECT_EQ(elements<int64_t>(e[1][2]), V({2, 2, 2, 2}));
  EXPECT_EQ(shape(x.expand({-1, 5})), V({3, 5}));
  EXPECT_NE(error_of([&] { x.expand({4, 4}); }).find("expand"), std::string::npos);
  EXPECT_NE(error_of([&] { e.fill_(1); }).find("single memory location"), std::string::npos);
}

TEST(Views, UnsqueezeSqueeze) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(shape(x.unsqueeze(0)), V({1, 2, 3}));
  EXPECT_EQ(shape(x.unsqueeze(-1)), V({2, 3, 1}));
  EXPECT_EQ(shape(unsqueeze(x, 1)), V({2, 1, 3}));
  EXPECT_EQ(shape(zeros({1, 2, 1}).squeeze()), V({2}));
  EXPECT_EQ(shape(zeros({1, 2, 1}).squeeze(-1)), V({1, 2}));
  EXPECT_EQ(shape(zeros({1, 2, 1}).squeeze(1)), V({1, 2, 1}));
  EXPECT_EQ(shape(tensor(1.0).unsqueeze(0)), V({1}));
}

TEST(Views, ViewAndReshape) {
  Tensor x = iota({2, 6});
  Tensor v = x.view({3, -1});
  EXPECT_EQ(shape(v), V({3, 4}));
  v[0][0] = int64_t{42};
  EXPECT_EQ(x.data_ptr<int64_t>()[0], 42);
  EXPECT_EQ(shape(x.view(-1)), V({12}));
  // A transposed tensor cannot be viewed flat; reshape copies instead.
  Tensor t = x.t();
  EXPECT_NE(error_of([&] { t.view({12}); }).find("view"), std::string::npos);
  Tensor r = t.reshape({12});
  EXPECT_EQ(elements<int64_t>(r)[1], 6);
  r[0] = int64_t{0};
  EXPECT_EQ(x.data_ptr<int64_t>()[0], 42);  // the copy does not alias
  // Splitting a non-contiguous dim is still a view.
  Tensor columns = iota({4, 6}).narrow(1, 0, 4);
  EXPECT_EQ(columns.view({2, 2, 4}).strides().vec(), V({12, 6, 1}));
  EXPECT_NE(error_of([&] { x.view({5, -1}); }).find("invalid for input of size 12"), std::string::npos);
  EXPECT_NE(error_of([&] { x.view({-1, -1}); }).find("only one dimension"), std::string::npos);
  EXPECT_EQ(shape(zeros({0, 3}).reshape({3, 0})), V({3, 0}));
}

TEST(Views, Narrow) {
  Tensor x = iota({4, 5});
  Tensor n = x.narrow(1, 1, 3);
  EXPECT_EQ(shape(n), V({4, 3}));
  EXPECT_EQ(elements<int64_t>(n[2]), V({11, 12, 13}));
  EXPECT_EQ(elements<int64_t>(narrow(x, 0, -1, 1)), V({15, 16, 17, 18, 19}));
  EXPECT_NE(error_of([&] { x.narrow(1, 3, 3); }).find("narrow"), std::string::npos);
}

TEST(Views, NegativeDimsAndErrors) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(x.size(-1), 3);
  EXPECT_EQ(error_of([&] { x[2]; }), "select: index 2 out of range for dim 0 of size 2");
  EXPECT_EQ(elements<int64_t>(x[-1]), V({3, 4, 5}));
  EXPECT_NE(error_of([&] { x.select(2, 0); }).find("dimension out of range"), std::string::npos);
  EXPECT_NE(error_of([&] { tensor(1)[0]; }).find("0-dim"), std::string::npos);
  EXPECT_NE(error_of([&] { x.permute({0, 0}); }).find("multiple times"), std::string::npos);
  EXPECT_NE(error_of([&] { iota({2, 2, 2}).t(); }).find("<= 2 dimensions"), std::string::npos);
  EXPECT_NE(error_of([] { Tensor undefined; undefined.dim(); }).find("undefined"), std::string::npos);
}

TEST(Views, DataPtrIsTypeChecked) {
  Tensor x = zeros({2});
  EXPECT_NE(x.data_ptr<float>(), nullptr);
  EXPECT_NE(error_of([&] { x.data_ptr<double>(); }).find("data_ptr"), std::string::npos);
  EXPECT_EQ(x[1].data_ptr<float>(), x.data_ptr<float>() + 1);
}

TEST(Views, ItemAndOverlap) {
  Tensor x = iota({2, 2});
  EXPECT_EQ(x[1][1].item<int64_t>(), 3);
  EXPECT_FLOAT_EQ(x[1][0].item<float>(), 2.0f);
  EXPECT_NE(error_of([&] { x.item(); }).find("4 elements"), std::string::npos);
  EXPECT_TRUE(detail::overlaps(x, x[1]));
  EXPECT_FALSE(detail::overlaps(x[0], x[1]));
  EXPECT_TRUE(detail::overlaps(x.t(), x[1]));
  EXPECT_FALSE(detail::overlaps(x, x.clone()));
  // Two from_blob tensors over one buffer: their own storages, the same bytes.
  float buffer[6] = {};
  EXPECT_TRUE(detail::overlaps(from_blob(buffer, {5}), from_blob(buffer + 1, {5})));
  EXPECT_FALSE(detail::overlaps(from_blob(buffer, {3}), from_blob(buffer + 3, {3})));
}

}  // namespace
