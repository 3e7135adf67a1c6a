// LibTorch's meanings where a C++ number meets a tensor (issue 31): `x.var(0)` reduces dim 0
// (LibTorch's var(int64_t dim) overloads) while `x.var(false)` stays the flag; a number a
// dtype cannot hold throws "<op>: value cannot be converted to type int without overflow"
// where LibTorch converts it checked (item, fill_, full, full_like, masked_fill, alpha), and
// inf / NaN still fill floating tensors; from_blob on kCUDA refuses a host pointer where the
// CUDA runtime can tell.
#include "test_util.hpp"

#include "../cuda/backend.hpp"

#include <cmath>
#include <limits>

using namespace vmap;
using vmap_test::elements;
using vmap_test::error_of;
using vmap_test::shape;

namespace {

Tensor rows() { return tensor({{1.0, 2.0, 4.0}, {3.0, 7.0, 5.0}}, kDouble); }
// Dim lists as vectors: a braced `{0}` as the only argument still converts to the bool flag
// (a standard conversion, which beats IntList's constructor), not to the list.
const std::vector<int64_t> dim0{0}, dim1{1}, both{0, 1};

void expect_same(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(shape(actual), shape(expected));
  EXPECT_EQ(elements<double>(actual), elements<double>(expected));
}

TEST(VarStdIntegerDim, AnIntegerIsADim) {
  const Tensor x = rows();
  expect_same(x.var(0), x.var(dim0));
  expect_same(x.std(1), x.std(dim1));
  expect_same(var(x, 0), x.var(dim0));
  expect_same(vmap::std(x, 1), x.std(dim1));
  // unbiased and keepdim after the dim, any integer type, negative dims
  expect_same(x.var(1, false, true), x.var(dim1, false, true));
  expect_same(vmap::std(x, -1, false), x.std(dim1, false));
  const int64_t dim = 0;
  const size_t unsigned_dim = 1;
  expect_same(x.var(dim), x.var(dim0));
  expect_same(x.std(unsigned_dim), x.std(dim1));
  EXPECT_EQ(shape(x.var(0)), (std::vector<int64_t>{3}));
  EXPECT_EQ(elements<double>(x.var(0)), (std::vector<double>{2.0, 12.5, 0.5}));
}

TEST(VarStdIntegerDim, ABoolIsTheFlagOverTheWholeTensor) {
  const Tensor x = rows();
  EXPECT_EQ(shape(x.var(false)), std::vector<int64_t>{});
  EXPECT_EQ(x.var(false).item<double>(), x.var(both, false).item<double>());
  EXPECT_EQ(var(x, true).item<double>(), x.var(both, true).item<double>());
  EXPECT_EQ(x.std().item<double>(), x.std(both).item<double>());
  EXPECT_NE(x.var(true).item<double>(), x.var(false).item<double>());
}

TEST(ScalarConversion, ItemOfAValueTheTypeCannotHoldThrows) {
  EXPECT_EQ(error_of([] { tensor({std::nan("")}).item<int>(); }),
            "item: value cannot be converted to type int without overflow: nan");
  EXPECT_EQ(error_of([] { tensor({3e9}).item<int>(); }),
            "item: value cannot be converted to type int without overflow: 3e+09");
  EXPECT_EQ(error_of([] { full({}, int64_t{3000000000}).item<int>(); }),
            "item: value cannot be converted to type int without overflow: 3000000000");
  EXPECT_EQ(error_of([] { tensor({1e300}, kDouble).item<float>(); }),
            "item: value cannot be converted to type float without overflow: 1e+300");
  EXPECT_EQ(error_of([] { tensor({1e30}).item<int64_t>(); }),
            "item: value cannot be converted to type int64_t without overflow: 1e+30");
  EXPECT_EQ(error_of([] { tensor({-1.0}).item<uint8_t>(); }),
            "item: value cannot be converted to type uint8_t without overflow: -1");
}

TEST(ScalarConversion, ItemOfAValueInRangeConverts) {
  EXPECT_EQ(tensor({2.75}).item<int>(), 2);
  EXPECT_EQ(tensor({-2147483648.0}, kDouble).item<int>(), -2147483648);
  EXPECT_EQ(full({}, int64_t{-3}).item<int>(), -3);
  EXPECT_EQ(full({}, std::numeric_limits<int64_t>::max()).item<int64_t>(),
            std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(std::isinf(tensor({INFINITY}, kDouble).item<float>()));
  EXPECT_TRUE(std::isnan(tensor({NAN}, kDouble).item<float>()));
  EXPECT_TRUE(tensor({std::nan("")}).item<bool>());
  EXPECT_EQ(tensor({1e300}, kDouble).item<double>(), 1e300);
}

TEST(ScalarConversion, FillsAndFactoriesThrowNamingTheOp) {
  EXPECT_EQ(error_of([] { zeros({2}, kLong).fill_(1e30); }),
            "fill_: value cannot be converted to type int64_t without overflow: 1e+30");
  EXPECT_EQ(error_of([] { zeros({2}, kInt).fill_(int64_t{1} << 40); }),
            "fill_: value cannot be converted to type int without overflow: 1099511627776");
  EXPECT_EQ(error_of([] { zeros({2}, kInt).fill_(full({}, 1e10)); }),
            "fill_: value cannot be converted to type int without overflow: 1e+10");
  EXPECT_EQ(error_of([] { Tensor x = zeros({2}, kInt); x[0] = std::nan(""); }),
            "fill_: value cannot be converted to type int without overflow: nan");
  EXPECT_EQ(error_of([] { full({2}, 1e40, kFloat); }),
            "full: value cannot be converted to type float without overflow: 1e+40");
  EXPECT_EQ(error_of([] { full_like(zeros({2}, kInt), 3e9); }),
            "full_like: value cannot be converted to type int without overflow: 3e+09");
  EXPECT_EQ(error_of([] { zeros({2}, kInt).masked_fill(ones({2}, kBool), 1e30); }),
            "masked_fill: value cannot be converted to type int without overflow: 1e+30");
  EXPECT_EQ(error_of([] { add(zeros({2}, kInt), ones({2}, kInt), int64_t{1} << 40); }),
            "add: value cannot be converted to type int without overflow: 1099511627776");
  EXPECT_EQ(error_of([] { detail::Scalar(3e9).toInt(); }),
            "toInt: value cannot be converted to type int without overflow: 3e+09");
}

TEST(ScalarConversion, InfAndNanFillFloatingTensors) {
  EXPECT_TRUE(std::isinf(full({2}, INFINITY, kFloat)[1].item<float>()));
  EXPECT_TRUE(std::isnan(full({2}, NAN, kDouble)[0].item<double>()));
  EXPECT_EQ(zeros({2}, kInt).fill_(2.75)[0].item<int>(), 2);
  EXPECT_EQ(full({2}, -1e30, kBool)[0].item<bool>(), true);
  EXPECT_EQ(full({2}, 3.4e38, kFloat)[0].item<float>(), 3.4e38f);
}

TEST(FromBlob, HostPointerOnCudaIsRefusedWhereTheRuntimeCanTell) {
  float host[3] = {1, 2, 3};
#ifdef VMAP_HAVE_CUDA
  if (!detail::cuda_device_present()) GTEST_SKIP() << "no CUDA device: the pointer is not checked";
  EXPECT_EQ(error_of([&] { from_blob(host, {3}, kCUDA); }).rfind(
                "from_blob: the data pointer ", 0),
            0u);
  EXPECT_NE(error_of([&] { from_blob(host, {3}, kCUDA); }).find("resides on host memory"),
            std::string::npos);
  const Tensor on_device = ones({3}, kCUDA);  // device memory is accepted
  const Tensor view = from_blob(on_device.raw_data(), {3}, kCUDA);
  EXPECT_EQ(view.sum().item<float>(), 3.0f);
#else
  // Without the CUDA library nothing changes: the tensor is made; ops on it fail as before.
  EXPECT_EQ(error_of([&] { from_blob(host, {3}, kCUDA); }), "");
#endif
}

}  // namespace
