// The unary float math (sqrt exp log sin cos tanh sigmoid) against std:: called element by
// element in the test: every input class the SIMD kernels treat differently (inside Highway's
// accurate ranges, outside them, NaN, infinities, zeros, subnormal results), contiguous runs of
// every length around the vector width, non-contiguous inputs, 0-d, empty, threaded sizes.
#include "ops_reference.hpp"

#include <functional>
#include <limits>

using namespace vmap;
using namespace vmap_test;

namespace {

struct MathOp {
  const char* name;
  Tensor (*op)(const Tensor&);
  std::function<double(double)> reference_double;  // the std:: function on double
  std::function<float(float)> reference_float;     // the same on float
  bool exact;  // IEEE-exact (sqrt): results must be bit-identical
};

const std::vector<MathOp>& math_ops() {
  static const std::vector<MathOp> ops = {
      {"sqrt", vmap::sqrt, [](double x) { return std::sqrt(x); },
       [](float x) { return std::sqrt(x); }, true},
      {"exp", vmap::exp, [](double x) { return std::exp(x); }, [](float x) { return std::exp(x); },
       false},
      {"log", vmap::log, [](double x) { return std::log(x); }, [](float x) { return std::log(x); },
       false},
      {"sin", vmap::sin, [](double x) { return std::sin(x); }, [](float x) { return std::sin(x); },
       false},
      {"cos", vmap::cos, [](double x) { return std::cos(x); }, [](float x) { return std::cos(x); },
       false},
      {"tanh", vmap::tanh, [](double x) { return std::tanh(x); },
       [](float x) { return std::tanh(x); }, false},
      {"sigmoid", vmap::sigmoid, [](double x) { return 1.0 / (1.0 + std::exp(-x)); },
       [](float x) { return 1.0f / (1.0f + std::exp(-x)); }, false},
  };
  return ops;
}

// Inputs of every class, each repeated in a run of 40 so that whole vectors of it form (a
// special value alone in a vector takes the scalar path for that vector only).
std::vector<double> probe_inputs() {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> classes = {
      0.0, -0.0, 1e-30, -1e-30, 1e-8, 0.5, 1.0, 2.0, 3.14159265, -2.5, 10.0, -10.0, 80.0, -80.0,
      88.5, -87.5, 95.0, -95.0, -103.0, 300.0, -300.0, 700.0, -700.0, 709.5, -745.0, 800.0,
      38000.0, -38999.0, 39001.0, 1e6, -1e6, 1e30, -1e30, 3.4e38, -3.4e38, 1e300, inf, -inf,
      std::numeric_limits<double>::quiet_NaN()};
  std::vector<double> result;
  for (double value : classes)
    for (int k = 0; k < 40; ++k) result.push_back(value * (1.0 + k * 1e-3));
  for (int k = 0; k < 2000; ++k) result.push_back(-50.0 + k * 0.05);  // a dense ordinary range
  return result;
}

// |got - want| <= rtol * |want|, NaN for NaN, infinities and zeros exactly (bit-exact when
// `exact`). Both sides come from the tensor's dtype: float inputs round before the reference.
template <class T>
void expect_matches(const std::vector<T>& got, const std::vector<T>& inputs,
                    const std::function<T(T)>& reference, bool exact, const char* name) {
  ASSERT_EQ(got.size(), inputs.size());
  const double rtol = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  int failures = 0;
  for (size_t k = 0; k < got.size() && failures < 5; ++k) {
    const T want = reference(inputs[k]);
    const bool ok = std::isnan(want)   ? std::isnan(got[k])
                    : exact || want == 0 || std::isinf(want)
                        ? got[k] == want && std::signbit(got[k]) == std::signbit(want)
                        : std::abs(double(got[k]) - double(want)) <= rtol * std::abs(double(want));
    if (!ok) ++failures;
    EXPECT_TRUE(ok) << name << "(" << inputs[k] << ") = " << got[k] << ", std:: gives " << want;
  }
}

TEST(FloatMath, MatchesStdOnEveryInputClass) {
  const std::vector<double> inputs = probe_inputs();
  const std::vector<float> inputs_float(inputs.begin(), inputs.end());
  const int64_t n = static_cast<int64_t>(inputs.size());
  Tensor x64 = empty({n}, kFloat64), x32 = empty({n}, kFloat32);
  std::copy(inputs.begin(), inputs.end(), x64.data_ptr<double>());
  std::copy(inputs_float.begin(), inputs_float.end(), x32.data_ptr<float>());
  for (const MathOp& op : math_ops()) {
    SCOPED_TRACE(op.name);
    const Tensor result64 = op.op(x64);
    EXPECT_EQ(result64.dtype(), kFloat64);
    expect_matches(elements<double>(result64), inputs, op.reference_double, op.exact, op.name);
    const Tensor result32 = op.op(x32);
    EXPECT_EQ(result32.dtype(), kFloat32);
    expect_matches(elements<float>(result32), inputs_float, op.reference_float, op.exact, op.name);
  }
}

// Every run length from 0 to 70 (tails of every size for 4, 8 and 16 lanes), from every start
// offset within a vector (unaligned loads), with one NaN in the middle.
TEST(FloatMath, EveryRunLengthAndOffset) {
  std::vector<float> storage(100);
  for (size_t k = 0; k < storage.size(); ++k) storage[k] = 0.1f * static_cast<float>(k) - 3.0f;
  storage[40] = NAN;
  const Tensor all = from_blob(storage.data(), {100});
  for (int64_t offset = 0; offset < 17; ++offset) {
    for (int64_t length = 0; length + offset <= 87; ++length) {
      const Tensor x = all.narrow(0, offset, length);
      const std::vector<float> inputs(storage.begin() + offset, storage.begin() + offset + length);
      for (const MathOp& op : math_ops())
        expect_matches(elements<float>(op.op(x)), inputs, op.reference_float, op.exact, op.name);
    }
  }
}

TEST(FloatMath, NonContiguousZeroDimEmptyAndIntegerInputs) {
  const Tensor x = random_tensor({37, 19}, kFloat32, 3);
  const std::vector<float> transposed_inputs = elements<float>(x.t());
  for (const MathOp& op : math_ops()) {
    SCOPED_TRACE(op.name);
    expect_matches(elements<float>(op.op(x.t())), transposed_inputs, op.reference_float,
                   op.exact, op.name);
    expect_matches(elements<float>(op.op(non_contiguous(x))), elements<float>(x),
                   op.reference_float, op.exact, op.name);
    EXPECT_EQ(op.op(tensor(2.0)).dim(), 0);
    expect_matches({op.op(tensor(2.0f)).item<float>()}, {2.0f}, op.reference_float, op.exact,
                   op.name);
    EXPECT_EQ(op.op(empty({0, 3}, kFloat64)).sizes().vec(), std::vector<int64_t>({0, 3}));
    // Integers and bools compute in float32.
    const Tensor ints = tensor({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17});
    const Tensor from_ints = op.op(ints);
    EXPECT_EQ(from_ints.dtype(), kFloat32);
    expect_matches(elements<float>(from_ints), elements<float>(ints.to(kFloat32)),
                   op.reference_float, op.exact, op.name);
    EXPECT_EQ(op.op(tensor({true, false})).dtype(), kFloat32);
  }
}

// Large enough to be split over threads: every chunk must be computed, none twice.
TEST(FloatMath, ThreadedSizes) {
  const Tensor x = random_tensor({300001}, kFloat32, 9);
  const std::vector<float> inputs = elements<float>(x);
  for (const MathOp& op : math_ops())
    expect_matches(elements<float>(op.op(x)), inputs, op.reference_float, op.exact, op.name);
}

// relu, abs and neg keep LibTorch's NaN, infinity and signed-zero results (checked against
// LibTorch 1.13 by hand: relu(NaN) = NaN, relu(-0) = -0), in runs long enough to vectorise.
TEST(FloatMath, ExactOpsKeepNanInfinityAndSignedZero) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> inputs = {NAN, -0.0, 0.0, -inf, inf, -2.5, 3.0};
  const std::vector<std::pair<Tensor (*)(const Tensor&), std::function<double(double)>>> ops = {
      {vmap::relu, [](double x) { return std::isnan(x) || !(x < 0) ? x : 0.0; }},
      {vmap::abs, [](double x) { return std::fabs(x); }},
      {vmap::neg, [](double x) { return -x; }},
  };
  for (Dtype dtype : {kFloat32, kFloat64}) {
    std::vector<double> repeated;
    for (int k = 0; k < 20; ++k) repeated.insert(repeated.end(), inputs.begin(), inputs.end());
    Tensor x = empty({static_cast<int64_t>(repeated.size())}, kFloat64);
    std::copy(repeated.begin(), repeated.end(), x.data_ptr<double>());
    x = x.to(dtype);
    for (const auto& [op, reference] : ops) {
      const std::vector<double> got = values(op(x));
      for (size_t k = 0; k < repeated.size(); ++k) {
        const double want = reference(repeated[k]);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got[k])) << repeated[k];
          continue;
        }
        EXPECT_EQ(got[k], want) << repeated[k];
        EXPECT_EQ(std::signbit(got[k]), std::signbit(want)) << repeated[k];
      }
    }
  }
}

}  // namespace
