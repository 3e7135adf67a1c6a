// Pending values (Note [Pending values] in rules/src/batched/batched_fused.hpp): the lazy induction
// index and fused pointwise chains. Sizes are above one block (32K elements) so chains stay
// pending and are computed block by block; every expected value comes from the per-example
// loop in plain runtime ops.
#include "batched_fused.hpp"
#include "omp_threads.hpp"
#include "rules_test_util.hpp"

#include <vmap/batched.hpp>
#include <vmap/fused.hpp>

#include <gtest/gtest.h>

namespace vmap {
namespace {

namespace vb = vmap::batched;
using test::Rng;

bool is_pending(const vb::Value& v) {
  const auto& node = vb::Access::pending(v);
  return node && !node->value.defined();
}

// Same dtype, sizes and values (NaN where the other has NaN).
void expect_identical(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  const Tensor same = (actual == expected) | ((actual != actual) & (expected != expected));
  EXPECT_TRUE(same.all().item<bool>());
}

// Reductions may sum in another order: 1e-5 relative, as the differential tests.
void expect_close(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  EXPECT_TRUE(vmap::allclose(actual, expected, 1e-5, 1e-6));
}

constexpr int64_t kRows = 2000;
constexpr int64_t kWidth = 40;  // 80K elements: three blocks

TEST(Fusion, InductionIndexIsMadeOnlyWhenUsedAsANumber) {
  const Tensor x = arange(kRows * 3, kFloat32).reshape({kRows, 3});
  Tensor out = zeros({kRows, 3});
  vb::Level level(0, kRows);
  const vb::Value i = level.index();
  EXPECT_TRUE(is_pending(i));
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_TRUE(i.is_cpp_scalar());
  vb::at(out, i) = vb::at(x, i);  // a view of x: no arange
  EXPECT_TRUE(is_pending(i));
  expect_identical(out, x);
  const vb::Value twice = i * 2;  // a number now
  EXPECT_FALSE(is_pending(i));
  expect_identical(twice.physical(), arange(0, 2 * kRows, 2, kInt64));
}

TEST(Fusion, StoredChainEqualsTheExamplesBitForBit) {
  Rng rng(1);
  const Tensor a = test::random_tensor(rng, {kRows, kWidth}, kFloat32),
               b = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  Tensor expected = zeros({kRows, kWidth}), out = zeros({kRows, kWidth});
  for (int64_t i = 0; i < kRows; ++i)
    expected[i] = ((a[i] + b[i]) * 2.5 - a[i]).abs().sqrt() * (a[i] > b[i]);
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    const vb::Value ai = vb::at(a, i), bi = vb::at(b, i);
    const vb::Value e = vb::sqrt(vb::abs((ai + bi) * 2.5 - ai)) * (ai > bi);
    EXPECT_TRUE(is_pending(e));
    EXPECT_EQ(e.sizes(), (std::vector<int64_t>{kWidth}));
    EXPECT_EQ(e.dtype(), kFloat32);
    vb::at(out, i) = e;
  }
  expect_identical(out, expected);
}

TEST(Fusion, ChainsPromoteAsTheEagerOps) {
  Rng rng(2);
  const Tensor n = test::random_tensor(rng, {kRows, kWidth}, kInt32);
  Tensor scaled = zeros({kRows, kWidth}), shifted = zeros({kRows, kWidth}, kInt32);
  Tensor ordered = zeros({kRows, kWidth}, kBool), halves = zeros({kRows, kWidth}, kFloat64);
  Tensor e_scaled = zeros_like(scaled), e_shifted = zeros_like(shifted);
  Tensor e_ordered = zeros_like(ordered), e_halves = zeros_like(halves);
  for (int64_t i = 0; i < kRows; ++i) {
    e_scaled[i] = n[i] * 2.5 + 1;           // int32 tensor, float number: float32
    e_shifted[i] = n[i] * i - i;            // int64 numbers keep int32
    e_ordered[i] = (n[i] + 1) >= n[i] * 2;  // bool
    e_halves[i] = n[i] / 2;                 // true division: float32, stored as double
  }
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    const vb::Value ni = vb::at(n, i);
    const vb::Value s = ni * 2.5 + 1;
    EXPECT_EQ(s.dtype(), kFloat32);
    vb::at(scaled, i) = s;
    const vb::Value t = ni * i - i;
    EXPECT_EQ(t.dtype(), kInt32);
    vb::at(shifted, i) = t;
    const vb::Value o = (ni + 1) >= ni * 2;
    EXPECT_EQ(o.dtype(), kBool);
    vb::at(ordered, i) = o;
    vb::at(halves, i) = ni / 2;
  }
  expect_identical(scaled, e_scaled);
  expect_identical(shifted, e_shifted);
  expect_identical(ordered, e_ordered);
  expect_identical(halves, e_halves);
}

TEST(Fusion, CppScalarArithmeticIsPendingToo) {
  const int64_t n = 300;  // [n, n]: 90K elements
  Tensor upper = zeros({n, n}, kBool), e_upper = zeros({n, n}, kBool);
  Tensor quotient = zeros({n, n}, kInt64), e_quotient = zeros({n, n}, kInt64);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      e_upper[i][j] = j >= i;
      e_quotient[i][j] = (j - 150) / (i + 1);  // truncates toward zero
    }
  {
    vb::Level outer(0, n);
    const vb::Value i = outer.index();
    vb::Level inner(0, n);
    const vb::Value j = inner.index();
    const vb::Value above = j >= i;
    EXPECT_TRUE(is_pending(above));
    EXPECT_TRUE(above.is_cpp_scalar());
    vb::at(vb::at(upper, i), j) = above;
    vb::at(vb::at(quotient, i), j) = (j - 150) / (i + 1);
  }
  expect_identical(upper, e_upper);
  expect_identical(quotient, e_quotient);
}

TEST(Fusion, StoresIntoStridedDestinations) {
  Rng rng(3);
  const Tensor a = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  Tensor storage = zeros({kWidth, kRows});
  const Tensor out = storage.t();  // rows of out are strided
  Tensor expected = zeros({kRows, kWidth});
  for (int64_t i = 0; i < kRows; ++i) expected[i] = a[i] * a[i] + 1;
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::at(a, i) * vb::at(a, i) + 1;
  }
  expect_identical(out, expected);
}

TEST(Fusion, StoresThatConvertOrBroadcast) {
  // The last op of a block computes into the destination only where its result fits it
  // (Note [Results into a destination]); an int64 result stored into float32, and one per
  // example value broadcast along the destination's row, are converted and copied.
  Rng rng(9);
  const Tensor a = test::random_tensor(rng, {kRows, kWidth}, kInt64);
  const Tensor s = test::random_tensor(rng, {kRows, 1}, kFloat32);
  Tensor converted = zeros({kRows, kWidth}), spread = zeros({kRows, kWidth, 20});
  Tensor e_converted = zeros({kRows, kWidth}), e_spread = zeros({kRows, kWidth, 20});
  for (int64_t i = 0; i < kRows; ++i) {
    e_converted[i] = a[i] * 3 - a[i];
    e_spread[i] = (a[i] * s[i]).unsqueeze(1).expand({kWidth, 20});
  }
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    vb::at(converted, i) = vb::at(a, i) * 3 - vb::at(a, i);
    vb::at(spread, i) = (vb::at(a, i) * vb::at(s, i)).unsqueeze(1);
  }
  expect_identical(converted, e_converted);
  expect_identical(spread, e_spread);
}

TEST(Fusion, MaskedStoresKeepTheOtherExamples) {
  Rng rng(4);
  const Tensor a = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  const Tensor flags = test::random_tensor(rng, {kRows}, kBool);
  Tensor out = full({kRows, kWidth}, -7.0), expected = full({kRows, kWidth}, -7.0);
  for (int64_t i = 0; i < kRows; ++i)
    if (flags[i].item<bool>())
      expected[i] = a[i].exp() - 1;
    else
      expected[i] = a[i] * 3;
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    vb::Where where(vb::at(flags, i).item<bool>());
    vb::at(out, i) = vb::exp(vb::at(a, i)) - 1;
    where.flip();
    vb::at(out, i) = vb::at(a, i) * 3;
  }
  expect_identical(out, expected);
}

TEST(Fusion, PairwiseReductionsNeverMaterialiseTheBroadcast) {
  Rng rng(5);
  const int64_t n = 120, m = 90, width = 16;  // [n, m, width]: 172K elements
  const Tensor x = test::random_tensor(rng, {n, width}, kFloat32),
               y = test::random_tensor(rng, {m, width}, kFloat32);
  Tensor sums = zeros({n, m}), kept = zeros({n, m, 1}), peaks = zeros({n, m});
  Tensor e_sums = zeros({n, m}), e_kept = zeros({n, m, 1}), e_peaks = zeros({n, m});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      const Tensor d = x[i] - y[j];
      e_sums[i][j] = (d * d).sum().sqrt();
      e_kept[i][j] = (d * d).mean(0, true);
      e_peaks[i][j] = d.abs().amax(0);
    }
  {
    vb::Level outer(0, n);
    const vb::Value i = outer.index();
    vb::Level inner(0, m);
    const vb::Value j = inner.index();
    const vb::Value d = vb::at(x, i) - vb::at(y, j);
    const vb::Value squares = d * d;
    EXPECT_TRUE(is_pending(squares));
    vb::at(vb::at(sums, i), j) = squares.sum().sqrt();
    vb::at(vb::at(kept, i), j) = squares.mean(0, true);
    vb::at(vb::at(peaks, i), j) = vb::abs(d).amax(0);
    EXPECT_TRUE(is_pending(squares));  // reduced block by block, never computed whole
  }
  expect_close(sums, e_sums);
  expect_close(kept, e_kept);
  expect_identical(peaks, e_peaks);
}

TEST(Fusion, AccumulatorsReducePendingValuesBlockByBlock) {
  Rng rng(10);
  const int64_t n = 300, m = 250;  // 75K products
  const Tensor x = test::random_tensor(rng, {n}, kFloat32),
               y = test::random_tensor(rng, {m}, kFloat32);
  Tensor total = zeros({}, kFloat64), biggest = full({}, -1e9);
  double e_total = 0;
  float e_biggest = -1e9f;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      e_total += (x[i] * y[j]).item<float>();
      e_biggest = std::max(e_biggest, (x[i] - y[j]).item<float>());
    }
  {
    vb::Level outer(0, n);
    const vb::Value i = outer.index();
    vb::Level inner(0, m);
    const vb::Value j = inner.index();
    vb::accumulate(total, vb::at(x, i) * vb::at(y, j), vb::Reduce::add);
    vb::accumulate(biggest, vb::at(x, i) - vb::at(y, j), vb::Reduce::max);
  }
  EXPECT_NEAR(total.item<double>(), e_total, 1e-5 * std::abs(e_total) + 1e-3);
  EXPECT_EQ(biggest.item<float>(), e_biggest);
}

// Blocks on threads, thread t starting on the t-th run of blocks and then taking blocks of
// the others' runs (for_blocks): 2 to 31 blocks of 100-wide rows on 2 and on 3 threads (more
// threads than this machine's cores: some wait their turn while others take their blocks),
// stored, reduced per example (the first block runs before the others) and materialised,
// against the per-example loop.
TEST(Fusion, BlocksOnThreadsCoverEveryExample) {
  Rng rng(12);
  const int64_t width = 100;  // 327 rows a block
  // (threads, rows)
  const std::vector<std::pair<int, int64_t>> cases = {{2, 400},   {2, 700}, {2, 1000}, {2, 1500},
                                                      {2, 10000}, {3, 700}, {3, 10000}};
  for (const auto& [threads, rows] : cases) {
    SCOPED_TRACE(testing::Message() << threads << " threads, " << rows << " rows");
    const vmap_test::OmpThreads count(threads);
    const Tensor a = test::random_tensor(rng, {rows, width}, kFloat32),
                 b = test::random_tensor(rng, {rows, width}, kFloat32);
    Tensor stored = zeros({rows, width}), sums = zeros({rows}), doubled = zeros({rows, width});
    Tensor e_stored = zeros({rows, width}), e_sums = zeros({rows});
    for (int64_t i = 0; i < rows; ++i) {
      const Tensor e = (a[i] - b[i]) * a[i];
      e_stored[i] = e;
      e_sums[i] = e.sum();
    }
    {
      vb::Level level(0, rows);
      const vb::Value i = level.index();
      const vb::Value e = (vb::at(a, i) - vb::at(b, i)) * vb::at(a, i);
      vb::at(stored, i) = e;
      vb::at(sums, i) = e.sum();
      EXPECT_TRUE(is_pending(e));
      doubled.copy_(e.physical() * 2);  // materialised block by block
    }
    expect_identical(stored, e_stored);
    expect_identical(sums, e_sums);
    expect_identical(doubled, e_stored * 2);
  }
}

// One op over materialised tensors, stored into a contiguous destination of its sizes and
// dtype, runs as one call that writes the destination (stores_whole); a chain still runs
// block by block, a call per node and block.
TEST(Fusion, AOneOpStoreRunsAsOneCall) {
  Rng rng(13);
  const int64_t width = 100;  // 327 rows a block
  auto store_cost = [&](int64_t rows, bool chain) {
    const Tensor a = test::random_tensor(rng, {rows, width}, kFloat32),
                 b = test::random_tensor(rng, {rows, width}, kFloat32);
    Tensor out = zeros({rows, width});
    const int64_t before = vmap::detail::op_count();
    {
      vb::Level level(0, rows);
      const vb::Value i = level.index();
      const vb::Value sum = vb::at(a, i) + vb::at(b, i);
      vb::at(out, i) = chain ? sum * vb::at(a, i) : sum;
    }
    const int64_t cost = vmap::detail::op_count() - before;
    expect_identical(out, chain ? (a + b) * a : a + b);
    return cost;
  };
  store_cost(400, true);  // the first + and * probe their dtypes (Note [Probe cache])
  EXPECT_EQ(store_cost(400, false), store_cost(10000, false));  // 2 and 31 blocks
  EXPECT_LT(store_cost(400, true), store_cost(10000, true));
}

TEST(Fusion, AStoreOfTheWrongShapeStillFails) {
  Rng rng(11);
  const Tensor a = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  Tensor narrow_out = zeros({kRows, 1});
  vb::Level level(0, kRows);
  const vb::Value i = level.index();
  EXPECT_THROW(vb::at(narrow_out, i) = vb::at(a, i) * 2, Error);
}

// Note [Probe cache]: a pending node's dtype is the eager op's on every call, whichever calls
// of the same op came before, and its dtype error is raised on every call.
TEST(Fusion, PendingDtypesAreTheEagerOpsOnEveryCall) {
  Rng rng(12);
  const Tensor ints = test::random_tensor(rng, {kRows, kWidth}, kInt32);
  const Tensor floats = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  const Tensor doubles = floats.to(kFloat64);
  const Tensor flags = ints > 0;
  vb::Level level(0, kRows);
  const vb::Value i = level.index();
  for (int round = 0; round < 2; ++round) {
    for (const Tensor& other : {floats, doubles, ints}) {
      const vb::Value sum = vb::at(ints, i) + vb::at(other, i);
      EXPECT_TRUE(is_pending(sum));
      EXPECT_EQ(sum.dtype(), (ints + other).dtype());
      expect_identical(sum.physical(), ints + other);
    }
    // A given argument other than the operands decides too: a floating alpha raises on ints.
    EXPECT_EQ(vb::add(vb::at(ints, i), vb::at(ints, i), 2).dtype(), kInt32);
    EXPECT_THROW(vb::add(vb::at(ints, i), vb::at(ints, i), 2.5), Error);
    EXPECT_THROW(-vb::at(flags, i), Error);  // LibTorch has no `-` on bool
  }
}

TEST(Fusion, ChainsLongerThanTheNodeLimit) {
  Rng rng(6);
  const Tensor a = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  Tensor out = zeros({kRows, kWidth}), expected = zeros({kRows, kWidth});
  for (int64_t i = 0; i < kRows; ++i) {
    Tensor value = a[i];
    for (int round = 0; round < 40; ++round) value = value * 0.75 + a[i];
    expected[i] = value;
  }
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    vb::Value value = vb::at(a, i);
    for (int round = 0; round < 40; ++round) value = value * 0.75 + vb::at(a, i);
    vb::at(out, i) = value;
  }
  expect_identical(out, expected);
}

TEST(Fusion, AValueConsumedTwice) {
  Rng rng(7);
  const Tensor a = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  Tensor first = zeros({kRows, kWidth}), second = zeros({kRows, kWidth}), total = zeros({kRows});
  Tensor e_first = zeros_like(first), e_second = zeros_like(second), e_total = zeros_like(total);
  for (int64_t i = 0; i < kRows; ++i) {
    const Tensor t = a[i] * a[i] - 0.5;
    e_first[i] = t;
    e_second[i] = t + t * t;
    e_total[i] = t.sum();
  }
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    const vb::Value t = vb::at(a, i) * vb::at(a, i) - 0.5;
    vb::at(first, i) = t;
    vb::at(second, i) = t + t * t;
    vb::at(total, i) = t.sum();
    vb::at(first, i) = t;  // still the same value
  }
  expect_identical(first, e_first);
  expect_identical(second, e_second);
  expect_close(total, e_total);
}

TEST(Fusion, WritesSeeValuesComputedBeforeThem) {
  Rng rng(8);
  Tensor x = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  const Tensor original = x.clone();
  Tensor out = zeros({kRows, kWidth}), shifted = zeros({kRows, kWidth});
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    const vb::Value doubled = vb::at(x, i) * 2;  // reads x before the write below
    vb::at(x, i) = vb::at(x, i) + 1;             // reads and writes the same view
    vb::at(out, i) = doubled;
    vb::at(shifted, i) = vb::at(x, i) - 1;
  }
  expect_identical(out, original * 2);
  expect_identical(x, original + 1);
  expect_identical(shifted, (original + 1) - 1);
}

TEST(Fusion, ObservingAPendingValueComputesIt) {
  Rng rng(9);
  const Tensor a = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  vb::Level level(0, kRows);
  const vb::Value e = vb::at(a, level.index()) * 3 + 1;
  ASSERT_TRUE(is_pending(e));
  const vb::Value copy = e;
  expect_identical(e.physical(), a * 3 + 1);
  EXPECT_FALSE(is_pending(copy));  // the copy shares the computed value
  expect_identical(copy.physical(), e.physical());
}

// --- Note [Deferred results]: a GEMM or gather stored into a slot is computed into it.

constexpr int64_t kIn = 24, kOut = 36;  // [kRows, kOut]: 72K elements, a deferred result

// Whether the stored value `v` (a whole node) was computed into `out`'s memory.
bool computed_into(const vb::Value& v, const Tensor& out) {
  const auto& node = vb::Access::pending(v);
  return node && node->value_in_destination && node->value.raw_data() == out.raw_data();
}

// A product per example (a GEMV) and batched (a GEMM) round differently: SPEC's 1e-4.
void expect_products_close(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  EXPECT_TRUE(vmap::allclose(actual, expected, 1e-4, 1e-4))
      << (actual.to(kFloat64) - expected.to(kFloat64)).abs().amax().item<double>();
}

struct LinearCase {
  Tensor x, weight, bias;
  explicit LinearCase(uint64_t seed, int64_t in = kIn, int64_t out = kOut) {
    Rng rng(seed);
    x = test::random_tensor(rng, {kRows, in}, kFloat32);
    weight = test::random_tensor(rng, {out, in}, kFloat32);
    bias = test::random_tensor(rng, {out}, kFloat32);
  }
  // The per-example loop.
  Tensor expected() const {
    Tensor result = zeros({kRows, weight.size(0)});
    for (int64_t i = 0; i < kRows; ++i) result[i] = linear(x[i], weight, bias);
    return result;
  }
};

// A slot run (Note [Slot kernels] in vmap/fused.hpp), `out[i] = x[i];`, `out[i] *= out[i];`
// twice, `out[i] += b[i];`: its compiled store reads out[i] and is computed into it (no
// temporary, no copy); where an operand is the slot's own tensor the batched ops run it, as
// written; an int slot converts at each store.
TEST(Deferred, SlotRunsAreComputedIntoTheSlotTheyRead) {
  if (!vb::detail::cpu_runs(vb::detail::kFusedIsa))
    GTEST_SKIP() << "this CPU lacks the vector ISA the kernels are compiled for";
  vmap_test::OmpThreads threads(2);
  Rng rng(23);
  const Tensor x = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  const Tensor b = test::random_tensor(rng, {kRows, kWidth}, kFloat32);
  // Whether the run's value was computed into `out`.
  auto run = [](const Tensor& from, const Tensor& add, Tensor& out) {
    vb::Level level0(0, from.size(0));
    const vb::Value i = level0.index();
    const vb::Value value = vb::fused_slot(
        [](auto s, const auto& a, const auto& c) {
          vb::assign(s, a);
          for (int round = 0; round < 2; ++round) s *= s;
          s += c;
          return s;
        },
        vb::at(out, i), vb::at(from, i), vb::at(add, i));
    vb::at(out, i) = value;
    return computed_into(value, out);
  };
  Tensor out = zeros({kRows, kWidth});
  EXPECT_TRUE(run(x, b, out));
  expect_close(out, x * x * (x * x) + b);
  // `b` is `out`: `out[i] += b[i]` reads the x^4 just stored.
  Tensor same = b.clone();
  run(x, same, same);
  expect_close(same, x * x * (x * x) * 2);
  Tensor counts = zeros({kRows, kWidth}, kInt64);
  {
    vb::Level level0(0, x.size(0));
    const vb::Value i = level0.index();
    vb::at(counts, i) = vb::fused_slot(
        [](auto s, const auto& a) {
          vb::assign(s, a * 3.0f);
          s *= s;
          return s;
        },
        vb::at(counts, i), vb::at(x, i));
  }
  const Tensor truncated = (x * 3.0f).to(kInt64);
  expect_identical(counts, truncated * truncated);
}

TEST(Deferred, StoredProductsAndGathersLandInTheSlot) {
  const LinearCase c(21);
  Rng rng(22);
  const Tensor left = test::random_tensor(rng, {kRows, 3, 8}, kFloat32);
  const Tensor right = test::random_tensor(rng, {kRows, 8, 6}, kFloat32);
  const Tensor source = test::random_tensor(rng, {kRows, 50}, kFloat64);
  const Tensor index = test::random_index(rng, {kRows, 20}, 50);
  const Tensor strided = c.weight.narrow(1, 0, 8).t().narrow(1, 0, kIn);  // [8, kIn]
  Tensor linear_out = zeros({kRows, kOut}), matmul_out = zeros({kRows, 3, 6}),
         mm_out = zeros({kRows, 3, kIn}), gather_out = zeros({kRows, 20}, kFloat64),
         select_out = zeros({kRows, 20}, kFloat64);
  Tensor e_matmul = zeros_like(matmul_out), e_mm = zeros_like(mm_out),
         e_gather = zeros_like(gather_out), e_select = zeros_like(select_out);
  for (int64_t i = 0; i < kRows; ++i) {
    e_matmul[i] = matmul(left[i], right[i]);
    e_mm[i] = mm(left[i], strided);
    e_gather[i] = source[i].gather(0, index[i]);
    e_select[i] = source[i].index_select(0, index[i]);
  }
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    const std::vector<std::pair<vb::Value, Tensor>> stores{
        {vb::linear(vb::at(c.x, i), c.weight, c.bias), linear_out},
        {vb::matmul(vb::at(left, i), vb::at(right, i)), matmul_out},
        {vb::mm(vb::at(left, i), strided), mm_out},
        {vb::gather(vb::at(source, i), 0, vb::at(index, i)), gather_out},
        {vb::at(source, i).index_select(0, vb::at(index, i)), select_out}};
    for (const auto& [value, out] : stores) {
      EXPECT_TRUE(is_pending(value));
      vb::at(out, i) = value;
      EXPECT_TRUE(computed_into(value, out));
    }
  }
  expect_products_close(linear_out, c.expected());
  expect_products_close(matmul_out, e_matmul);
  expect_products_close(mm_out, e_mm);
  expect_identical(gather_out, e_gather);
  expect_identical(select_out, e_select);
}

TEST(Deferred, StoredValueEqualsTheEagerBatchedCall) {
  // The deferred call is the eager one, into another buffer: the same GEMM, bit for bit.
  const LinearCase c(23);
  Tensor out = zeros({kRows, kOut}), copied = zeros({kRows, kOut});
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::linear(vb::at(c.x, i), c.weight, c.bias);
    const vb::Value y = vb::linear(vb::at(c.x, i), c.weight, c.bias);
    vb::at(copied, i).copy_(y);  // `out[i].copy_(e)`: the same store
    EXPECT_TRUE(computed_into(y, copied));
  }
  expect_identical(out, linear(c.x, c.weight, c.bias));
  expect_identical(copied, out);
}

TEST(Deferred, InputsOverwrittenBeforeTheStore) {
  const LinearCase c(24, kIn, kIn);
  Tensor x = c.x.clone(), weight = c.weight.clone(), out = zeros({kRows, kIn});
  Tensor in_place = c.x.clone();
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    const vb::Value y = vb::linear(vb::at(x, i), weight, c.bias);
    ASSERT_TRUE(is_pending(y));
    vb::at(x, i) = 0.0;  // y read x[i]: computed before the write
    EXPECT_FALSE(is_pending(y));
    vb::at(out, i) = y;
    // The slot is the call's own input (reads and writes the same view): not computed into.
    vb::at(in_place, i) = vb::linear(vb::at(in_place, i), weight, c.bias);
  }
  expect_products_close(out, c.expected());
  expect_products_close(in_place, c.expected());
  expect_identical(x, zeros({kRows, kIn}));
}

TEST(Deferred, AValueStoredAndUsedAgain) {
  const LinearCase c(25);
  const Tensor expected = c.expected();
  Tensor first = zeros({kRows, kOut}), second = zeros({kRows, kOut}), third = zeros({kRows, kOut});
  Tensor total = zeros({kRows});
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    const vb::Value y = vb::linear(vb::at(c.x, i), c.weight, c.bias);
    const vb::Value copy = y;
    vb::at(first, i) = y;
    EXPECT_TRUE(computed_into(y, first));
    vb::at(first, i) = -1.0;   // y lives in first: copied out before the write
    vb::at(second, i) = y + 1;  // another use: its own copy
    vb::at(total, i) = copy.sum();
    vb::at(third, i) = copy;
  }
  expect_identical(first, full({kRows, kOut}, -1.0));
  expect_products_close(second, expected + 1);
  expect_products_close(third, expected);
  expect_products_close(total, expected.sum(1));
}

TEST(Deferred, MaskedStoresKeepTheOtherExamples) {
  const LinearCase c(26);
  Rng rng(27);
  const Tensor flags = test::random_tensor(rng, {kRows}, kBool);
  const Tensor index = test::random_index(rng, {kRows, kOut}, kIn);
  Tensor out = full({kRows, kOut}, -7.0), expected = full({kRows, kOut}, -7.0);
  for (int64_t i = 0; i < kRows; ++i)
    if (flags[i].item<bool>()) expected[i] = linear(c.x[i], c.weight, c.bias);
    else expected[i] = c.x[i].gather(0, index[i]);
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    const vb::Value y = vb::linear(vb::at(c.x, i), c.weight, c.bias);  // deferred outside
    vb::Where where(vb::at(flags, i).item<bool>());
    vb::at(out, i) = y;
    where.flip();
    vb::at(out, i) = vb::gather(vb::at(c.x, i), 0, vb::at(index, i));  // deferred inside
  }
  expect_products_close(out, expected);
}

TEST(Deferred, SlotsOfAnotherLayoutOrDtype) {
  const LinearCase c(28);
  const Tensor expected = c.expected();
  Tensor storage = zeros({kOut, kRows});
  const Tensor strided = storage.t();
  Tensor doubles = zeros({kRows, kOut}, kFloat64), spread = zeros({kRows, 2, kOut});
  {
    vb::Level level(0, kRows);
    const vb::Value i = level.index();
    vb::at(strided, i) = vb::linear(vb::at(c.x, i), c.weight, c.bias);
    vb::at(doubles, i) = vb::linear(vb::at(c.x, i), c.weight, c.bias);
    vb::at(spread, i) = vb::linear(vb::at(c.x, i), c.weight, c.bias);  // broadcast per row
  }
  expect_products_close(strided, expected);
  expect_products_close(doubles, expected.to(kFloat64));
  expect_products_close(spread, expected.unsqueeze(1).expand({kRows, 2, kOut}).contiguous());
}

TEST(Deferred, SmallCallsAndOtherUsesAreEager) {
  const LinearCase c(29);
  {
    vb::Level level(0, 10);  // 10 x kOut: below one block
    EXPECT_FALSE(is_pending(vb::linear(vb::at(c.x, level.index()), c.weight, c.bias)));
  }
  vb::Level level(0, kRows);
  const vb::Value y = vb::linear(vb::at(c.x, level.index()), c.weight, c.bias);
  ASSERT_TRUE(is_pending(y));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{kOut}));  // known without computing it
  EXPECT_EQ(y.dtype(), kFloat32);
  EXPECT_TRUE(is_pending(y));
  expect_identical(y.physical(), linear(c.x, c.weight, c.bias));
}

TEST(Deferred, ZeroTripLoops) {
  const LinearCase c(31);
  Tensor out = full({kRows, kOut}, 3.0);
  {
    vb::Level level(0, 0);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::linear(vb::at(c.x, i), c.weight, c.bias);
  }
  expect_identical(out, full({kRows, kOut}, 3.0));
}

TEST(Deferred, ShapeErrorsAtTheCall) {
  const LinearCase c(30);
  vb::Level level(0, kRows);
  const vb::Value i = level.index();
  EXPECT_THROW(vb::linear(vb::at(c.x, i), c.weight.t(), c.bias), Error);
  EXPECT_THROW(vb::linear(vb::at(c.x, i), c.weight, c.bias.to(kFloat64)), Error);
}

// Random chains of pointwise ops over leaves of random dtypes and C++ numbers (int 2,
// double 0.75: wrapped numbers on both sides): the batched chain (pending, computed block by
// block into `out`) equals the per-example loop bit for bit, dtype included. The same
// generic code runs on Tensors (per example) and on Values.
TEST(Fusion, RandomChainsEqualTheExamples) {
  constexpr int64_t kChainRows = 1500, kChainWidth = 30;  // 45K elements: two blocks
  auto binary = [](int which, const auto& a, const auto& b) {
    switch (which) {
      case 0:
        return a + b;
      case 1:
        return a * b;
      case 2:
        return a / b;
      case 3:
        return where(a > b, a, b * 2.5);
      case 4:
        return (a < b) * a + 3;
      case 5:
        return sqrt(abs(a)) - b;
      default:
        return relu(a - b);
    }
  };
  struct Step {
    int op, lhs, rhs;  // rhs < 0: the C++ number 2 (-2) or 0.75 (-1)
  };
  auto run = [&](const std::vector<Step>& steps, auto values) {
    for (const Step& step : steps) {
      const auto& a = values[static_cast<std::size_t>(step.lhs)];
      if (step.rhs == -2)
        values.push_back(binary(step.op, a, 2));
      else if (step.rhs == -1)
        values.push_back(binary(step.op, a, 0.75));
      else
        values.push_back(binary(step.op, a, values[static_cast<std::size_t>(step.rhs)]));
    }
    return values.back();
  };
  int compared = 0;
  for (unsigned seed = 0; seed < 16; ++seed) {
    Rng rng(100 + seed);
    constexpr Dtype kDtypes[] = {kFloat32, kFloat64, kInt32, kInt64, kBool};
    std::vector<Tensor> leaves;
    for (int k = 0; k < 3; ++k)
      leaves.push_back(
          test::random_tensor(rng, {kChainRows, kChainWidth}, kDtypes[rng.uniform(0, 4)]));
    std::vector<Step> steps;
    const auto length = static_cast<int>(rng.uniform(3, 22));  // past the node limit at times
    for (int s = 0; s < length; ++s)
      steps.push_back({static_cast<int>(rng.uniform(0, 6)), static_cast<int>(rng.uniform(0, 2 + s)),
                       static_cast<int>(rng.uniform(-2, 2 + s))});
    Tensor expected;
    try {
      std::vector<Tensor> rows;
      for (int64_t i = 0; i < kChainRows; ++i)
        rows.push_back(run(steps, std::vector<Tensor>{leaves[0][i], leaves[1][i], leaves[2][i]}));
      expected = stack(rows);
    } catch (const Error&) {
      continue;  // an op the examples refuse (bool subtraction): nothing to compare
    }
    Tensor out = zeros({kChainRows, kChainWidth}, expected.dtype());
    {
      vb::Level level(0, kChainRows);
      const vb::Value i = level.index();
      vb::at(out, i) = run(steps, std::vector<vb::Value>{vb::at(leaves[0], i), vb::at(leaves[1], i),
                                                         vb::at(leaves[2], i)});
    }
    SCOPED_TRACE("seed " + std::to_string(seed));
    expect_identical(out, expected);
    ++compared;
  }
  EXPECT_GE(compared, 4);
}

}  // namespace
}  // namespace vmap
