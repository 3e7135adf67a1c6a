// The matmul family against a naive triple loop: every rank combination of matmul, BLAS and
// plain-loop paths, transposed / strided / unreadable-by-BLAS operands, integer dtypes, the
// folded batch, empty shapes and the error messages.
#include "ops_reference.hpp"

#include <functional>

using namespace vmap;
using namespace vmap_test;
using V = std::vector<int64_t>;

namespace {

// [m, k] @ [k, n] on row-major values.
std::vector<double> naive_mm(const std::vector<double>& a, const std::vector<double>& b,
                             int64_t m, int64_t k, int64_t n) {
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}

// Batched reference for a [batch, m, k] @ b [batch, k, n] given as already-broadcast values.
std::vector<double> naive_bmm(const Tensor& a, const Tensor& b) {
  const int64_t batch = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  const std::vector<double> av = values(a), bv = values(b);
  std::vector<double> result;
  for (int64_t i = 0; i < batch; ++i) {
    const std::vector<double> ai(av.begin() + i * m * k, av.begin() + (i + 1) * m * k);
    const std::vector<double> bi(bv.begin() + i * k * n, bv.begin() + (i + 1) * k * n);
    const auto ci = naive_mm(ai, bi, m, k, n);
    result.insert(result.end(), ci.begin(), ci.end());
  }
  return result;
}

double tolerance(Dtype dtype) { return dtype == kFloat32 ? 1e-4 : 1e-10; }
// Sums of products of values in [-4, 4] cancel: float32 needs an absolute tolerance too.
double abs_tolerance(Dtype dtype) { return dtype == kFloat32 ? 1e-3 : 1e-9; }

TEST(OpsLinalg, MmEveryPathAndLayout) {
  for (Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    // 3x4x5 takes the plain loop; 33x70x41 goes to BLAS for floats.
    for (V mkn : {V{3, 4, 5}, V{33, 70, 41}, V{1, 70, 41}, V{33, 70, 1}, V{1, 1, 1}}) {
      const int64_t m = mkn[0], k = mkn[1], n = mkn[2];
      SCOPED_TRACE(::testing::Message() << dtype << " " << m << "x" << k << "x" << n);
      const Tensor a = random_tensor({m, k}, dtype, 1, true);
      const Tensor b = random_tensor({k, n}, dtype, 2, true);
      const auto expected = naive_mm(values(a), values(b), m, k, n);
      const double rtol = tolerance(dtype);
      expect_close(values(mm(a, b)), expected, rtol);
      EXPECT_EQ(mm(a, b).dtype(), dtype);
      EXPECT_EQ(shape(a.mm(b)), V({m, n}));
      // Transposed storage (BLAS trans flags), a padded leading dim, and strides BLAS cannot
      // take (neither stride 1: copied first).
      expect_close(values(mm(non_contiguous(a), non_contiguous(b))), expected, rtol);
      const Tensor padded_a = random_tensor({m, k + 3}, dtype, 3).narrow(1, 0, k);
      padded_a.copy_(a);
      expect_close(values(mm(padded_a, b)), expected, rtol);
      Tensor spread_b = empty({k, n, 2}, dtype).select(2, 1);
      spread_b.copy_(b);
      Tensor spread_b_t = empty({n, k, 3}, dtype).select(2, 0).t();
      spread_b_t.copy_(b);
      expect_close(values(mm(a, spread_b)), expected, rtol);
      expect_close(values(mm(a, spread_b_t)), expected, rtol);
      // Broadcast (stride 0) operands.
      const Tensor row = random_tensor({k}, dtype, 4, true);
      expect_close(values(mm(row.expand({m, k}), b)),
                   naive_mm(values(row.expand({m, k})), values(b), m, k, n), rtol);
    }
  }
}

TEST(OpsLinalg, MatmulRankRules) {
  const Tensor v3 = random_tensor({3}, kFloat64, 1);
  const Tensor v4 = random_tensor({4}, kFloat64, 2);
  const Tensor m34 = random_tensor({3, 4}, kFloat64, 3);
  const Tensor m43 = random_tensor({4, 3}, kFloat64, 4);
  const Tensor b234 = random_tensor({2, 3, 4}, kFloat64, 5);
  const Tensor b243 = random_tensor({2, 4, 3}, kFloat64, 6);

  EXPECT_EQ(shape(matmul(v3, v3)), V{});
  expect_close(values(matmul(v3, v3)), naive_mm(values(v3), values(v3), 1, 3, 1));
  EXPECT_EQ(shape(matmul(m34, v4)), V({3}));
  expect_close(values(matmul(m34, v4)), naive_mm(values(m34), values(v4), 3, 4, 1));
  EXPECT_EQ(shape(matmul(v3, m34)), V({4}));
  expect_close(values(matmul(v3, m34)), naive_mm(values(v3), values(m34), 1, 3, 4));
  EXPECT_EQ(shape(matmul(m34, m43)), V({3, 3}));
  // n-d @ 2-d, 2-d @ n-d, 1-d @ n-d, n-d @ 1-d.
  EXPECT_EQ(shape(matmul(b234, m43)), V({2, 3, 3}));
  expect_close(values(matmul(b234, m43)), naive_bmm(b234, m43.expand({2, 4, 3})));
  EXPECT_EQ(shape(matmul(m34, b243)), V({2, 3, 3}));
  expect_close(values(matmul(m34, b243)), naive_bmm(m34.expand({2, 3, 4}), b243));
  EXPECT_EQ(shape(matmul(v4, b243)), V({2, 3}));
  expect_close(values(matmul(v4, b243)), naive_bmm(v4.view({1, 1, 4}).expand({2, 1, 4}), b243));
  EXPECT_EQ(shape(matmul(b234, v4)), V({2, 3}));
  expect_close(values(matmul(b234, v4)), naive_bmm(b234, v4.view({1, 4, 1}).expand({2, 4, 1})));
  // Batch dims broadcast: [2, 1, 3, 4] @ [5, 4, 3] -> [2, 5, 3, 3].
  const Tensor left = random_tensor({2, 1, 3, 4}, kFloat64, 7);
  const Tensor right = random_tensor({5, 4, 3}, kFloat64, 8);
  const Tensor product = matmul(left, right);
  EXPECT_EQ(shape(product), V({2, 5, 3, 3}));
  expect_close(values(product), naive_bmm(left.expand({2, 5, 3, 4}).reshape({10, 3, 4}),
                                          right.expand({2, 5, 4, 3}).reshape({10, 4, 3})));
  EXPECT_EQ(shape(v3.matmul(v3)), V{});
}

TEST(OpsLinalg, BatchedFloatsFoldedAndPerMatrix) {
  for (Dtype dtype : {kFloat32, kFloat64}) {
    // [batch, m, k] contiguous @ [k, n]: folds into one [batch * m, k] GEMM.
    const Tensor x = random_tensor({6, 20, 30}, dtype, 1);
    const Tensor w = random_tensor({30, 25}, dtype, 2);
    expect_close(values(matmul(x, w)), naive_bmm(x, w.expand({6, 30, 25})), tolerance(dtype), abs_tolerance(dtype));
    // A batch that does not fold (batch dim innermost in memory): one GEMM per matrix.
    const Tensor x_t = non_contiguous(random_tensor({20, 30, 6}, dtype, 3)).permute({2, 0, 1});
    expect_close(values(matmul(x_t, w)), naive_bmm(x_t.contiguous(), w.expand({6, 30, 25})),
                 tolerance(dtype), abs_tolerance(dtype));
    const Tensor y = random_tensor({6, 30, 25}, dtype, 4);
    expect_close(values(bmm(x, y)), naive_bmm(x, y), tolerance(dtype), abs_tolerance(dtype));
    expect_close(values(x.bmm(y.transpose(1, 2).contiguous().transpose(1, 2))), naive_bmm(x, y),
                 tolerance(dtype), abs_tolerance(dtype));
    // Many small matrices take the threaded plain loop.
    const Tensor small_a = random_tensor({50, 3, 4}, dtype, 5);
    const Tensor small_b = random_tensor({50, 4, 2}, dtype, 6);
    expect_close(values(bmm(small_a, small_b)), naive_bmm(small_a, small_b), tolerance(dtype), abs_tolerance(dtype));
  }
}

TEST(OpsLinalg, MvDotLinear) {
  for (Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    const Tensor a = random_tensor({40, 30}, dtype, 1, true);
    const Tensor v = random_tensor({30}, dtype, 2, true);
    EXPECT_EQ(shape(mv(a, v)), V({40}));
    expect_close(values(a.mv(v)), naive_mm(values(a), values(v), 40, 30, 1), tolerance(dtype), abs_tolerance(dtype));
    expect_close(values(mv(non_contiguous(a), non_contiguous(v))),
                 naive_mm(values(a), values(v), 40, 30, 1), tolerance(dtype), abs_tolerance(dtype));
    EXPECT_EQ(shape(dot(v, v)), V{});
    expect_close(values(v.dot(v)), naive_mm(values(v), values(v), 1, 30, 1), tolerance(dtype), abs_tolerance(dtype));

    // linear(x, W, b) = x @ W^T + b, for 1-d, 2-d and 3-d x.
    const Tensor weight = random_tensor({7, 30}, dtype, 3, true);
    const Tensor bias = random_tensor({7}, dtype, 4, true);
    const Tensor x = random_tensor({2, 5, 30}, dtype, 5, true);
    std::vector<double> expected = naive_bmm(x.reshape({1, 10, 30}),
                                             weight.t().reshape({1, 30, 7}));
    const std::vector<double> bias_values = values(bias);
    for (size_t k = 0; k < expected.size(); ++k) expected[k] += bias_values[k % 7];
    EXPECT_EQ(shape(linear(x, weight, bias)), V({2, 5, 7}));
    expect_close(values(linear(x, weight, bias)), expected, tolerance(dtype), abs_tolerance(dtype));
    expect_close(values(linear(x.reshape({10, 30}), weight, bias)), expected, tolerance(dtype), abs_tolerance(dtype));
    expect_close(values(linear(x[0][0], weight, bias)),
                 std::vector<double>(expected.begin(), expected.begin() + 7), tolerance(dtype), abs_tolerance(dtype));
    expect_close(values(linear(x, weight)),
                 naive_bmm(x.reshape({1, 10, 30}), weight.t().reshape({1, 30, 7})),
                 tolerance(dtype), abs_tolerance(dtype));
  }
}

// Note [Results into a destination]: the products and linear compute into a destination that
// fits (sizes, dtype, contiguous) and overlaps nothing they read, with the same values as into
// a new tensor; otherwise they leave it alone.
TEST(OpsLinalg, ResultsIntoADestination) {
  auto computed_into = [](const Tensor& destination, const std::function<Tensor()>& op) {
    detail::ResultInto into(destination);
    return op();
  };
  for (Dtype dtype : {kFloat32, kFloat64, kInt64}) {
    SCOPED_TRACE(testing::Message() << dtype);
    const Tensor x = random_tensor({40, 30}, dtype), weight = random_tensor({20, 30}, dtype);
    const Tensor bias = random_tensor({20}, dtype);
    const Tensor xs = random_tensor({5, 8, 30}, dtype), ys = random_tensor({5, 30, 6}, dtype);
    const std::vector<std::pair<std::function<Tensor()>, Tensor>> fitting{
        {[&] { return linear(x, weight, bias); }, zeros({40, 20}, dtype)},
        {[&] { return linear(x, weight); }, zeros({40, 20}, dtype)},
        {[&] { return mm(x, weight.t()); }, zeros({40, 20}, dtype)},
        {[&] { return matmul(x, weight.t()); }, zeros({40, 20}, dtype)},
        {[&] { return matmul(xs, ys); }, zeros({5, 8, 6}, dtype)},
        {[&] { return bmm(xs, ys); }, zeros({5, 8, 6}, dtype)},
        {[&] { return matmul(xs, weight.t()); }, zeros({5, 8, 20}, dtype)}};
    for (const auto& [op, out] : fitting) {
      EXPECT_EQ(computed_into(out, op).raw_data(), out.raw_data());
      EXPECT_TRUE(equal(out, op()));  // the same product, bit for bit
    }
    // Other dtype, not contiguous: a new tensor, the destination untouched.
    for (const Tensor& out : {zeros({40, 20}, dtype == kFloat64 ? kFloat32 : kFloat64),
                              zeros({20, 40}, dtype).t()}) {
      const Tensor result = computed_into(out, [&] { return linear(x, weight, bias); });
      EXPECT_NE(result.raw_data(), out.raw_data());
      EXPECT_TRUE(equal(result, linear(x, weight, bias)));
      EXPECT_EQ(out.abs().sum().item<double>(), 0.0);
    }
    // A destination that is also an operand (the bias, the input) would be read after it is
    // written: a new tensor, the operand untouched.
    const Tensor buffer = random_tensor({40, 20}, dtype), before = buffer.clone();
    const Tensor row_bias = computed_into(buffer, [&] { return linear(x, weight, buffer[3]); });
    EXPECT_TRUE(equal(row_bias, linear(x, weight, before[3])));
    const Tensor square = random_tensor({20, 20}, dtype);
    const Tensor input = computed_into(buffer, [&] { return linear(buffer, square, bias); });
    EXPECT_TRUE(equal(input, linear(before, square, bias)));
    const Tensor left = computed_into(buffer, [&] { return mm(buffer, square); });
    EXPECT_TRUE(equal(left, mm(before, square)));
    EXPECT_TRUE(equal(buffer, before));
  }
}

// linear with a 1-D weight (a dot per row) and a bias that broadcasts.
TEST(OpsLinalg, LinearVectorWeightAndBroadcastBias) {
  const Tensor x = random_tensor({6, 4, 5}, kFloat64), vector = random_tensor({5}, kFloat64);
  const Tensor weight = random_tensor({3, 5}, kFloat64), one = random_tensor({1}, kFloat64);
  expect_close(values(linear(x, vector, tensor(2.5, kFloat64))), values(matmul(x, vector) + 2.5),
               1e-12, 1e-12);
  expect_close(values(linear(x, weight, one)), values(matmul(x, weight.t()) + one), 1e-12,
               1e-12);
  EXPECT_EQ(shape(linear(x[0][0], vector)), V({}));
}

TEST(OpsLinalg, EmptyShapes) {
  const Tensor a = random_tensor({3, 0}, kFloat32);
  const Tensor b = random_tensor({0, 4}, kFloat32);
  EXPECT_EQ(values(mm(a, b)), std::vector<double>(12, 0.0));  // k = 0: zeros
  EXPECT_EQ(shape(mm(b.t(), a.t())), V({4, 3}));
  EXPECT_EQ(shape(mm(empty({0, 5}), empty({5, 2}))), V({0, 2}));
  EXPECT_EQ(shape(bmm(empty({0, 2, 3}), empty({0, 3, 4}))), V({0, 2, 4}));
  EXPECT_EQ(dot(empty({0}, kInt64), empty({0}, kInt64)).item<int64_t>(), 0);
}

TEST(OpsLinalg, Errors) {
  const Tensor f = random_tensor({2, 3}, kFloat32);
  EXPECT_EQ(error_of([&] { mm(f, f); }), "mm: shapes [2, 3] and [2, 3] cannot be multiplied (3 vs 2)");
  EXPECT_EQ(error_of([&] { matmul(f, random_tensor({2, 3}, kFloat64)); }),
            "matmul: expected both operands to have the same dtype, but got Float and Double");
  EXPECT_EQ(error_of([&] { mm(f.to(kBool), f.t().to(kBool)); }), "mm: not implemented for 'Bool'");
  EXPECT_EQ(error_of([&] { matmul(f, tensor(1.0f)); }),
            "matmul: both arguments to matmul need to be at least 1D, but they are 2D and 0D");
  EXPECT_EQ(error_of([&] { mm(f, random_tensor({3}, kFloat32)); }),
            "mm: expected 2-D tensors, but got [2, 3] and [3]");
  EXPECT_EQ(error_of([&] { dot(random_tensor({3}, kFloat32), random_tensor({4}, kFloat32)); }),
            "dot: inconsistent tensor size, expected tensors [3] and [4] to have the same number "
            "of elements");
  EXPECT_EQ(error_of([&] { bmm(random_tensor({2, 2, 3}, kFloat32),
                               random_tensor({3, 3, 2}, kFloat32)); }),
            "bmm: batch sizes must match, but got [2, 2, 3] and [3, 3, 2]");
  EXPECT_EQ(error_of([&] { matmul(random_tensor({2, 2, 3}, kFloat32),
                                  random_tensor({3, 3, 2}, kFloat32)); }).substr(0, 8),
            "matmul: ");
  EXPECT_EQ(error_of([&] { linear(f, random_tensor({4, 3}, kFloat32),
                                  random_tensor({4}, kFloat64)); }),
            "linear: expected bias of dtype Float, but got Double");
}

}  // namespace
