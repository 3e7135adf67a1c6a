// Every op wired to the device backend, on device tensors, against the same op on CPU tensors
// (random inputs; float tolerance 1e-4). Each test runs twice: on the emulated backend (always,
// no GPU needed: it checks the dispatch and the scalar functors) and on CUDA (skipped without
// a device or without a CUDA build).
#include "emulated_backend.hpp"

#include <vmap/dlpack.hpp>
#include <vmap/vmap.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace vmap {
namespace {

enum class Backend { emulated, cuda };

class DeviceOps : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::emulated) {
      detail::register_device_backend(&emulated_);
      return;
    }
#ifndef VMAP_HAVE_CUDA
    GTEST_SKIP() << "the runtime was built without CUDA (nvcc not found at configure time)";
#else
    if (!detail::device_available()) GTEST_SKIP() << "no CUDA device present";
#endif
  }
  void TearDown() override {
    detail::register_device_backend(nullptr);
    if (GetParam() != Backend::emulated) return;
    EXPECT_GT(emulated_.calls(), 0) << "the ops never reached the device backend";
    EXPECT_EQ(emulated_.live_blocks(), 0) << "device memory leaked";
  }

  device_testing::EmulatedBackend emulated_;
};

const Dtype all_dtypes[] = {kFloat32, kFloat64, kInt32, kInt64, kBool};

Tensor random(detail::IntList sizes, Dtype dtype) {
  if (detail::is_floating(dtype)) return randn(sizes, dtype);
  if (dtype == kBool) return rand(sizes) > 0.5;
  return randint(-20, 20, sizes, dtype);
}

std::string describe(const Tensor& tensor) {
  std::ostringstream out;
  out << tensor;
  return out.str();
}

// The device result, brought back, equals the CPU result (floats within 1e-4, NaN == NaN).
void expect_matches(const Tensor& on_device, const Tensor& on_cpu) {
  ASSERT_EQ(on_device.device(), kCUDA);
  const Tensor back = on_device.to(kCPU);
  ASSERT_EQ(back.dtype(), on_cpu.dtype());
  ASSERT_TRUE(back.sizes() == on_cpu.sizes()) << describe(back) << describe(on_cpu);
  if (detail::is_floating(on_cpu.dtype()))
    EXPECT_TRUE(allclose(back, on_cpu, 1e-4, 1e-5, /*equal_nan=*/true))
        << describe(back) << describe(on_cpu);
  else
    EXPECT_TRUE(equal(back, on_cpu)) << describe(back) << describe(on_cpu);
}

// op on device copies of the inputs vs op on the CPU inputs.
void expect_op_matches(const std::function<Tensor(const std::vector<Tensor>&)>& op,
                       const std::vector<Tensor>& cpu_inputs) {
  std::vector<Tensor> device_inputs;
  for (const Tensor& input : cpu_inputs) device_inputs.push_back(input.to(kCUDA));
  expect_matches(op(device_inputs), op(cpu_inputs));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST_P(DeviceOps, CopiesToTheDeviceAndBack) {
  for (Dtype dtype : all_dtypes) {
    const Tensor x = random({3, 5}, dtype);
    const Tensor on_device = x.to(kCUDA);
    EXPECT_EQ(on_device.device(), kCUDA);
    EXPECT_TRUE(equal(on_device.to(kCPU), x));
    EXPECT_TRUE(equal(x.t().to(kCUDA).to(kCPU), x.t()));  // non-contiguous source
    expect_matches(on_device.t().contiguous(), x.t().contiguous());
    expect_matches(on_device.clone(), x);
  }
  const Tensor empty_input = zeros({0, 4});
  EXPECT_EQ(empty_input.to(kCUDA).to(kCPU).numel(), 0);
}

TEST_P(DeviceOps, Factories) {
  const TensorOptions on_device = TensorOptions(kFloat64).device(kCUDA);
  expect_matches(zeros({2, 3}, kCUDA), zeros({2, 3}));
  expect_matches(ones({4}, TensorOptions(kInt32).device(kCUDA)), ones({4}, kInt32));
  expect_matches(full({2, 2}, 2.5, on_device), full({2, 2}, 2.5, kFloat64));
  const Tensor x = random({3, 4}, kFloat32).to(kCUDA);
  expect_matches(zeros_like(x), zeros({3, 4}));
  expect_matches(full_like(x, 7), full({3, 4}, 7.0f));
  EXPECT_EQ(empty({5}, kCUDA).device(), kCUDA);
}

TEST_P(DeviceOps, BinaryOpsBroadcastAndPromote) {
  using Inputs = const std::vector<Tensor>&;
  const std::vector<std::function<Tensor(Inputs)>> any_dtype = {
      [](Inputs t) { return t[0] + t[1]; },     [](Inputs t) { return t[0] * t[1]; },
      [](Inputs t) { return maximum(t[0], t[1]); }, [](Inputs t) { return minimum(t[0], t[1]); },
      [](Inputs t) { return t[0] == t[1]; },    [](Inputs t) { return t[0] != t[1]; },
      [](Inputs t) { return t[0] < t[1]; },     [](Inputs t) { return t[0] <= t[1]; },
      [](Inputs t) { return t[0] > t[1]; },     [](Inputs t) { return t[0] >= t[1]; },
      [](Inputs t) { return t[0] / t[1]; },     [](Inputs t) { return t[0] + 2; },
      [](Inputs t) { return 3 * t[0]; },        [](Inputs t) { return t[0] / 2.0; },
      [](Inputs t) { return t[0] < 0.5; },      [](Inputs t) { return pow(t[0], 2); },
  };
  for (Dtype a_dtype : all_dtypes)
    for (Dtype b_dtype : all_dtypes) {
      SCOPED_TRACE(::testing::Message() << a_dtype << " with " << b_dtype);
      const std::vector<Tensor> inputs = {random({4, 1, 5}, a_dtype), random({3, 5}, b_dtype)};
      for (const auto& op : any_dtype) expect_op_matches(op, inputs);
      if (a_dtype != kBool && b_dtype != kBool)
        expect_op_matches([](Inputs t) { return t[0] - t[1]; }, inputs);
    }
  const std::vector<Tensor> floats = {rand({6, 7}) + 0.5, randn({7})};
  expect_op_matches([](Inputs t) { return pow(t[0], t[1]); }, floats);
  expect_op_matches([](Inputs t) { return 2.0 - t[0]; }, floats);
  const std::vector<Tensor> masks = {random({8, 3}, kBool), random({8, 3}, kBool)};
  expect_op_matches([](Inputs t) { return t[0] & t[1]; }, masks);
  expect_op_matches([](Inputs t) { return t[0] | t[1]; }, masks);
  expect_op_matches([](Inputs t) { return logical_and(t[0], t[1]); }, masks);
  expect_op_matches([](Inputs t) { return logical_or(t[0], t[1]); }, masks);
  expect_op_matches([](Inputs t) { return !t[0]; }, masks);
  const std::vector<Tensor> ints = {random({5, 4}, kInt64), random({5, 4}, kInt64)};
  expect_op_matches([](Inputs t) { return t[0] & t[1]; }, ints);
  // A device 0-d tensor broadcasts like any other operand.
  expect_op_matches([](Inputs t) { return t[0] * t[1]; }, {randn({3, 3}), randn({})});
}

// Rows of a [rows, inner] loop whose inner dim is contiguous or broadcast run as vectors
// (Note [Rows of vectors] in runtime/cuda/elementwise.cu); rows that start off a vector
// boundary, odd inner sizes and a single broadcast element do not, and must agree as well.
TEST_P(DeviceOps, BroadcastRowsAndColumns) {
  using Inputs = const std::vector<Tensor>&;
  const auto add = [](Inputs t) { return t[0] + t[1]; };
  const auto mul = [](Inputs t) { return t[0] * t[1]; };
  for (Dtype dtype : all_dtypes) {
    SCOPED_TRACE(::testing::Message() << dtype);
    for (const auto& op : {std::function<Tensor(Inputs)>(add), std::function<Tensor(Inputs)>(mul)}) {
      expect_op_matches(op, {random({300, 64}, dtype), random({64}, dtype)});     // rows
      expect_op_matches(op, {random({64}, dtype), random({300, 64}, dtype)});     // rows, first
      expect_op_matches(op, {random({300, 8}, dtype), random({300, 1}, dtype)});  // columns
      expect_op_matches(op, {random({7, 12}, dtype), random({7, 1}, dtype)});
      expect_op_matches(op, {random({6, 9}, dtype), random({9}, dtype)});  // odd inner size
      expect_op_matches(op, {random({33}, dtype), random({1}, dtype)});    // one element
    }
    // Rows that start one element off a vector boundary, and a strided inner dim.
    expect_op_matches([](Inputs t) { return t[0].narrow(1, 1, 8) + t[1]; },
                      {random({6, 9}, dtype), random({8}, dtype)});
    expect_op_matches([](Inputs t) { return t[0].narrow(0, 1, 5) + t[1]; },
                      {random({6, 8}, dtype), random({8}, dtype)});
    expect_op_matches([](Inputs t) { return t[0].transpose(0, 1) + t[1]; },
                      {random({8, 8}, dtype), random({8}, dtype)});
  }
  // Promotion between the operands, and a result written into a strided destination.
  expect_op_matches(add, {random({16, 12}, kFloat64), random({12}, kInt32)});
  expect_op_matches(
      [](Inputs t) {
        Tensor out = zeros({8, 16}, TensorOptions(t[0].device())).transpose(0, 1);
        out.copy_(t[0] * t[1]);
        return out;
      },
      {random({16, 8}, kFloat32), random({8}, kFloat32)});
}

TEST_P(DeviceOps, UnaryOps) {
  using Inputs = const std::vector<Tensor>&;
  const std::vector<std::function<Tensor(Inputs)>> ops = {
      [](Inputs t) { return -t[0]; },          [](Inputs t) { return abs(t[0]); },
      [](Inputs t) { return relu(t[0]); },     [](Inputs t) { return sign(t[0]); },
      [](Inputs t) { return sqrt(abs(t[0])); }, [](Inputs t) { return exp(t[0]); },
      [](Inputs t) { return log(abs(t[0])); }, [](Inputs t) { return sin(t[0]); },
      [](Inputs t) { return cos(t[0]); },      [](Inputs t) { return tanh(t[0]); },
      [](Inputs t) { return sigmoid(t[0]); },  [](Inputs t) { return sqrt(t[0]); },
  };
  for (Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    for (const auto& op : ops) expect_op_matches(op, {random({7, 9}, dtype)});
    // Strided (transposed) input: the engine's strided path.
    for (const auto& op : ops) expect_op_matches([&](Inputs t) { return op({t[0].t()}); },
                                                 {random({5, 3}, dtype)});
  }
}

// Every op of the runtime's pointwise op list (Note [Pointwise op list]) runs on the device as
// on the CPU, or raises on both (an op refusing a dtype, an integer division by zero).
TEST_P(DeviceOps, EveryOpOfThePointwiseList) {
  using Inputs = const std::vector<Tensor>&;
  auto expect_same_or_raises = [](const char* name, const std::function<Tensor(Inputs)>& op,
                                  const std::vector<Tensor>& inputs) {
    SCOPED_TRACE(name);
    bool raised = false;
    try {
      op(inputs);
    } catch (const Error&) {
      raised = true;
    }
    std::vector<Tensor> on_device;
    for (const Tensor& input : inputs) on_device.push_back(input.to(kCUDA));
    if (raised) EXPECT_THROW(op(on_device), Error);
    else expect_op_matches(op, inputs);
  };
  for (Dtype dtype : all_dtypes) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const std::vector<Tensor> inputs = {random({7, 9}, dtype), random({9}, dtype) + 1};
    const std::vector<Tensor> strided = {random({9, 7}, dtype).t(), random({9}, dtype) + 1};
    for (const auto& operands : {inputs, strided}) {
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) \
  expect_same_or_raises(#name, [](Inputs t) { return name(t[0]); }, operands);
#define VMAP_BINARY_OP(name, Functor, domain)                                         \
  expect_same_or_raises(#name, [](Inputs t) { return name(t[0], t[1]); }, operands); \
  expect_same_or_raises(#name, [](Inputs t) { return t[0].name(2); }, operands);
#include <vmap/detail/pointwise_ops.def>
    }
  }
}

// The SPEC section 6 ops composed of runtime ops (gelu, softplus, div with a rounding mode,
// `%`) run on the device as on the CPU.
TEST_P(DeviceOps, ComposedActivationsAndRoundedDivision) {
  using Inputs = const std::vector<Tensor>&;
  for (Dtype dtype : {kFloat32, kFloat64})
    expect_op_matches(
        [](Inputs t) {
          return gelu(t[0]) + gelu(t[0], "tanh") + softplus(t[0]) + softplus(t[0], 2, 1);
        },
        {random({4, 5}, dtype)});
  for (Dtype dtype : {kFloat32, kInt32, kInt64})
    expect_op_matches(
        [](Inputs t) {
          return div(t[0], t[1], "trunc") + div(t[0], t[1], "floor") + t[0].div(3, "trunc") +
                 t[0] % t[1] + t[0] % 4 + 7 % t[1];
        },
        {random({4, 5}, dtype), random({5}, dtype).abs() + 1});
}

// sort, argsort and topk (positions on the host, the values gathered on the device: Note
// [Sorting]) and one_hot (composed of device ops) as on the CPU.
TEST_P(DeviceOps, SortingAndOneHot) {
  using Inputs = const std::vector<Tensor>&;
  for (Dtype dtype : all_dtypes) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor x = random({4, 6}, dtype);
    expect_op_matches([](Inputs t) { return std::get<0>(sort(t[0])); }, {x});
    expect_op_matches([](Inputs t) { return std::get<1>(t[0].sort(0, true)); }, {x});
    expect_op_matches([](Inputs t) { return argsort(t[0].t(), -1, true); }, {x});
    if (dtype == kBool) continue;  // topk: not for bools (LibTorch's)
    expect_op_matches([](Inputs t) { return std::get<0>(topk(t[0], 3)); }, {x});
    expect_op_matches([](Inputs t) { return std::get<1>(t[0].topk(2, 0, false)); }, {x});
  }
  expect_op_matches([](Inputs t) { return one_hot(t[0]); }, {randint(0, 5, {3, 4})});
  expect_op_matches([](Inputs t) { return one_hot(t[0], 7); }, {randint(0, 5, {6})});
  EXPECT_NE(error_of([] { one_hot(tensor({0, 4}).to(kInt64).to(kCUDA), 3); }).find("one_hot"),
            std::string::npos);
}

TEST_P(DeviceOps, WhereClampAndConversions) {
  using Inputs = const std::vector<Tensor>&;
  const std::vector<Tensor> inputs = {random({6, 4}, kBool), randn({6, 4}), randn({4})};
  expect_op_matches([](Inputs t) { return where(t[0], t[1], t[2]); }, inputs);
  expect_op_matches([](Inputs t) { return where(t[0], t[1], 0.0); }, inputs);
  expect_op_matches([](Inputs t) { return clamp(t[1], -0.5, 0.5); }, inputs);
  for (Dtype from : all_dtypes)
    for (Dtype to : all_dtypes)
      expect_op_matches([to](Inputs t) { return t[0].to(to); }, {random({3, 7}, from) * 3});
  // NaN and out-of-range floats convert to integers as on the CPU.
  expect_op_matches([](Inputs t) { return t[0].to(kInt32); },
                    {tensor({1e20f, -1e20f, std::nanf(""), -2.5f, 3.9f})});
}

TEST_P(DeviceOps, InPlaceOpsAndWrites) {
  const Tensor a = randn({4, 5}), b = randn({5});
  Tensor x = a.clone(), y = a.to(kCUDA);
  const Tensor b_device = b.to(kCUDA);
  x += b, y += b_device;
  x *= 2, y *= 2;
  x -= b, y -= b_device;
  x /= b, y /= b_device;
  expect_matches(y, x);
  x[1] = b, y[1] = b_device;  // writes through a view
  x[2] = 3.0, y[2] = 3.0;
  x.select(1, 0).fill_(-1), y.select(1, 0).fill_(-1);
  expect_matches(y, x);
  x.t().copy_(randn({5, 4}).abs().t().t()), y.copy_(x);  // copy_ from the CPU
  expect_matches(y, x);
  Tensor on_cpu = zeros({4, 5});
  on_cpu.copy_(y);  // copy_ to the CPU
  EXPECT_TRUE(equal(on_cpu, x));
  Tensor ints = zeros({4, 5}, kInt64).to(kCUDA);
  ints.copy_(y * 10);  // with conversion
  expect_matches(ints, (x * 10).to(kInt64));
  y.zero_();
  expect_matches(y, zeros({4, 5}));
}

TEST_P(DeviceOps, Reductions) {
  for (Dtype dtype : all_dtypes) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor x = random({6, 40, 3}, dtype);
    using Inputs = const std::vector<Tensor>&;
    expect_op_matches([](Inputs t) { return t[0].sum(); }, {x});
    expect_op_matches([](Inputs t) { return t[0].sum({2}); }, {x});  // short lines
    expect_op_matches([](Inputs t) { return t[0].sum({1}, true); }, {x});
    expect_op_matches([](Inputs t) { return t[0].sum({0, 2}); }, {x});
    expect_op_matches([](Inputs t) { return sum(t[0].t(), {0}); }, {x[0]});
    if (dtype == kBool) continue;
    expect_op_matches([](Inputs t) { return amax(t[0], {1}); }, {x});
    expect_op_matches([](Inputs t) { return amin(t[0], {0, 1}); }, {x});
    if (detail::is_floating(dtype))
      expect_op_matches([](Inputs t) { return t[0].mean({1}); }, {x});
  }
  expect_matches(zeros({0, 3}, kCUDA).sum({0}), zeros({3}));
}

TEST_P(DeviceOps, IndexAndLogicalReductions) {
  using Inputs = const std::vector<Tensor>&;
  for (Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    // Small integers repeat, so ties decide: the first occurrence wins on both sides.
    const Tensor x = detail::is_floating(dtype) ? random({5, 7, 3}, dtype)
                                                : randint(0, 3, {5, 7, 3}, dtype);
    expect_op_matches([](Inputs t) { return argmax(t[0], 1); }, {x});
    expect_op_matches([](Inputs t) { return argmin(t[0], 0, true); }, {x});
    expect_op_matches([](Inputs t) { return t[0].argmax(); }, {x});
    expect_op_matches([](Inputs t) { return argmin(t[0].transpose(0, 2), -1); }, {x});
    expect_op_matches([](Inputs t) { return argmax(t[0], std::nullopt, true); }, {x});
  }
  // NaN counts as the extreme, its first occurrence wins; a 0-d input gives 0.
  const float nan = std::nanf("");
  const Tensor with_nan = tensor({1.0f, nan, 5.0f, nan, -2.0f}).view({1, 5});
  expect_op_matches([](Inputs t) { return argmax(t[0], 1); }, {with_nan});
  expect_op_matches([](Inputs t) { return argmin(t[0], 1); }, {with_nan});
  expect_op_matches([](Inputs t) { return argmax(t[0], 0); }, {tensor(3.0)});
  EXPECT_NE(error_of([] { argmax(zeros({0, 3}, kCUDA), 0); }).find("non-zero size"),
            std::string::npos);
  EXPECT_NE(error_of([] { argmax(zeros({3}, kBool).to(kCUDA)); }).find("Bool"),
            std::string::npos);

  for (Dtype dtype : all_dtypes) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor x = dtype == kBool ? rand({4, 6}) > 0.8 : randint(0, 2, {4, 6}).to(dtype);
    for (const auto& op : std::vector<std::function<Tensor(Inputs)>>{
             [](Inputs t) { return any(t[0]); }, [](Inputs t) { return all(t[0]); },
             [](Inputs t) { return any(t[0], 1); }, [](Inputs t) { return all(t[0], 0, true); },
             [](Inputs t) { return t[0].any(0); }, [](Inputs t) { return all(t[0].t(), 1); }})
      expect_op_matches(op, {x});
  }
  expect_op_matches([](Inputs t) { return any(t[0], 0); }, {zeros({0, 3})});
  expect_op_matches([](Inputs t) { return all(t[0], 0); }, {zeros({0, 3})});
}

TEST_P(DeviceOps, SoftmaxAndTriangles) {
  using Inputs = const std::vector<Tensor>&;
  for (Dtype dtype : {kFloat32, kFloat64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor x = random({3, 40, 5}, dtype) * 4;
    for (int64_t dim : {0, 1, 2, -1}) {
      expect_op_matches([dim](Inputs t) { return softmax(t[0], dim); }, {x});
      expect_op_matches([dim](Inputs t) { return log_softmax(t[0], dim); }, {x});
    }
    expect_op_matches([](Inputs t) { return softmax(t[0].transpose(0, 1), 0); }, {x});
    expect_op_matches([](Inputs t) { return log_softmax(t[0], 0); }, {tensor(2.5).to(dtype)});
    expect_op_matches([](Inputs t) { return softmax(t[0], 1); }, {zeros({2, 0}, dtype)});
  }
  // A NaN or an inf makes its line NaN, as on the CPU and in LibTorch.
  const float inf = std::numeric_limits<float>::infinity();
  expect_op_matches([](Inputs t) { return softmax(t[0], 1); },
                    {tensor({1.0f, std::nanf(""), 2.0f, 0.5f, inf, 1.0f}).view({2, 3})});
  EXPECT_NE(error_of([] { softmax(ones({3}, kInt64).to(kCUDA), 0); }).find("floating"),
            std::string::npos);

  for (Dtype dtype : all_dtypes) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor x = random({2, 5, 7}, dtype);
    for (int64_t diagonal : {-6, -1, 0, 2, 9}) {
      expect_op_matches([diagonal](Inputs t) { return triu(t[0], diagonal); }, {x});
      expect_op_matches([diagonal](Inputs t) { return tril(t[0], diagonal); }, {x});
    }
    expect_op_matches([](Inputs t) { return triu(t[0].transpose(1, 2)); }, {x});
  }
  EXPECT_NE(error_of([] { triu(ones({4}, kCUDA)); }).find("at least 2 dimensions"),
            std::string::npos);
}

TEST_P(DeviceOps, CppScalarArithmeticAndScaledForms) {
  using Inputs = const std::vector<Tensor>&;
  // C++ `/` and `%` in batched code: integers truncate (toward zero, x / -1 wraps).
  for (Dtype dtype : {kInt32, kInt64, kFloat32, kFloat64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor a = random({6, 5}, dtype) * 7;
    Tensor b = random({5}, dtype);
    b = where(b == 0, tensor(3).to(dtype), b);
    expect_op_matches([](Inputs t) { return detail::div_trunc(t[0], t[1]); }, {a, b});
    expect_op_matches([](Inputs t) { return detail::remainder_trunc(t[0], t[1]); }, {a, b});
  }
  const Tensor lowest = tensor({std::numeric_limits<int64_t>::lowest(), 7}).to(kInt64);
  expect_op_matches([](Inputs t) { return detail::div_trunc(t[0], t[1]); },
                    {lowest, tensor({-1, -1}).to(kInt64)});
  const Tensor with_zero = tensor({2, 0, 1}).to(kInt32).to(kCUDA);
  EXPECT_NE(error_of([&] { detail::div_trunc(with_zero, with_zero); }).find("division by zero"),
            std::string::npos);
  EXPECT_NE(error_of([&] { detail::remainder_trunc(with_zero, with_zero); })
                .find("division by zero"),
            std::string::npos);

  // add / sub with alpha, clamp with one bound (NaN kept, a missing bound never binds).
  for (Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const std::vector<Tensor> inputs = {random({4, 6}, dtype), random({6}, dtype)};
    expect_op_matches([](Inputs t) { return add(t[0], t[1], 3); }, inputs);
    expect_op_matches([](Inputs t) { return sub(t[0], t[1], -2); }, inputs);
    expect_op_matches([](Inputs t) { return add(t[0], 5, 2); }, inputs);
    expect_op_matches([](Inputs t) { return clamp(t[0], 0, std::nullopt); }, inputs);
    expect_op_matches([](Inputs t) { return clamp(t[0], std::nullopt, 1); }, inputs);
    expect_op_matches([](Inputs t) { return clamp(t[0], t[1], std::nullopt); }, inputs);
  }
  const float inf = std::numeric_limits<float>::infinity();
  expect_op_matches([](Inputs t) { return clamp(t[0], -1.0, std::nullopt); },
                    {tensor({-inf, inf, std::nanf(""), -3.0f, 2.0f})});
  expect_op_matches([](Inputs t) { return clamp(t[0], std::nullopt, 1.0); },
                    {tensor({-inf, inf, std::nanf(""), -3.0f, 2.0f})});
  expect_op_matches([](Inputs t) { return add(t[0], t[1], 2.5); },
                    {randn({3, 3}), randn({3, 3})});
}

TEST_P(DeviceOps, MatrixProducts) {
  using Inputs = const std::vector<Tensor>&;
  for (Dtype dtype : {kFloat32, kFloat64}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor a = randn({5, 7}, dtype), b = randn({7, 3}, dtype);
    expect_op_matches([](Inputs t) { return mm(t[0], t[1]); }, {a, b});
    expect_op_matches([](Inputs t) { return matmul(t[0].t(), t[1].t()); }, {b, a});
    expect_op_matches([](Inputs t) { return bmm(t[0], t[1]); },
                      {randn({4, 5, 7}, dtype), randn({4, 7, 3}, dtype)});
    expect_op_matches([](Inputs t) { return matmul(t[0], t[1]); },
                      {randn({2, 4, 5, 7}, dtype), b});  // broadcast batch
    expect_op_matches([](Inputs t) { return matmul(t[0], t[1].transpose(1, 2)); },
                      {randn({3, 64, 48}, dtype), randn({3, 32, 48}, dtype)});
    expect_op_matches([](Inputs t) { return mv(t[0], t[1]); }, {a, randn({7}, dtype)});
    expect_op_matches([](Inputs t) { return dot(t[0], t[1]); },
                      {randn({9}, dtype), randn({9}, dtype)});
    expect_op_matches([](Inputs t) { return matmul(t[0], t[1]); },
                      {randn({4, 0}, dtype), randn({0, 3}, dtype)});
  }
  const Tensor ints = randint(0, 5, {3, 3}).to(kCUDA);
  EXPECT_NE(error_of([&] { mm(ints, ints); }).find("CUDA"), std::string::npos);
}

TEST_P(DeviceOps, GatherAndIndexSelect) {
  using Inputs = const std::vector<Tensor>&;
  for (Dtype dtype : all_dtypes) {
    SCOPED_TRACE(::testing::Message() << dtype);
    const Tensor x = random({4, 6}, dtype);
    expect_op_matches([](Inputs t) { return gather(t[0], 1, t[1]); },
                      {x, randint(0, 6, {4, 3})});
    expect_op_matches([](Inputs t) { return gather(t[0].t(), 0, t[1]); },
                      {x, randint(0, 6, {2, 4})});
    expect_op_matches([](Inputs t) { return index_select(t[0], 0, t[1]); },
                      {x, randint(0, 4, {7})});
    expect_op_matches([](Inputs t) { return index_select(t[0], 1, t[1]); },
                      {x, randint(0, 6, {5}, kInt32)});
    expect_op_matches([](Inputs t) { return t[0][t[1]]; }, {x, randint(0, 4, {3})});
  }
  const Tensor x = randn({4, 6}).to(kCUDA);
  const Tensor bad = tensor({0, 9, 1}).to(kInt64).to(kCUDA);
  EXPECT_NE(error_of([&] { index_select(x, 1, bad); }).find("index 9 out of range"),
            std::string::npos);
  EXPECT_NE(error_of([&] { gather(x, 0, bad.view({1, 3})); }).find("out of range"),
            std::string::npos);
}

// Note [Results into a destination]: on the device too, a product, linear and a gather land
// in a destination that fits and overlaps nothing they read.
TEST_P(DeviceOps, ResultsIntoADestination) {
  const Tensor x = randn({6, 7}), weight = randn({5, 7}), bias = randn({5});
  const Tensor index = randint(0, 7, {6, 4});
  const std::vector<std::pair<std::function<Tensor(const std::vector<Tensor>&)>, Tensor>> ops{
      {[](const std::vector<Tensor>& t) { return linear(t[0], t[1], t[2]); }, zeros({6, 5})},
      {[](const std::vector<Tensor>& t) { return mm(t[0], t[1].t()); }, zeros({6, 5})},
      {[](const std::vector<Tensor>& t) { return gather(t[0], 1, t[3]); }, zeros({6, 4})}};
  for (const auto& [op, like] : ops) {
    const std::vector<Tensor> on_device{x.to(kCUDA), weight.to(kCUDA), bias.to(kCUDA),
                                        index.to(kCUDA)};
    const Tensor out = zeros(like.sizes(), kCUDA);
    {
      detail::ResultInto into(out);
      EXPECT_EQ(op(on_device).raw_data(), out.raw_data());
    }
    expect_matches(out, op({x, weight, bias, index}));
  }
  // The bias is the destination: linear leaves it alone.
  const Tensor buffer = randn({6, 5}).to(kCUDA), before = buffer.to(kCPU);
  Tensor result;
  {
    detail::ResultInto into(buffer);
    result = linear(x.to(kCUDA), weight.to(kCUDA), buffer[2]);
  }
  EXPECT_NE(result.raw_data(), buffer.raw_data());
  expect_matches(result, linear(x, weight, before[2]));
  expect_matches(buffer, before);
}

TEST_P(DeviceOps, MixedDevicesAreErrors) {
  const Tensor on_device = randn({4, 5}).to(kCUDA), on_cpu = randn({4, 5});
  EXPECT_NE(error_of([&] { (void)(on_device + on_cpu); }).find("same device"), std::string::npos);
  EXPECT_NE(error_of([&] { on_device += on_cpu; }).find("same device"), std::string::npos);
  EXPECT_NE(error_of([&] { on_cpu += on_device; }).find("CUDA"), std::string::npos);
  EXPECT_NE(error_of([&] { mm(on_device, on_cpu.t()); }).find("same device"), std::string::npos);
  EXPECT_NE(error_of([&] { index_select(on_device, 0, tensor({0}).to(kInt64)); })
                .find("same device"),
            std::string::npos);
  // A CPU 0-d tensor joins a device op, as in LibTorch.
  expect_matches(on_device * tensor(2.0f), on_device.to(kCPU) * 2);
}

TEST_P(DeviceOps, ItemAndPrinting) {
  const Tensor x = randn({3, 4});
  const Tensor on_device = x.to(kCUDA);
  EXPECT_NEAR(on_device.sum().item<float>(), x.sum().item<float>(), 1e-4);
  EXPECT_EQ(on_device[1][2].item<float>(), x[1][2].item<float>());
  EXPECT_NE(describe(on_device).find("CUDAFloatType"), std::string::npos);
}

// DLPack capsules of device tensors (vmap/dlpack.hpp): kDLCUDA device 0, the device address
// itself, and back to a tensor over the same memory; the deleter frees nothing of ours early.
TEST_P(DeviceOps, DlpackCapsulesOfDeviceTensors) {
  for (Dtype dtype : all_dtypes) {
    const Tensor x = random({3, 4}, dtype);
    const Tensor column = x.to(kCUDA).select(1, 2);  // strided, with an offset
    DLManagedTensor* capsule = to_dlpack(column);
    EXPECT_EQ(capsule->dl_tensor.device.device_type, kDLCUDA);
    EXPECT_EQ(capsule->dl_tensor.device.device_id, 0);
    EXPECT_EQ(capsule->dl_tensor.data, column.raw_data());
    EXPECT_EQ(capsule->dl_tensor.strides[0], 4);
    const Tensor back = from_dlpack(capsule);
    EXPECT_EQ(back.raw_data(), column.raw_data());
    expect_matches(back, x.select(1, 2));
  }
  // A device capsule that outlives every tensor of ours keeps the memory.
  DLManagedTensor* capsule = to_dlpack(full({5}, 2.5).to(kCUDA));
  const Tensor again = from_dlpack(capsule);
  expect_matches(again * 2, full({5}, 5.0));
}

// LibTorch-style indexing of device tensors: the positions are read on the host, the
// values never leave the device.
TEST_P(DeviceOps, IndexAndIndexPutWithTensorIndices) {
  using namespace vmap::indexing;
  const Tensor x = random({4, 5, 3}, kFloat32);
  const Tensor rows = tensor({3, 0, -1});
  const Tensor mask = random({4, 5}, kFloat32) > 0;
  expect_matches(x.to(kCUDA).index({rows, Slice(1, None, 2)}), x.index({rows, Slice(1, None, 2)}));
  expect_matches(x.to(kCUDA).index({mask.to(kCUDA)}), x.index({mask}));
  expect_matches(x.to(kCUDA).index({Ellipsis, 1}), x.index({Ellipsis, 1}));
  Tensor on_device = x.to(kCUDA);
  Tensor on_cpu = x.clone();
  on_device.index_put_({Slice(), tensor({4, 1})}, full({2, 3}, 7.f).to(kCUDA));
  on_cpu.index_put_({Slice(), tensor({4, 1})}, full({2, 3}, 7.f));
  on_device.index_put_({mask.to(kCUDA)}, -1.f);
  on_cpu.index_put_({mask}, -1.f);
  expect_matches(on_device, on_cpu);
}

INSTANTIATE_TEST_SUITE_P(Backends, DeviceOps,
                         ::testing::Values(Backend::emulated, Backend::cuda),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::emulated ? "Emulated" : "Cuda";
                         });

// The emulated device's memory really is off limits to host code outside backend calls, so
// the tests above would catch a host read of device data.
TEST(EmulatedBackend, HostReadsOfDeviceMemoryCrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        device_testing::EmulatedBackend backend;
        detail::register_device_backend(&backend);
        const Tensor on_device = ones({4}).to(kCUDA);
        volatile float value = *on_device.data_ptr<float>();
        (void)value;
      },
      "");
}

TEST(DeviceBackend, CudaTensorsWithoutADeviceAreErrors) {
  if (detail::device_available()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_NE(error_of([] { zeros({2}, kCUDA); }).find("CUDA"), std::string::npos);
  EXPECT_NE(error_of([] { ones({2}).to(kCUDA); }).find("CUDA"), std::string::npos);
}

}  // namespace
}  // namespace vmap
