// The elementwise engine's iteration: collapsed dims, broadcast strides, threaded splits that
// start and end inside inner runs, empty and 0-d operands.
#include "test_util.hpp"

#include "internal.hpp"
#include "omp_threads.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

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

namespace {

// x [n, 1, w] op y [1, m, w], element by element from the operands' values.
template <class Out, class T, class F>
void expect_broadcast_matches(const Tensor& result, const Tensor& x, const Tensor& y, F op) {
  const int64_t n = x.size(0), m = y.size(1), w = x.size(2);
  ASSERT_EQ(vmap_test::shape(result), (std::vector<int64_t>{n, m, w}));
  const std::vector<T> a = elements<T>(x), b = elements<T>(y);
  const std::vector<Out> got = elements<Out>(result);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      for (int64_t k = 0; k < w; ++k) {
        const Out want = op(a[i * w + k], b[j * w + k]), have = got[(i * m + j) * w + k];
        ASSERT_TRUE(have == want || (have != have && want != want))  // NaN: both
            << have << " vs " << want << " at " << i << "," << j << "," << k;
      }
}

TEST(Engine, BroadcastOverShortRowsMatchesNaiveLoop) {
  // Inner runs of every width around the vector sizes: stacks of rows, partial vectors (the
  // masked tail), comparisons writing bools; x has a NaN, and values equal to y's.
  for (int64_t w = 1; w <= 35; ++w) {
    SCOPED_TRACE(w);
    Tensor x = randn({3, 1, w});
    x.view({-1}).narrow(0, 0, 1).fill_(std::numeric_limits<double>::quiet_NaN());
    Tensor y = randn({1, 5, w});
    y[0][2].copy_(x[1][0]);
    expect_broadcast_matches<float, float>(x - y, x, y, [](float a, float b) { return a - b; });
    expect_broadcast_matches<float, float>(y - x, x, y, [](float a, float b) { return b - a; });
    expect_broadcast_matches<bool, float>(x >= y, x, y, [](float a, float b) { return a >= b; });
    expect_broadcast_matches<bool, float>(x != y, x, y, [](float a, float b) { return a != b; });
    const Tensor xd = x.to(kFloat64), yd = y.to(kFloat64);
    expect_broadcast_matches<double, double>(xd * yd, xd, yd,
                                             [](double a, double b) { return a * b; });
    expect_broadcast_matches<bool, double>(xd < yd, xd, yd,
                                           [](double a, double b) { return a < b; });
    const Tensor xi = randint(-3, 3, {3, 1, w}, kInt64), yi = randint(-3, 3, {1, 5, w}, kInt64);
    expect_broadcast_matches<int64_t, int64_t>(xi - yi, xi, yi,
                                               [](int64_t a, int64_t b) { return a - b; });
    expect_broadcast_matches<bool, int64_t>(xi <= yi, xi, yi,
                                            [](int64_t a, int64_t b) { return a <= b; });
    expect_broadcast_matches<bool, int64_t>(xi == yi, xi, yi,
                                            [](int64_t a, int64_t b) { return a == b; });
    const Tensor xs = xi.to(kInt32), ys = yi.to(kInt32);
    expect_broadcast_matches<int32_t, int32_t>(xs * ys, xs, ys,
                                               [](int32_t a, int32_t b) { return a * b; });
    expect_broadcast_matches<bool, int32_t>(xs > ys, xs, ys,
                                            [](int32_t a, int32_t b) { return a > b; });
    // One operand fixed along the inner run ([7, 1] against [7, w]), on either side.
    const Tensor fixed = randn({7, 1}), moving = randn({7, w});
    const std::vector<float> f = elements<float>(fixed), v = elements<float>(moving);
    const std::vector<float> difference = elements<float>(moving - fixed);
    const std::vector<bool> greater = elements<bool>(fixed > moving);
    for (int64_t r = 0; r < 7; ++r)
      for (int64_t k = 0; k < w; ++k) {
        ASSERT_EQ(difference[r * w + k], v[r * w + k] - f[r]) << r << "," << k;
        ASSERT_EQ(greater[r * w + k], f[r] > v[r * w + k]) << r << "," << k;
      }
  }
  // Large enough to be split across threads inside rows and inside stacks of rows.
  const Tensor x = randn({300, 1, 37}), y = randn({1, 401, 37});
  expect_broadcast_matches<float, float>(x - y, x, y, [](float a, float b) { return a - b; });
  // The upper-triangular mask's `j >= i`.
  const Tensor mask =
      arange(0, 997, kInt64).reshape({1, 997}) >= arange(0, 1000, kInt64).reshape({1000, 1});
  const std::vector<bool> flags = elements<bool>(mask);
  for (int64_t i = 0; i < 1000; ++i)
    for (int64_t j = 0; j < 997; ++j) ASSERT_EQ(flags[i * 997 + j], j >= i) << i << "," << j;
}

// The comparisons with their C++ operator and the reference on doubles.
struct Comparison {
  const char* name;
  Tensor (*run)(const Tensor&, const Tensor&);
  bool (*want)(double, double);
};
constexpr Comparison comparisons[] = {
    {"==", [](const Tensor& x, const Tensor& y) { return x == y; },
     [](double x, double y) { return x == y; }},
    {"!=", [](const Tensor& x, const Tensor& y) { return x != y; },
     [](double x, double y) { return x != y; }},
    {"<", [](const Tensor& x, const Tensor& y) { return x < y; },
     [](double x, double y) { return x < y; }},
    {"<=", [](const Tensor& x, const Tensor& y) { return x <= y; },
     [](double x, double y) { return x <= y; }},
    {">", [](const Tensor& x, const Tensor& y) { return x > y; },
     [](double x, double y) { return x > y; }},
    {">=", [](const Tensor& x, const Tensor& y) { return x >= y; },
     [](double x, double y) { return x >= y; }},
};

// x op y ([rows, columns], either side [rows or 1, columns or 1]) computed into a destination
// inside a buffer of 0x5a bytes: every byte of the result must be the bool 0 or 1 of the
// comparison of the operands' values, and the bytes around it untouched.
void expect_bool_bytes(const Comparison& op, const Tensor& x, const Tensor& y, int64_t rows,
                       int64_t columns) {
  SCOPED_TRACE(testing::Message() << op.name << " of [" << x.size(0) << ", " << x.size(1)
                                  << "] and [" << y.size(0) << ", " << y.size(1) << "]");
  const int64_t pad = 5, n = rows * columns;  // odd pad: the run starts unaligned
  const Tensor buffer = zeros({n + 2 * pad}, kBool);
  std::memset(buffer.data_ptr<bool>(), 0x5a, static_cast<size_t>(n + 2 * pad));
  const Tensor destination = buffer.narrow(0, pad, n).view({rows, columns});
  Tensor result;
  {
    detail::ResultInto into(destination);
    result = op.run(x, y);
  }
  ASSERT_EQ(result.raw_data(), destination.raw_data());
  const std::vector<uint8_t> bytes = elements<uint8_t>(buffer);
  const std::vector<double> a = elements<double>(x.to(kFloat64)), b = elements<double>(y.to(kFloat64));
  auto value = [](const std::vector<double>& v, const Tensor& t, int64_t r, int64_t c) {
    return v[(t.size(0) == 1 ? 0 : r) * t.size(1) + (t.size(1) == 1 ? 0 : c)];
  };
  for (int64_t k = 0; k < pad; ++k) {
    ASSERT_EQ(bytes[k], 0x5a) << "before the result, byte " << k;
    ASSERT_EQ(bytes[pad + n + k], 0x5a) << "after the result, byte " << k;
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c)
      ASSERT_EQ(bytes[pad + r * columns + c], op.want(value(a, x, r, c), value(b, y, r, c)) ? 1 : 0)
          << r << "," << c;
}

// Note [Bools from comparison masks]: each comparison kernel (float32/64, int32/64) on runs
// of every length around its vector and byte-vector widths (tails of each size), inputs with
// gaps between rows, an operand fixed along the run (either side) or over the rows, NaN
// (floats), and a run cut by the split between 2 threads.
TEST(Engine, ComparisonKernelsWriteBoolBytes) {
  manual_seed(11);
  std::vector<int64_t> lengths;
  for (int64_t w = 1; w <= 130; ++w) lengths.push_back(w);
  for (int64_t w : {191, 192, 193, 255, 256, 257, 1000, 1024, 1031}) lengths.push_back(w);
  for (const Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    SCOPED_TRACE(testing::Message() << "dtype " << static_cast<int>(dtype));
    const bool floating = dtype == kFloat32 || dtype == kFloat64;
    for (const int64_t w : lengths) {
      SCOPED_TRACE(testing::Message() << "length " << w);
      Tensor gapped = randint(-2, 3, {3, w + 5}).to(kFloat64);  // small values: equal ones
      if (floating) gapped[1][2 + w / 2].fill_(std::numeric_limits<double>::quiet_NaN());
      const Tensor x = gapped.to(dtype).narrow(1, 2, w);
      const Tensor y = randint(-2, 3, {3, w}).to(dtype);
      const Tensor fixed = randint(-2, 3, {3, 1}).to(dtype), first_row = y.narrow(0, 0, 1);
      for (const Comparison& op : comparisons) {
        expect_bool_bytes(op, x, y, 3, w);
        expect_bool_bytes(op, x, fixed, 3, w);
        expect_bool_bytes(op, fixed, x, 3, w);
        expect_bool_bytes(op, first_row, x, 3, w);
      }
    }
  }
  const vmap_test::OmpThreads threads(2);
  const int64_t w = 3 * detail::parallel_grain + 7;
  const Tensor x = randint(-2, 3, {1, w}), y = randint(-2, 3, {1, w});
  const Tensor fixed = randint(-2, 3, {1, 1});
  for (const Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64})
    for (const Comparison& op : comparisons) {
      expect_bool_bytes(op, x.to(dtype), y.to(dtype), 1, w);
      expect_bool_bytes(op, fixed.to(dtype), x.to(dtype), 1, w);
    }
}

}  // namespace

namespace {

// Note [Results into a destination]: the first pointwise op that fits writes there.
TEST(Engine, ResultIntoTheDestination) {
  const Tensor a = randn({4, 5}), b = randn({4, 5});
  const Tensor out = zeros({4, 5});
  const Tensor transposed = zeros({5, 4}).t();  // [4, 5], not contiguous
  {
    detail::ResultInto into(transposed);
    EXPECT_NE((a + b).raw_data(), transposed.raw_data());
  }
  {
    detail::ResultInto into(out);
    EXPECT_NE((a[0] + b[0]).raw_data(), out.raw_data());  // other sizes
    EXPECT_NE((a > b).raw_data(), out.raw_data());        // other dtype
    EXPECT_NE(a.to(kFloat64).raw_data(), out.raw_data());
    const Tensor sum = a + b;
    EXPECT_EQ(sum.raw_data(), out.raw_data());
    EXPECT_NE((a * b).raw_data(), out.raw_data());  // the first fitting op only
  }
  EXPECT_NE((a - b).raw_data(), out.raw_data());
  const std::vector<float> x = elements<float>(a), y = elements<float>(b), z = elements<float>(out);
  for (size_t k = 0; k < z.size(); ++k) ASSERT_EQ(z[k], x[k] + y[k]) << k;
}

}  // namespace

namespace {

constexpr int64_t kGrain = detail::parallel_grain;
// Sizes around the grain (Note [Thread grain] in runtime/src/engine.cpp), unaligned ones too.
const std::vector<int64_t> kAroundTheGrain = {
    1, kGrain - 1, kGrain, kGrain + 1, kGrain + 7, 2 * kGrain - 3, 2 * kGrain + 1, 5 * kGrain + 11};

TEST(Engine, ParallelForSplitsWorkAboveOneGrainIntoEqualRuns) {
  const vmap_test::OmpThreads two(2);
  for (const int64_t n : kAroundTheGrain) {
    SCOPED_TRACE(n);
    struct Run {
      int64_t begin, end;
      int thread;
    };
    std::vector<Run> runs;
    std::mutex mutex;
    detail::parallel_for(n, 1, [&](int64_t begin, int64_t end) {
      std::lock_guard lock(mutex);
      runs.push_back({begin, end, omp_get_thread_num()});
    });
    std::ranges::sort(runs, {}, &Run::begin);
    ASSERT_EQ(runs.size(), n > kGrain ? 2u : 1u);
    EXPECT_EQ(runs.front().begin, 0);
    EXPECT_EQ(runs.back().end, n);
    for (size_t k = 0; k < runs.size(); ++k) {
      EXPECT_EQ(runs[k].thread, static_cast<int>(k));  // thread t takes the t-th run
      if (k > 0) EXPECT_EQ(runs[k].begin, runs[k - 1].end);
    }
    const int64_t first = runs.front().end - runs.front().begin;
    EXPECT_LE(std::abs(first - (runs.back().end - runs.back().begin)), 1);
    // Cost per item counts: n items of cost 3 are 3n work.
    std::atomic<int> calls = 0;
    detail::parallel_for(n, 3, [&](int64_t, int64_t) { ++calls; });
    EXPECT_EQ(calls, 3 * n > kGrain ? 2 : 1);
  }
}

// Fills and pointwise ops of every size around the grain, on 1 and on 2 threads, against
// values computed here element by element.
TEST(Engine, FillsAndOpsAroundTheGrainMatchElementByElement) {
  for (const int threads : {1, 2}) {
    const vmap_test::OmpThreads count(threads);
    for (const int64_t n : kAroundTheGrain) {
      SCOPED_TRACE(testing::Message() << threads << " threads, " << n << " elements");
      // Blocks the allocator hands out again hold old values: zeros must clear all of them.
      { const Tensor old = full({n}, 7.0); }
      EXPECT_EQ(elements<float>(zeros({n})), std::vector<float>(n, 0.0f));
      EXPECT_EQ(elements<int64_t>(full({n}, -3, kInt64)), std::vector<int64_t>(n, -3));
      EXPECT_EQ(elements<double>(ones({n}, kFloat64)), std::vector<double>(n, 1.0));
      // Every other element of a 2n vector: a strided fill leaves the rest alone.
      const Tensor both = zeros({2 * n});
      both.view({n, 2}).select(1, 0).fill_(2.5);
      const std::vector<float> written = elements<float>(both);
      for (int64_t k = 0; k < 2 * n; ++k) ASSERT_EQ(written[k], k % 2 == 0 ? 2.5f : 0.0f) << k;
      const Tensor x = rand({n}) + 0.5, y = randn({n});
      const std::vector<float> xs = elements<float>(x), ys = elements<float>(y);
      const std::vector<float> sums = elements<float>(x + y), roots = elements<float>(x.sqrt());
      const std::vector<bool> less = elements<bool>(x < y);
      for (int64_t k = 0; k < n; ++k) {
        ASSERT_EQ(sums[k], xs[k] + ys[k]) << k;
        ASSERT_EQ(roots[k], std::sqrt(xs[k])) << k;
        ASSERT_EQ(less[k], xs[k] < ys[k]) << k;
      }
    }
  }
}

// parallel_for_each (the batched layer's blocks and scalar kernels): every item once when
// threads share them; an exception is the lowest item's, whatever thread ran it.
TEST(Engine, ParallelForEachRunsEveryItemOnceAndRethrowsTheFirstFailure) {
  const vmap_test::OmpThreads threads(4);
  constexpr int64_t items = 1000;
  std::vector<std::atomic<int>> runs(items);
  detail::parallel_for_each(items, detail::parallel_grain,
                            [&](int64_t k) { runs[static_cast<std::size_t>(k)]++; });
  for (const std::atomic<int>& count : runs) EXPECT_EQ(count.load(), 1);
  // Items 700 and 300 fail (each on another thread's run): 300's error is the one thrown.
  const std::string error = error_of([&] {
    detail::parallel_for_each(items, detail::parallel_grain, [&](int64_t k) {
      if (k == 700 || k == 300) throw Error("item " + std::to_string(k));
    });
  });
  EXPECT_EQ(error, "item 300");
  // Under one grain: in order on the calling thread, stopping at the first failure.
  int64_t last = -1;
  EXPECT_EQ(error_of([&] {
              detail::parallel_for_each(10, 1, [&](int64_t k) {
                last = k;
                if (k == 4) throw Error("item 4");
              });
            }),
            "item 4");
  EXPECT_EQ(last, 4);
}

}  // namespace
