// softmax / log_softmax against a naive (double, unshifted where safe) computation per line.
#include "ops_reference.hpp"

#include <limits>

using namespace vmap;
using namespace vmap_test;
using V = std::vector<int64_t>;

namespace {

// softmax of each line along `dim` of x, in x's row-major order.
std::vector<double> naive_softmax(const Tensor& x, int64_t dim, bool log) {
  const auto sizes = shape(x);
  const auto data = values(x);
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(dim) + 1; d < sizes.size(); ++d) inner *= sizes[d];
  const int64_t count = sizes.empty() ? 1 : sizes[dim];
  std::vector<double> result(data.size());
  for (size_t start = 0; start < data.size(); ++start) {
    // `start` is the first element of a line when its index along dim is 0.
    if ((static_cast<int64_t>(start) / inner) % count != 0) continue;
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < count; ++k) max = std::max(max, data[start + k * inner]);
    double sum = 0;
    for (int64_t k = 0; k < count; ++k) sum += std::exp(data[start + k * inner] - max);
    for (int64_t k = 0; k < count; ++k) {
      const double shifted = data[start + k * inner] - max;
      result[start + k * inner] = log ? shifted - std::log(sum) : std::exp(shifted) / sum;
    }
  }
  return result;
}

TEST(OpsNn, SoftmaxAndLogSoftmaxEveryDim) {
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const Tensor x = random_tensor({3, 4, 5}, dtype);
    for (int64_t dim : {0, 1, 2}) {
      SCOPED_TRACE(::testing::Message() << dtype << " dim " << dim);
      const double rtol = dtype == kFloat32 ? 1e-5 : 1e-12;
      EXPECT_EQ(softmax(x, dim).dtype(), dtype);
      EXPECT_EQ(shape(softmax(x, dim)), shape(x));
      expect_close(values(softmax(x, dim)), naive_softmax(x, dim, false), rtol, 1e-7);
      expect_close(values(x.log_softmax(dim - 3)), naive_softmax(x, dim, true), rtol, 1e-6);
      expect_close(values(softmax(non_contiguous(x), dim)), naive_softmax(x, dim, false), rtol,
                   1e-7);
      expect_close(values(log_softmax(x.transpose(0, 2), dim)),
                   naive_softmax(x.transpose(0, 2).contiguous(), dim, true), rtol, 1e-6);
    }
  }
}

TEST(OpsNn, NumericallyStable) {
  const Tensor big = tensor({1000.0f, 1001.0f, 1002.0f});
  expect_close(values(softmax(big, 0)), naive_softmax(big, 0, false));
  expect_close(values(log_softmax(big, 0)), naive_softmax(big, 0, true));
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor with_inf = tensor({-inf, 0.0f, 0.0f});
  expect_close(values(softmax(with_inf, 0)), {0.0, 0.5, 0.5});
  EXPECT_EQ(values(log_softmax(with_inf, 0))[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(softmax(tensor({-inf, -inf}), 0)[0].item<float>()));
  EXPECT_TRUE(std::isnan(softmax(tensor({1.0f, NAN}), 0)[0].item<float>()));
}

TEST(OpsNn, LongLinesTakeTheVectorPath) {
  const double inf = std::numeric_limits<double>::infinity();
  for (Dtype dtype : {kFloat32, kFloat64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor x = random_tensor({4, 2053}, dtype, 5) * 10;  // 2053: chunks plus a tail
    x[1][100] = -inf;
    x[2][7] = NAN;
    x[3] = -inf;
    const double atol = dtype == kFloat32 ? 1e-4 : 1e-10;
    expect_close(values(softmax(x, 1)), naive_softmax(x, 1, false), 1e-5, 1e-9);
    expect_close(values(log_softmax(x, -1)), naive_softmax(x, 1, true), 1e-5, atol);
  }
}

// The vector kernel's three passes on every line length around the vector width (tails of
// every size), lines holding +inf or NaN (left to the scalar path), and a line whose x - max
// overflows to -inf (FLT_MAX and -FLT_MAX together).
TEST(OpsNn, VectorKernelLineLengthsAndSpecialValues) {
  for (Dtype dtype : {kFloat32, kFloat64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    for (int64_t length = 1; length <= 70; ++length) {
      const Tensor x = random_tensor({3, length}, dtype, static_cast<unsigned>(length)) * 5;
      expect_close(values(softmax(x, 1)), naive_softmax(x, 1, false), 1e-5, 1e-9);
      expect_close(values(log_softmax(x, 1)), naive_softmax(x, 1, true), 1e-5, 1e-5);
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float big = std::numeric_limits<float>::max();
  Tensor x = zeros({3, 40});
  x[0][33] = inf;  // a line with +inf is all NaN (inf - inf), as in LibTorch
  x[1][5] = NAN;
  x[2][0] = big;
  x[2][39] = -big;  // x - max overflows to -inf in float
  expect_close(values(softmax(x, 1)), naive_softmax(x, 1, false), 1e-6, 1e-9);
  const Tensor special = x.narrow(0, 0, 2);
  expect_close(values(log_softmax(special, 1)), naive_softmax(special, 1, true), 1e-6, 1e-6);
  const Tensor overflowing = log_softmax(x, 1)[2];
  EXPECT_EQ(overflowing[0].item<float>(), 0.0f);
  EXPECT_EQ(overflowing[1].item<float>(), -big);
  EXPECT_EQ(overflowing[39].item<float>(), -inf);
}

TEST(OpsNn, EdgeCasesAndErrors) {
  EXPECT_EQ(softmax(tensor(3.0f), 0).item<float>(), 1.0f);
  EXPECT_EQ(log_softmax(tensor(3.0), -1).item<double>(), 0.0);
  EXPECT_EQ(shape(softmax(empty({0, 3}), 1)), V({0, 3}));
  EXPECT_EQ(error_of([] { softmax(tensor({1, 2}), 0); }),
            "softmax: expected a floating point tensor, but got Long");
  EXPECT_NE(error_of([] { log_softmax(tensor({1.0f}), 1); }).find("log_softmax: dimension"),
            std::string::npos);
}

}  // namespace
