// Scalar kernels (Note [Scalar kernels] in rules/include/vmap/fused_scalar.hpp): vb::fused_scalar
// as rewritten code calls it, against the same C++ run per example by hand.
#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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

// Rows of examples on SIMD lanes (Note [Scalar kernels over rows of examples]): a loop left
// by a `break`, straight-line code and `?:`, over rows whose lengths are no multiple of a
// vector, with operands broadcast along one level each; as the same C++ run per example.
TEST(ScalarKernel, RowsOfExamplesAsThePerExampleCode) {
  const auto escape_by_break = [](float cr, float ci, int max_iter) {
    float zr = 0.0f, zi = 0.0f;
    int k = 0;
    for (; k < max_iter; ++k) {
      if (zr * zr + zi * zi >= 4.0f) break;
      const float next_r = zr * zr - zi * zi + cr;
      zi = 2.0f * zr * zi + ci;
      zr = next_r;
    }
    return k;
  };
  const auto masked = [](int64_t i, int64_t j) { return static_cast<float>(j >= i); };
  const auto squares = [](float v, double scale) {
    for (int round = 0; round < 5; ++round) v = v * v;
    return v < 1.0f ? v * scale : -scale;
  };
  // The Mandelbrot sample's grid, whose escape counts depend on every rounding; rows of an
  // odd length.
  const int64_t rows = 131, columns = 383;
  const Tensor re = arange(columns).to(kFloat32) * (3.0f / columns) - 2.0f;
  const Tensor im = arange(rows).to(kFloat32) * (2.0f / rows) - 1.0f;
  Tensor counts = zeros({rows, columns}, kInt32), mask = zeros({rows, columns}),
         powers = zeros({columns, rows}, kFloat64);
  {
    vb::Level y_level(0, rows);
    const vb::Value y = y_level.index();
    vb::Level x_level(0, columns);
    const vb::Value x = x_level.index();
    vb::at(vb::at(counts, y), x) = vb::fused_scalar(escape_by_break, vb::at(re, x).item<float>(),
                                                    vb::at(im, y).item<float>(), 256);
    vb::at(vb::at(mask, y), x) = vb::fused_scalar(masked, y, x);
    // Stored transposed: the slot is no contiguous run of the examples.
    vb::at(vb::at(powers, x), y) = vb::fused_scalar(squares, vb::at(re, x).item<float>(), 0.5);
  }
  for (int64_t y = 0; y < rows; ++y)
    for (int64_t x = 0; x < columns; ++x) {
      const float cr = re[x].item<float>(), ci = im[y].item<float>();
      ASSERT_EQ(counts[y][x].item<int32_t>(), escape_by_break(cr, ci, 256)) << y << ", " << x;
      ASSERT_EQ(mask[y][x].item<float>(), masked(y, x)) << y << ", " << x;
      ASSERT_EQ(powers[x][y].item<double>(), squares(cr, 0.5)) << y << ", " << x;
    }
}

// The loops' own indices (Note [Loop indices in scalar kernels]): computed by the kernel
// where every integer operand is one, read where another integer operand is passed too, the
// same values either way: loops that start past 0, an index converted to `int`, the row's
// own level's index or only outer ones, two copies of it (`int64_t jj = j;` beside j), rows
// longer than a block, and a sum of a kernel.
TEST(ScalarKernel, LoopIndicesAsTheLoopsOwn) {
  // Loops from 2, 1 and 5; a row of more than one block of 256. The outputs are indexed by
  // the indices themselves (their first slots unused).
  const int64_t a0 = 2, b0 = 1, c0 = 5, a1 = a0 + 3, b1 = b0 + 4, c1 = c0 + 301;
  const Tensor offsets = arange(b1) * 5 - 7;  // an integer operand that is no index
  Tensor computed = zeros({a1, b1, c1}, kInt64), outer_only = zeros({a1, b1, c1}),
         loaded = zeros({a1, b1, c1}, kInt64), copies = zeros({a1, b1, c1}, kInt64);
  double total = 0;
  const auto code = [](int64_t a, int b, int64_t c) { return (a * 1000 + b) * 7 - c * (c % 3); };
  {
    vb::Level a_level(a0, a1);
    const vb::Value a = a_level.index();
    vb::Level b_level(b0, b1);
    const vb::Value b = b_level.index();
    vb::Level c_level(c0, c1);
    const vb::Value c = c_level.index();
    vb::at(vb::at(vb::at(computed, a), b), c) = vb::fused_scalar(code, a, b, c);
    vb::at(vb::at(vb::at(outer_only, a), b), c) =
        vb::fused_scalar([](int64_t x, int64_t y) { return static_cast<float>(x * 2 >= y); }, b, a);
    vb::at(vb::at(vb::at(loaded, a), b), c) =
        vb::fused_scalar(code, a, vb::at(offsets, b).item<int64_t>(), c);
    const vb::Value c_copy = c;
    vb::at(vb::at(vb::at(copies, a), b), c) = vb::fused_scalar(
        [](int64_t x, int64_t y, int64_t z) { return x * 3 + y * 5 - z; }, c_copy, c, a);
    vb::accumulate(total,
                   vb::fused_scalar([](int64_t x, int64_t y) { return x * 0.5 - y; }, c, a),
                   vb::Reduce::add);
  }
  double expected_total = 0;
  for (int64_t a = a0; a < a1; ++a)
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t c = c0; c < c1; ++c) {
        ASSERT_EQ(computed[a][b][c].item<int64_t>(), code(a, static_cast<int>(b), c))
            << a << ", " << b << ", " << c;
        ASSERT_EQ(outer_only[a][b][c].item<float>(), b * 2 >= a ? 1.0f : 0.0f);
        const int64_t offset = offsets[b].item<int64_t>();
        ASSERT_EQ(loaded[a][b][c].item<int64_t>(), code(a, static_cast<int>(offset), c));
        ASSERT_EQ(copies[a][b][c].item<int64_t>(), c * 8 - a);
        expected_total += c * 0.5 - a;
      }
  EXPECT_DOUBLE_EQ(total, expected_total);
}

// `total += v` of a scalar kernel into a C++ double (Note [Sums of scalar kernels]): each
// value converted to double before it is added, as `+=` converts it (summed in float, the
// ones would vanish next to 2^24), over every pair of two levels.
TEST(ScalarKernel, SumsIntoADoubleConvertEachValue) {
  std::vector<float> values(1001, 1.0f);
  values[0] = 16777216.0f;  // 2^24
  const Tensor x = tensor(values);
  const Tensor y = tensor({1.0f, 2.0f, -0.5f});
  double total = 0.5;
  {
    vb::Level rows(0, x.size(0));
    const vb::Value i = rows.index();
    vb::Level columns(0, y.size(0));
    const vb::Value j = columns.index();
    vb::accumulate(total,
                   vb::fused_scalar([](float a, float b) { return a * b; },
                                    vb::at(x, i).item<float>(), vb::at(y, j).item<float>()),
                   vb::Reduce::add);
  }
  EXPECT_EQ(total, 0.5 + (16777216.0 + 1000.0) * 2.5);
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

// Note [Element stores]: a void kernel writes each example's own slot through a
// vb::WritableElements, in place: a transposed (strided) output, an int and a bool output
// converted as Tensor's `t[k] = v` converts, only the indices the loop reaches written.
TEST(ElementStores, StridedAndConvertedAsTensorStores) {
  Tensor out = zeros({5, 4}, kFloat64).t();  // [4, 5], strided
  Tensor ints = full({4, 5}, -1, kInt32);
  Tensor flags = zeros({4, 5}, kBool);
  {
    vb::Level level(0, 4);
    const vb::Value i = level.index();
    vb::fused_scalar(
        [](vb::WritableElements o, vb::WritableElements n, vb::WritableElements f, int64_t i) {
          for (int64_t j = 1; j < 5; ++j) {
            o[j] = 0.5 * static_cast<double>(i * 10 + j);
            n[j] = 2.75f * static_cast<float>(j);  // fill_'s conversion: truncated
            f[j] = j >= i;
          }
        },
        vb::at(out, i), vb::at(ints, i), vb::at(flags, i), i);
  }
  Tensor expected = zeros({4, 5}, kFloat64);
  Tensor expected_ints = full({4, 5}, -1, kInt32);
  Tensor expected_flags = zeros({4, 5}, kBool);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 1; j < 5; ++j) {
      expected[i][j] = 0.5 * static_cast<double>(i * 10 + j);
      expected_ints[i][j] = 2.75f * static_cast<float>(j);
      expected_flags[i][j] = j >= i;
    }
  EXPECT_TRUE(vmap::equal(out, expected)) << out << expected;
  EXPECT_TRUE(vmap::equal(ints, expected_ints)) << ints << expected_ints;
  EXPECT_TRUE(vmap::equal(flags, expected_flags)) << flags << expected_flags;
}

// A gather stored element by element: copy_ of an element, bit for bit in the same dtype,
// converted in another; a store to a row fills it, as Tensor's `t[k] = v` does.
TEST(ElementStores, ElementsAndRowsAsTensorStores) {
  const int64_t big = (int64_t{1} << 53) + 1;
  const Tensor values = tensor({big, int64_t{-7}, big + 2});
  Tensor same = zeros({2, 3}, kInt64);
  Tensor converted = zeros({2, 3}, kFloat32);
  Tensor rows = zeros({2, 2, 3}, kInt32);
  {
    vb::Level level(0, 2);
    const vb::Value i = level.index();
    vb::fused_scalar(
        [](vb::WritableElements s, vb::WritableElements c, vb::WritableElements r,
           vb::Elements v, int64_t i) {
          for (int64_t k = 0; k < 3; ++k) {
            s[k] = v[(k + i) % 3];
            c[k] = v[k];
          }
          r[1] = i + 4;
        },
        vb::at(same, i), vb::at(converted, i), vb::at(rows, i), values, i);
  }
  EXPECT_TRUE(vmap::equal(same, tensor({big, int64_t{-7}, big + 2, int64_t{-7}, big + 2, big})
                                    .reshape({2, 3})))
      << same;
  EXPECT_TRUE(vmap::equal(converted, values.to(kFloat32).expand({2, 3}))) << converted;
  Tensor expected_rows = zeros({2, 2, 3}, kInt32);
  expected_rows[0][1] = 4;
  expected_rows[1][1] = 5;
  EXPECT_TRUE(vmap::equal(rows, expected_rows)) << rows;
}

// A store out of range raises the error Tensor::operator[] raises, from the first example in
// loop order, whatever the threads; nothing outside the tensor is written.
TEST(ElementStores, AnIndexOutOfRangeIsTheLoopsError) {
  Tensor out = zeros({1000, 4}, kFloat32);
  Tensor picks = zeros({1000}, kInt64);
  picks[700] = 4;
  picks[900] = 6;
  std::string expected;
  try {
    out[700][4] = 1.0f;
  } catch (const vmap::Error& e) {
    expected = e.what();
  }
  vb::Level level(0, 1000);
  const vb::Value i = level.index();
  try {
    vb::fused_scalar([](vb::WritableElements o, int64_t k) { o[k] = 1.0f; }, vb::at(out, i),
                     vb::at(picks, i).item<int64_t>());
    ADD_FAILURE() << "no error";
  } catch (const vmap::Error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
  EXPECT_EQ(out.sum().item<float>(), out.select(1, 0).sum().item<float>());
}


// Note [Lane kernels]: the lane form of a kernel with a loop inside, over rows of examples
// whose lengths are no multiple of kLanes, one operand strided, gives each example the value
// its scalar kernel gives, to the bit.
TEST(LaneKernels, EveryLaneIsItsExamplesScalarKernel) {
  manual_seed(7);
  const Tensor x = randn({13, 10});
  const Tensor y = randn({10, 21}).t();  // [21, 10], strided
  const auto scalar = [](int64_t width, vb::Elements x, int64_t i, vb::Elements y, int64_t j) {
    float total = 0.0f;
    for (int64_t k = 0; k < width; ++k) {
      float d = x[i][k].item<float>() - y[j][k].item<float>();
      total += d * d;
    }
    return std::sqrt(total);
  };
  Tensor out = zeros({13, 21});
  {
    vb::Level rows(0, 13);
    const vb::Value i = rows.index();
    vb::Level columns(0, 21);
    const vb::Value j = columns.index();
    vb::at(vb::at(out, i), j) = vb::fused_scalar(
        scalar, vb::over_lanes([](int64_t width, vb::VaryingElements x, vb::Varying<int64_t> i,
                           vb::VaryingElements y, vb::Varying<int64_t> j) {
          vb::Varying<float> total = 0.0f;
          for (int64_t k = 0; k < width; ++k) {
            vb::Varying<float> d = x[i][k].item<float>() - y[j][k].item<float>();
            total += d * d;
          }
          return vb::sqrt(total);
        }),
        x.size(1), x, i, y, j);
  }
  Tensor expected = zeros({13, 21});
  for (int64_t i = 0; i < 13; ++i)
    for (int64_t j = 0; j < 21; ++j) {
      float total = 0.0f;
      for (int64_t k = 0; k < 10; ++k) {
        float d = x[i][k].item<float>() - y[j][k].item<float>();
        total += d * d;
      }
      expected[i][j] = std::sqrt(total);
    }
  EXPECT_TRUE(vmap::equal(out, expected)) << out << expected;
}

// C++ meaning lane by lane: unsigned wrap-around, integer division and remainder, shifts, a
// comparison stored as an int, a double read from floats, fmax and pow on mixed types.
TEST(LaneKernels, CppArithmeticLaneByLane) {
  const Tensor a = arange(37).to(kFloat32) * 0.37f - 5.0f;
  const auto scalar = [](int64_t n, vb::Elements a, int64_t i) {
    uint32_t h = 2166136261u;
    double s = 0;
    int c = 0;
    for (int64_t k = 0; k < n; ++k) {
      h = (h ^ static_cast<uint32_t>(i + k)) * 16777619u;
      s += std::fmax(a[i].item<double>(), 0.5) * std::pow(a[(i + k) % n].item<float>(), 2);
      c += (a[i].item<float>() < 1.0f) + static_cast<int>(h >> 29) % 3 - (i / 3);
    }
    return s + c + (h & 7u);
  };
  const auto lanes = [](int64_t n, vb::VaryingElements a, vb::Varying<int64_t> i) {
    vb::Varying<uint32_t> h = 2166136261u;
    vb::Varying<double> s = 0;
    vb::Varying<int> c = 0;
    for (int64_t k = 0; k < n; ++k) {
      h = (h ^ (i + k)) * 16777619u;
      s += vb::fmax(a[i].item<double>(), 0.5) *
           vb::pow(a[(i + k) % n].item<float>(), 2);
      c += (a[i].item<float>() < 1.0f) + (h >> 29) % 3 - (i / 3);
    }
    return s + c + (h & 7u);
  };
  Tensor out = zeros({37}, kFloat64);
  {
    vb::Level level(0, 37);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::fused_scalar(scalar, vb::over_lanes(lanes), a.size(0), a, i);
  }
  Tensor expected = zeros({37}, kFloat64);
  {
    vb::Level level(0, 37);
    const vb::Value i = level.index();
    vb::at(expected, i) = vb::fused_scalar(scalar, a.size(0), a, i);
  }
  EXPECT_TRUE(vmap::equal(out, expected)) << out << expected;
}

// The operators a lane form computes as vectors (Note [Lane kernels]: + - * / of one floating
// type, + - * & | ^ of one integer type) give each lane what the scalar kernel gives, to the
// bit: a signed zero kept through a number put on every lane, infinities, NaN, denormals,
// unsigned wrap-around, 64-bit products.
TEST(LaneKernels, VectorOperatorsAreEachLanesOwn) {
  const Tensor a = tensor({-0.0f, 1e-40f, 3.0f, -2.5f, 1e30f, 7.0f, -1e-3f, 0.1f, 2.0f, -3.0f,
                           5.5f, 0.25f, -8.0f, 1.0f, 1e-20f, -0.0f, 4.0f});
  const auto scalar = [](vb::Elements a, int64_t i) {
    const float v = a[i].item<float>();
    float z = -0.0f;
    float f = (v * v - v / 3.0f) * 0.5f + std::exp(1.0f / z);  // 0 where z is -0
    double d = static_cast<double>(v) / 7.0 - 1e300 * 1e10;
    uint32_t u = static_cast<uint32_t>(i) * 4000000000u + 3000000000u;
    u = (u ^ 0x9e3779b9u) & (u | 0x55u);
    int64_t w = (i + int64_t{3}) * int64_t{3037000493} - (i << 3);
    return f + static_cast<float>(d) + static_cast<float>(u % 1000u) +
           static_cast<float>(w % 977);
  };
  const auto lanes = [](vb::VaryingElements a, vb::Varying<int64_t> i) {
    const vb::Varying<float> v = a[i].item<float>();
    vb::Varying<float> z = -0.0f;
    vb::Varying<float> f = (v * v - v / 3.0f) * 0.5f + vb::exp(1.0f / z);
    vb::Varying<double> d = vb::lane_cast<double>(v) / 7.0 - 1e300 * 1e10;
    vb::Varying<uint32_t> u = vb::lane_cast<uint32_t>(i) * 4000000000u + 3000000000u;
    u = (u ^ 0x9e3779b9u) & (u | 0x55u);
    vb::Varying<int64_t> w = (i + int64_t{3}) * int64_t{3037000493} - (i << 3);
    return f + vb::lane_cast<float>(d) + vb::lane_cast<float>(u % 1000u) +
           vb::lane_cast<float>(w % 977);
  };
  Tensor out = zeros({17}), expected = zeros({17});
  {
    vb::Level level(0, 17);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::fused_scalar(scalar, vb::over_lanes(lanes), a, i);
    vb::at(expected, i) = vb::fused_scalar(scalar, a, i);
  }
  // Bit for bit (NaN included): the same bytes.
  EXPECT_EQ(std::memcmp(out.data_ptr<float>(), expected.data_ptr<float>(), 17 * sizeof(float)),
            0)
      << out << expected;
}

// A tensor every example reads whole, read by each lane's own row: where its rows are
// strided (a contiguous [24, 6]), from its lane-major copy where it has no more elements than
// the examples (Note [Lane-major copies]), else gathered; where they are adjacent (a
// transposed one), as vectors; by the index reversed, gathered. Every way gives each example
// the value as written.
TEST(LaneKernels, LaneMajorCopiesReadAsTheTensor) {
  manual_seed(11);
  // (No rows: no examples, no copy.)
  for (const int64_t rows : {int64_t{0}, int64_t{3}, int64_t{40}}) {  // 40 x 24 >= 24 x 6
    for (const Tensor& y : {randn({24, 6}), randn({6, 24}).t()}) {
      const Tensor x = randn({rows, 6});
      const auto scalar = [](int64_t width, vb::Elements x, int64_t i, vb::Elements y, int64_t j,
                             int64_t last) {
        float total = 0.0f;
        for (int64_t k = 0; k < width; ++k)
          total += x[i][k].item<float>() * y[j][k].item<float>() - y[last - j][k].item<float>();
        return total;
      };
      const auto lanes = [](int64_t width, vb::VaryingElements x, vb::Varying<int64_t> i,
                            vb::VaryingElements y, vb::Varying<int64_t> j, int64_t last) {
        vb::Varying<float> total = 0.0f;
        for (int64_t k = 0; k < width; ++k)
          total += x[i][k].item<float>() * y[j][k].item<float>() - y[last - j][k].item<float>();
        return total;
      };
      Tensor out = zeros({rows, 24}), expected = zeros({rows, 24});
      {
        vb::Level outer(0, rows);
        const vb::Value i = outer.index();
        vb::Level inner(0, 24);
        const vb::Value j = inner.index();
        vb::at(vb::at(out, i), j) =
            vb::fused_scalar(scalar, vb::over_lanes(lanes), int64_t{6}, x, i, y, j, int64_t{23});
        vb::at(vb::at(expected, i), j) =
            vb::fused_scalar(scalar, int64_t{6}, x, i, y, j, int64_t{23});
      }
      EXPECT_TRUE(vmap::equal(out, expected)) << rows << out << expected;
    }
  }
}

// A lane whose read would raise or convert sends its block to the scalar kernel: an int32
// tensor read as float converts as item<float>() does, a negative index counts from the end,
// and an index out of range raises the loop's own error, from the first example in order.
TEST(LaneKernels, AMissedLaneRunsItsBlockOneExampleAtATime) {
  const Tensor counts = arange(20).to(kInt32);
  const Tensor picks = tensor({int64_t{0}, int64_t{-1}, int64_t{3}, int64_t{4}, int64_t{5},
                               int64_t{6}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{10},
                               int64_t{-20}, int64_t{2}});
  const auto scalar = [](int64_t k, vb::Elements v) {
    float s = 0;
    for (int r = 0; r < 2; ++r) s += v[k].item<float>();
    return s;
  };
  const auto lanes = [](vb::Varying<int64_t> k, vb::VaryingElements v) {
    vb::Varying<float> s = 0;
    for (int r = 0; r < 2; ++r) s += v[k].item<float>();
    return s;
  };
  Tensor out = zeros({12});
  {
    vb::Level level(0, 12);
    const vb::Value i = level.index();
    vb::at(out, i) =
        vb::fused_scalar(scalar, vb::over_lanes(lanes), vb::at(picks, i).item<int64_t>(), counts);
  }
  EXPECT_TRUE(vmap::equal(out, tensor({0.0f, 38.0f, 6.0f, 8.0f, 10.0f, 12.0f, 14.0f, 16.0f,
                                       18.0f, 20.0f, 0.0f, 4.0f})))
      << out;
  std::string expected;
  try {
    (void)counts[25];
  } catch (const vmap::Error& e) {
    expected = e.what();
  }
  Tensor far = picks.clone();
  far[5] = 25;
  far[9] = 30;
  vb::Level level(0, 12);
  const vb::Value i = level.index();
  try {
    vb::fused_scalar(scalar, vb::over_lanes(lanes), vb::at(far, i).item<int64_t>(), counts);
    ADD_FAILURE() << "no error";
  } catch (const vmap::Error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

// The engine runs the lane form on each whole block of kLanes examples along a row, and the
// scalar kernel on the rest of the row and on a block where a lane missed (here told apart
// by giving the two forms different values, which the tool never does).
TEST(LaneKernels, WholeBlocksRunTheLaneForm) {
  const Tensor v = arange(20).to(kFloat32);
  Tensor out = zeros({2, 20});
  {
    vb::Level rows(0, 2);
    const vb::Value r = rows.index();
    vb::Level columns(0, 20);
    const vb::Value c = columns.index();
    vb::at(vb::at(out, r), c) = vb::fused_scalar(
        [](vb::Elements v, int64_t r, int64_t c) {
          return v[(c + r * 5) % 20].item<float>() * 0 + 1;
        },
        vb::over_lanes([](vb::VaryingElements v, vb::Varying<int64_t> r,
                          vb::Varying<int64_t> c) { return v[c + r * 5].item<float>() * 0 + 2; }),
        v, r, c);
  }
  Tensor expected = full({2, 20}, 2.0f);
  for (int64_t c = 16; c < 20; ++c) expected[0][c] = 1.0f;  // the row's tail
  for (int64_t c = 16; c < 20; ++c) expected[1][c] = 1.0f;  // its tail, and the block that
  for (int64_t c = 8; c < 16; ++c) expected[1][c] = 1.0f;   // reads v[20]: missed
  EXPECT_TRUE(vmap::equal(out, expected)) << out;
}

}  // namespace
}  // namespace vmap
