// LibTorch's habits (SPEC section 7): accessor<T, N>(), Tensor::index / index_put_ with
// vmap::indexing, the kF32-style aliases. Values against hand-computed ones; LibTorch's own
// answers are compared in tests/peer/libtorch_habits.cpp.
#include "test_util.hpp"

#include <vector>

namespace vmap {
namespace {

using namespace vmap::indexing;
using vmap_test::elements;
using vmap_test::error_of;
using vmap_test::shape;

Tensor grid() { return arange(24, kF32).reshape({2, 3, 4}); }  // x[i][j][k] = 12i + 4j + k

TEST(Accessor, ReadsAndWritesThroughStrides) {
  Tensor x = grid();
  const Tensor columns = x.transpose(1, 2);  // [2, 4, 3], strided
  auto a = columns.accessor<float, 3>();
  EXPECT_EQ(a.size(1), 4);
  EXPECT_EQ(a.stride(2), 4);
  EXPECT_EQ(a[1][3][2], 12 + 8 + 3);
  a[0][1][2] = -1.f;  // element (0, 2, 1) of x
  EXPECT_EQ(x[0][2][1].item<float>(), -1.f);
  auto row = a[1][2];  // a 1-d accessor
  EXPECT_EQ(row[0], 12 + 2);
  const Tensor ints = arange(6, kI64).reshape({2, 3});
  EXPECT_EQ((ints.accessor<const int64_t, 2>()[1][2]), 5);
}

TEST(Accessor, WrongDimsDtypeOrDeviceAreErrors) {
  const Tensor x = grid();
  EXPECT_EQ(error_of([&] { x.accessor<float, 2>(); }),
            "accessor: expected 2 dims but tensor has 3");
  EXPECT_EQ(error_of([&] { x.accessor<double, 3>(); }),
            "accessor: expected scalar type Float but requested Double");
}

TEST(DtypeAliases, AreLibTorchs) {
  EXPECT_EQ(kF32, kFloat32);
  EXPECT_EQ(kF64, kFloat64);
  EXPECT_EQ(kI32, kInt32);
  EXPECT_EQ(kI64, kInt64);
}

TEST(Index, BasicIndicesMakeViews) {
  const Tensor x = grid();
  const Tensor a = x.index({1, Slice(1, None), Slice(None, None, 2)});  // x[1, 1:, ::2]
  EXPECT_EQ(shape(a), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(elements<float>(a), (std::vector<float>{16, 18, 20, 22}));
  EXPECT_EQ(a.raw_data(), x[1][1].raw_data());  // a view: same memory
  EXPECT_EQ(a.strides().vec(), (std::vector<int64_t>{4, 2}));
  // Negative and clamped bounds, None, Ellipsis (and "..."), negative integers.
  EXPECT_EQ(elements<float>(x.index({0, -1, Slice(-3, 100)})), (std::vector<float>{9, 10, 11}));
  EXPECT_EQ(shape(x.index({None, Ellipsis, None})), (std::vector<int64_t>{1, 2, 3, 4, 1}));
  EXPECT_EQ(elements<float>(x.index({"...", -1, 0})), (std::vector<float>{8, 20}));
  EXPECT_EQ(shape(x.index({Slice(), None, 1})), (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(shape(x.index({Slice(2, 1)})), (std::vector<int64_t>{0, 3, 4}));
  EXPECT_EQ(shape(x.index({Slice(None, None, 3), Slice(None, None, 5)})),
            (std::vector<int64_t>{1, 1, 4}));
  EXPECT_EQ(x.index({1, 2, 3}).item<float>(), 23.f);
  // The index of an example is a view of it: writing through it changes the example.
  const Tensor example = x[1];
  example.index({Slice(), 0}) += 100;
  EXPECT_EQ(elements<float>(x.index({1, Slice(), 0})), (std::vector<float>{112, 116, 120}));
}

TEST(Index, LongAndBoolTensorIndices) {
  const Tensor x = grid();
  // A long index of any shape replaces its dim by its shape; negative indices count back.
  const Tensor picked = x.index({Slice(), tensor({{2, -3}, {0, 0}})});
  EXPECT_EQ(shape(picked), (std::vector<int64_t>{2, 2, 2, 4}));
  EXPECT_EQ(elements<float>(picked.index({1, 0, Slice(), 0})), (std::vector<float>{20, 12}));
  EXPECT_EQ(elements<float>(x.index({0, 1, tensor({3, 1})})), (std::vector<float>{7, 5}));
  // A bool mask picks its true positions, row-major, into one dim.
  const Tensor mask = tensor({{true, false, true}, {false, false, true}});
  const Tensor masked = x.index({mask});
  EXPECT_EQ(shape(masked), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(elements<float>(masked.index({Slice(), 0})), (std::vector<float>{0, 8, 20}));
  EXPECT_EQ(shape(x.index({Ellipsis, tensor({true, false, true, true})})),
            (std::vector<int64_t>{2, 3, 3}));
  EXPECT_EQ(shape(x.index({Slice(), Slice(), x[0][0] > 100})), (std::vector<int64_t>{2, 3, 0}));
}

TEST(Index, Errors) {
  const Tensor x = grid();
  EXPECT_EQ(error_of([&] { x.index({0, 0, 0, 0}); }),
            "index: too many indices for tensor of dimension 3");
  EXPECT_EQ(error_of([&] { x.index(std::vector<TensorIndex>{}); }),
            "index: passing an empty index list to Tensor::index() is not valid syntax");
  EXPECT_EQ(error_of([&] { x.index({Slice(0, 2, 0)}); }), "index: slice step must be positive, got 0");
  EXPECT_EQ(error_of([&] { x.index({tensor({0, 2})}); }),
            "index: index 2 is out of bounds for dimension 0 with size 2");
  EXPECT_EQ(error_of([&] { x.index({tensor({0, 1}, kI32)}); }),
            "index: tensors used as indices must be long or bool tensors, got Int");
  EXPECT_EQ(error_of([&] { x.index({tensor({true, false, true})}); }),
            "index: the shape of the mask [3] at index 0 does not match the shape of the indexed "
            "tensor [2, 3, 4] at index 0");
  EXPECT_EQ(error_of([&] { x.index({tensor({0}), tensor({1})}); }),
            "index: only one tensor index is supported (LibTorch broadcasts several together)");
  EXPECT_NE(error_of([&] { x.index({5}); }).find("index: "), std::string::npos);
  EXPECT_EQ(error_of([&] { x.index({"..x"}); }),
            "index: expected \"...\" to represent an ellipsis index, got \"..x\"");
}

TEST(IndexPut, WritesThroughBasicLongAndBoolIndices) {
  Tensor x = zeros({3, 4}, kI64);
  x.index_put_({Slice(), 1}, 7);  // a number
  x.index_put_({0}, arange(4, kI64));
  x.index_put_({Slice(1, None), Slice(2, None)}, tensor({{-1, -2}}));  // broadcast rows
  EXPECT_EQ(elements<int64_t>(x),
            (std::vector<int64_t>{0, 1, 2, 3, 0, 7, -1, -2, 0, 7, -1, -2}));
  x.index_put_({tensor({2, -3}), Slice(None, 2)}, tensor({{5, 6}, {8, 9}}));
  EXPECT_EQ(elements<int64_t>(x.index({Slice(), Slice(None, 2)})),
            (std::vector<int64_t>{8, 9, 0, 7, 5, 6}));
  x.index_put_({x < 0}, 100);
  EXPECT_EQ(elements<int64_t>(x.index({Slice(1, None), 2})), (std::vector<int64_t>{100, 100}));
  x.index_put_({Ellipsis, tensor({false, true, false, true})}, tensor({{1, 2}}) * -1);
  EXPECT_EQ(elements<int64_t>(x.index({Slice(), 3})), (std::vector<int64_t>{-2, -2, -2}));
  // A leading size-1 dim of the value is dropped, as ATen's set_item does.
  x.index_put_({1}, ones({1, 4}, kI64));
  EXPECT_EQ(elements<int64_t>(x[1]), (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(IndexPut, Errors) {
  Tensor x = zeros({3, 4});
  EXPECT_EQ(error_of([&] { x.index_put_({tensor({0, 1})}, ones({2, 4}, kF64)); }),
            "index_put_: index put requires the source and destination dtypes match, got Float "
            "for the destination and Double for the source");
  EXPECT_EQ(error_of([&] { x.index_put_({tensor({0, 1})}, ones({3})); }),
            "index_put_: shape mismatch: value tensor of shape [3] cannot be broadcast to "
            "indexing result of shape [2, 4]");
  EXPECT_NE(error_of([&] { x.index_put_({0}, ones({3})); }).find("index_put_: "),
            std::string::npos);
}

}  // namespace
}  // namespace vmap
