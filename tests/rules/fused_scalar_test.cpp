// Scalar kernels (Note [Scalar kernels] in rules/include/vmap/fused_scalar.hpp): vb::fused_scalar
// as rewritten code calls it, against the same C++ run per example by hand.
#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace vmap {
namespace {

namespace vb = vmap::batched;

int escape(float cr, float ci, int max_iter) {
  float zr = 0.0f, zi = 0.0f;
  int k = 0;
  while (k < max_iter && zr * zr + zi * zi < 4.0f) {
    const float next_r = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = next_r;
    ++k;
  }
  return k;
}

// Two levels, each operand varying along one of them, and a number: the result covers
// every pair, each computed by the kernel's own loop.
TEST(ScalarKernel, OperandsOfDifferentLevelsAndANumber) {
  const Tensor re = arange(37).to(kFloat32) * 0.08f - 2.0f;
  const Tensor im = arange(11).to(kFloat32) * 0.2f - 1.0f;
  Tensor counts = zeros({11, 37}, kInt32);
  {
    vb::Level rows(0, 11);
    const vb::Value y = rows.index();
    vb::Level columns(0, 37);
    const vb::Value x = columns.index();
    vb::at(vb::at(counts, y), x) = vb::fused_scalar(
        [](float cr, float ci, int max_iter) { return escape(cr, ci, max_iter); },
        vb::at(re, x).item<float>(), vb::at(im, y).item<float>(), 50);
  }
  for (int64_t y = 0; y < 11; ++y)
    for (int64_t x = 0; x < 37; ++x)
      ASSERT_EQ(counts[y][x].item<int32_t>(),
                escape(re[x].item<float>(), im[y].item<float>(), 50))
          << y << ", " << x;
}

// Parameters read as their C++ types (an int64 operand into a double parameter) and the
// result's dtype that of the lambda's return type.
TEST(ScalarKernel, ParameterAndResultTypes) {
  const Tensor n = tensor({int64_t{3}, -2, 7, 0});
  Tensor out = zeros({4}, kFloat64);
  {
    vb::Level level(0, 4);
    const vb::Value i = level.index();
    const vb::Value value = vb::fused_scalar([](double v) { return v / 2.0; },
                                             vb::at(n, i).item<int64_t>());
    EXPECT_EQ(value.dtype(), kFloat64);
    vb::at(out, i) = value;
  }
  EXPECT_TRUE(vmap::equal(out, tensor({1.5, -1.0, 3.5, 0.0}))) << out;
}

// Under a vb::Where only the active examples run the kernel (an inactive one here would
// never leave its loop); the store leaves the others as they were.
TEST(ScalarKernel, OnlyTheActiveExamplesRun) {
  const Tensor starts = tensor({int64_t{6}, 0, -4, 27, 1});
  Tensor steps = full({5}, -1, kInt64);
  std::atomic<int> calls{0};
  {
    vb::Level level(0, 5);
    const vb::Value i = level.index();
    const vb::Value n = vb::at(starts, i).item<int64_t>();
    vb::Where positive(n > 0);
    vb::at(steps, i) = vb::fused_scalar(
        [&calls](int64_t m) {
          ++calls;
          int64_t count = 0;
          for (; m != 1; ++count) m = m % 2 == 0 ? m / 2 : 3 * m + 1;
          return count;
        },
        n);
  }
  EXPECT_EQ(calls.load(), 3);
  EXPECT_TRUE(vmap::equal(steps, tensor({int64_t{8}, -1, -1, 111, 0}))) << steps;
}

// No examples: nothing runs, nothing is stored.
TEST(ScalarKernel, NoExamples) {
  Tensor out = zeros({0}, kInt32);
  vb::Level level(0, 0);
  const vb::Value i = level.index();
  vb::at(out, i) = vb::fused_scalar([](int64_t v) { return static_cast<int>(v); }, i);
  EXPECT_EQ(out.numel(), 0);
}

// An operand with elements of its own per example is no C++ scalar: vmap::Error.
TEST(ScalarKernel, ATensorOperandIsAnError) {
  const Tensor x = zeros({3, 4});
  vb::Level level(0, 3);
  const vb::Value i = level.index();
  EXPECT_THROW(vb::fused_scalar([](float v) { return v; }, vb::at(x, i)), vmap::Error);
}

// Note [Element reads]: a tensor read element by element at an index the kernel computes,
// through its own strides (a transposed view, no copy) and dtype; item<T>() converts as
// Tensor::item<T>() does.
TEST(ElementReads, StridedAndConvertedAsTensorReads) {
  const Tensor x = (arange(12).reshape({4, 3}).to(kFloat64) * 0.5).t();  // [3, 4], strided
  Tensor out = zeros({3}, kFloat32);
  {
    vb::Level level(0, 3);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::fused_scalar(
        [](vb::Elements rows, int64_t i) {
          float s = 0;
          for (int64_t k = 0; k < 4; ++k) s += rows[i][k].item<float>() * (k + 1);
          return s;
        },
        x, i);
  }
  Tensor expected = zeros({3}, kFloat32);
  for (int64_t i = 0; i < 3; ++i) {
    float s = 0;
    for (int64_t k = 0; k < 4; ++k) s += x[i][k].item<float>() * (k + 1);
    expected[i] = s;
  }
  EXPECT_TRUE(vmap::equal(out, expected)) << out << expected;
}

// A kernel returning an element stores it bit for bit in the tensor's dtype: an int64 past
// 2^53 (no trip through double), a negative index from the end.
TEST(ElementReads, AReturnedElementKeepsItsDtype) {
  const int64_t big = (int64_t{1} << 53) + 1;
  const Tensor values = tensor({big, int64_t{-7}, big + 2});
  const Tensor picks = tensor({int64_t{-1}, int64_t{0}, int64_t{1}});
  Tensor out = zeros({3}, kInt64);
  {
    vb::Level level(0, 3);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::fused_scalar([](int64_t k, vb::Elements v) { return v[k]; },
                                      vb::at(picks, i).item<int64_t>(), values);
  }
  EXPECT_TRUE(vmap::equal(out, tensor({big + 2, big, int64_t{-7}}))) << out;
}

// An index out of range raises the error Tensor::operator[] raises, from the first example
// in loop order, whatever the threads; nothing outside the tensor is read.
TEST(ElementReads, AnIndexOutOfRangeIsTheLoopsError) {
  const Tensor x = arange(6).to(kFloat32);
  Tensor picks = zeros({1000}, kInt64);
  picks[700] = 9;
  picks[900] = 6;
  std::string expected;
  try {
    (void)x[9];
  } catch (const vmap::Error& e) {
    expected = e.what();
  }
  vb::Level level(0, 1000);
  const vb::Value i = level.index();
  try {
    vb::fused_scalar([](int64_t k, vb::Elements v) { return v[k].item<float>(); },
                     vb::at(picks, i).item<int64_t>(), x);
    ADD_FAILURE() << "no error";
  } catch (const vmap::Error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

}  // namespace
}  // namespace vmap
