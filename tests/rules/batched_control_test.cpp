// Per-example control flow in the batched API (Note [Control masks] in vmap/batched.hpp):
// each test writes the per-example code and its batched form side by side.
#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vmap {
namespace {

namespace vb = vmap::batched;

std::vector<int64_t> values_of(const Tensor& t) {
  const Tensor flat = t.to(kInt64).contiguous();
  return {flat.data_ptr<int64_t>(), flat.data_ptr<int64_t>() + flat.numel()};
}

// Collatz steps with a cap: break and continue inside a per-example while.
int64_t collatz_steps(int64_t n) {
  int64_t steps = 0;
  while (n != 1) {
    ++steps;
    if (steps > 30) break;
    if (n % 2 == 0) {
      n /= 2;
      continue;
    }
    n = 3 * n + 1;
  }
  return steps;
}

TEST(BatchedControl, LoopRunsEachExampleItsOwnIterations) {
  const std::vector<int64_t> starts = {1, 2, 3, 7, 27, 6};
  Tensor start = tensor(starts), out = zeros({6}, kInt64);
  int64_t batched_iterations = 0;
  {
    vb::Level level(0, 6);
    const vb::Value i = level.index();
    vb::Value n = vb::at(start, i).item<int64_t>();
    vb::Value steps = vb::scalar_cast<int64_t>(0);
    {
      vb::Loop loop;
      while (loop.next(n != 1)) {
        ++batched_iterations;
        steps += 1;
        {
          vb::Where capped(steps > 30);
          loop.exit();
        }
        {
          vb::Where even(n % 2 == 0);
          n = n / 2;
          loop.skip();
        }
        n = 3 * n + 1;
        loop.resume();
      }
    }
    vb::at(out, i) = steps;
  }
  std::vector<int64_t> expected;
  int64_t longest = 0;
  for (int64_t s : starts) {
    expected.push_back(collatz_steps(s));
    longest = std::max(longest, expected.back());
  }
  EXPECT_EQ(values_of(out), expected);
  EXPECT_EQ(batched_iterations, longest);  // at most the largest trip count
}

// An escape-time loop over two levels (a grid of points, as the Mandelbrot sample), its
// counters updated under the loop's mask: an int counting up, an int64 counting down by 2,
// a float pair. Grids where points leave at different iterations, all at the same one
// (max_iter), and none enter (every condition false at the start).
struct EscapeCounts {
  std::vector<int64_t> up, down;
  std::vector<double> last;
};

EscapeCounts escape_loop(const Tensor& re, const Tensor& im, int max_iter) {
  EscapeCounts result;
  for (int64_t y = 0; y < im.size(0); ++y)
    for (int64_t x = 0; x < re.size(0); ++x) {
      const float cr = re[x].item<float>(), ci = im[y].item<float>();
      float zr = 0.0f, zi = 0.0f;
      int k = 0;
      int64_t down = 100;
      while (k < max_iter && zr * zr + zi * zi < 4.0f) {
        const float next_r = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = next_r;
        k += 1;
        down -= 2;
      }
      result.up.push_back(k);
      result.down.push_back(down);
      result.last.push_back(zr);
    }
  return result;
}

EscapeCounts batched_escape_loop(const Tensor& re, const Tensor& im, int max_iter) {
  Tensor up = zeros({im.size(0), re.size(0)}, kInt32),
         down = zeros({im.size(0), re.size(0)}, kInt64),
         last = zeros({im.size(0), re.size(0)}, kFloat32);
  {
    vb::Level rows(0, im.size(0));
    const vb::Value y = rows.index();
    vb::Level columns(0, re.size(0));
    const vb::Value x = columns.index();
    const vb::Value cr = vb::at(re, x).item<float>(), ci = vb::at(im, y).item<float>();
    vb::Value zr = 0.0f, zi = 0.0f;
    vb::Value k = 0;
    vb::Value count_down = int64_t{100};
    {
      vb::Loop loop;
      while (loop.next(vb::logical_and(k < max_iter, zr * zr + zi * zi < 4.0f))) {
        vb::Value next_r = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = next_r;
        k += 1;
        count_down -= 2;
      }
    }
    vb::at(up, y)[x] = k;
    vb::at(down, y)[x] = count_down;
    vb::at(last, y)[x] = zr;
  }
  const Tensor floats = last.to(kFloat64).contiguous();
  return {values_of(up), values_of(down),
          {floats.data_ptr<double>(), floats.data_ptr<double>() + floats.numel()}};
}

TEST(BatchedControl, EscapeLoopCountsUnderTheLoopMask) {
  const Tensor re = arange(40).to(kFloat32) * (3.0f / 40) - 2.0f;
  const Tensor im = arange(3).to(kFloat32) * (2.0f / 3) - 1.0f;
  for (const int max_iter : {0, 1, 7, 64}) {
    SCOPED_TRACE(::testing::Message() << "max_iter " << max_iter);
    const EscapeCounts expected = escape_loop(re, im, max_iter);
    const EscapeCounts actual = batched_escape_loop(re, im, max_iter);
    EXPECT_EQ(actual.up, expected.up);
    EXPECT_EQ(actual.down, expected.down);
    EXPECT_EQ(actual.last, expected.last);
  }
  // Inside the set: every point runs to max_iter and all leave at once.
  const Tensor inside = full({5}, -0.1f), origin = full({2}, 0.1f);
  const EscapeCounts expected = escape_loop(inside, origin, 30);
  EXPECT_EQ(expected.up, std::vector<int64_t>(10, 30));
  EXPECT_EQ(batched_escape_loop(inside, origin, 30).up, expected.up);
  // No point enters the loop (max_iter 0), or every point leaves after one step (far out).
  const Tensor far = full({4}, 5.0f);
  EXPECT_EQ(batched_escape_loop(far, far, 0).up, std::vector<int64_t>(16, 0));
  EXPECT_EQ(batched_escape_loop(far, far, 0).down, std::vector<int64_t>(16, 100));
  EXPECT_EQ(batched_escape_loop(far, far, 10).up, escape_loop(far, far, 10).up);
}

TEST(BatchedControl, MaskedOutExamplesDivideByOne) {
  Tensor d = tensor({int64_t{0}, 3, 0, -2}), out = full({4}, 9, kInt64);
  vb::Level level(0, 4);
  const vb::Value i = level.index();
  const vb::Value divisor = vb::at(d, i).item<int64_t>();
  {
    vb::Where nonzero(divisor != 0);
    vb::at(out, i) = vb::Value(int64_t{7}) / divisor + vb::Value(int64_t{7}) % divisor;
  }
  EXPECT_EQ(values_of(out), (std::vector<int64_t>{9, 3, 9, -2}));
}

TEST(BatchedControl, SwitchFallsThroughFromEachExamplesLabel) {
  auto per_example = [](int64_t code) {
    int64_t s = 0;
    switch (code) {
      case 0:
        s += 1;
        [[fallthrough]];
      case 1:
        s += 10;
        break;
      default:
        s = -code;
        [[fallthrough]];
      case 5:
        s += 100;
    }
    return s;
  };
  const std::vector<int64_t> codes = {0, 1, 2, 5, -3};
  Tensor code_tensor = tensor(codes), out = zeros({5}, kInt64);
  {
    vb::Level level(0, 5);
    const vb::Value i = level.index();
    const vb::Value code = vb::at(code_tensor, i).item<int64_t>();
    vb::Value s = vb::scalar_cast<int64_t>(0);
    {
      vb::Switch cases(code, {0, 1, 5});
      cases.enter(0);
      s += 1;
      cases.enter(1);
      s += 10;
      cases.exit();
      cases.enter_default();
      s = vb::scalar_cast<int64_t>(-code);
      cases.enter(5);
      s += 100;
    }
    vb::at(out, i) = s;
  }
  std::vector<int64_t> expected;
  for (int64_t c : codes) expected.push_back(per_example(c));
  EXPECT_EQ(values_of(out), expected);
}

TEST(BatchedControl, EarlyReturnsMergeEachExamplesResult) {
  Tensor x = tensor({-3.0f, 0.5f, 2.0f}), out = zeros({3});
  vb::Level level(0, 3);
  const vb::Value i = level.index();
  const vb::Value v = vb::at(x, i).item<float>();
  auto clipped = [](const vb::Value& v) {
    vb::Returns returns;
    {
      vb::Where high(v > 1.0f);
      returns.exit(vb::Value(1.0f));
    }
    {
      vb::Where low(v < -1.0f);
      returns.exit(-v * 0.5f);
    }
    return returns.result(v * v);
  };
  vb::at(out, i) = clipped(v);
  EXPECT_TRUE(allclose(out, tensor({1.5f, 0.25f, 1.0f})));
}

// `while (n < 12 && k++ < L) n += k;`: the post-increment yields the old value, and steps
// only the examples the left of `&&` lets through and that are still in the loop.
TEST(BatchedControl, PostIncrementStepsUnderTheMaskAndYieldsTheOldValue) {
  const std::vector<int64_t> limits = {0, 1, 3, 5, 8};
  auto per_example = [](int64_t L) {
    int64_t k = 0, n = 0;
    while (n < 12 && k++ < L) n += k;
    return n * 100 + k;
  };
  Tensor lim = tensor(limits), out = zeros({5}, kInt64);
  {
    vb::Level level(0, 5);
    const vb::Value i = level.index();
    const vb::Value L = vb::at(lim, i).item<int64_t>();
    vb::Value k = vb::scalar_cast<int64_t>(0), n = vb::scalar_cast<int64_t>(0);
    {
      vb::Loop loop;
      while (loop.next(vb::logical_and(n < 12, [&] { return vb::post_increment(k) < L; }))) {
        n += k;
        loop.resume();
      }
    }
    vb::at(out, i) = n * 100 + k;
  }
  std::vector<int64_t> expected;
  for (int64_t L : limits) expected.push_back(per_example(L));
  EXPECT_EQ(values_of(out), expected);
}

TEST(BatchedControl, PostDecrementYieldsTheOldValue) {
  Tensor starts = tensor({int64_t{4}, 0, -2});
  vb::Level level(0, 3);
  vb::Value d = vb::at(starts, level.index()).item<int64_t>();
  const vb::Value old = vb::post_decrement(d);
  EXPECT_EQ(values_of(old.physical()), (std::vector<int64_t>{4, 0, -2}));
  EXPECT_EQ(values_of(d.physical()), (std::vector<int64_t>{3, -1, -3}));
}

// A body each of whose paths returns (`switch` with `default`) ends with result(0): no
// example takes the 0, each has what it returned; run for no example, the result is 0.
TEST(BatchedControl, ResultAfterEveryPathReturnedIsWhatEachExampleReturned) {
  Tensor codes = tensor({int64_t{0}, 1, 2, 1}), out = zeros({4}, kInt64);
  vb::Level level(0, 4);
  const vb::Value code = vb::at(codes, level.index()).item<int64_t>();
  auto pick = [](const vb::Value& code) {
    vb::Returns returns;
    {
      vb::Switch cases(code, {0, 1});
      cases.enter(0);
      returns.exit(vb::scalar_cast<int64_t>(10));
      cases.enter(1);
      returns.exit(vb::scalar_cast<int64_t>(20));
      cases.enter_default();
      returns.exit(vb::scalar_cast<int64_t>(code * 100));
    }
    return returns.result(vb::scalar_cast<int64_t>(0));
  };
  vb::at(out, level.index()) = pick(code);
  EXPECT_EQ(values_of(out), (std::vector<int64_t>{10, 20, 200, 20}));
  auto loop_for_none = [] {
    vb::Returns returns;
    {
      vb::Loop loop;
      while (loop.next(true)) {
        returns.exit(vb::scalar_cast<int64_t>(7));
        loop.resume();
      }
    }
    return returns.result(vb::scalar_cast<int64_t>(0));
  };
  {
    vb::Where none(code > 5);
    vb::at(out, level.index()) = loop_for_none();
  }
  EXPECT_EQ(values_of(out), (std::vector<int64_t>{10, 20, 200, 20}));
}

// Note [Errors no example raises]: a branch whose ops would raise (matmul of [3] by [5, 2])
// raises nothing where no example takes it, as the loop as written never runs it:
//   for (i) if (x[i].sum().item<float>() > 100) out[i] = matmul(x[i], w).sum(); else out[i] = 1;
// Where an example takes it, the batched code raises the loop's error.
void branch_with_bad_shapes(const Tensor& x, const Tensor& w, Tensor& out) {
  vb::Level level(0, x.size(0));
  const vb::Value i = level.index();
  vb::Where big(vb::at(x, i).sum().item<float>() > 100.0f);
  const vb::Value product = vb::matmul(vb::at(x, i), w);
  vb::at(out, i) = product.sum();
  big.flip();
  vb::at(out, i) = 1.0f;
}

TEST(BatchedControl, OpsOfABranchNoExampleTakesRaiseNothing) {
  Tensor x = ones({4, 3}), w = ones({5, 2}), out = zeros({4});
  EXPECT_NO_THROW(branch_with_bad_shapes(x, w, out));
  EXPECT_EQ(values_of(out), (std::vector<int64_t>{1, 1, 1, 1}));
  x[2].fill_(50.0);  // example 2 takes the branch: the loop as written raises
  EXPECT_THROW(branch_with_bad_shapes(x, w, out), Error);
}

// Note [One dtype and shape per variable]: `Tensor v = xf[i]; if (c) v = xi[i];` and
// `Tensor v = c ? xi[i] : xf[i];` of an int tensor xi and a float xf. Where every example
// takes one side, v is that side's, dtype included (a rebind no example took made v int).
// Where examples take both, a `?:` cannot give one batched v both: an error, not the float
// examples truncated; a rebind merges, the skipped examples converted (an if/else that
// converts in both branches, or a temporary shape, is right that way).
vb::Value rebound_where(const Tensor& xf, const Tensor& xi, const Tensor& take) {
  vb::Level level(0, xf.size(0));
  const vb::Value i = level.index();
  vb::Value v = vb::at(xf, i);
  vb::Where branch(vb::at(take, i).item<bool>());
  v = vb::at(xi, i);
  return v;
}
vb::Value picked(const Tensor& xf, const Tensor& xi, const Tensor& take) {
  vb::Level level(0, xf.size(0));
  const vb::Value i = level.index();
  return vb::where(vb::at(take, i).item<bool>(), vb::at(xi, i), vb::at(xf, i));
}
// if (c) v = v.to(kDouble); else v = v.to(kDouble) * 2;
vb::Value converted_in_both(const Tensor& xf, const Tensor& take) {
  vb::Level level(0, xf.size(0));
  const vb::Value i = level.index();
  vb::Value v = vb::at(xf, i);
  vb::Where branch(vb::at(take, i).item<bool>());
  v = v.to(kFloat64);
  branch.flip();
  v = v.to(kFloat64) * 2;
  return v;
}

TEST(BatchedControl, ATensorOfTwoDtypesInOneVariable) {
  const Tensor xf = tensor({0.5f, 2.5f, -3.75f}), xi = tensor({1, 2, 3}).to(kInt32);
  const Tensor all = tensor({true, true, true}), none = tensor({false, false, false});
  const Tensor some = tensor({true, false, true});
  EXPECT_EQ(rebound_where(xf, xi, all).dtype(), kInt32);
  EXPECT_EQ(rebound_where(xf, xi, none).dtype(), kFloat32);
  EXPECT_EQ(picked(xf, xi, all).dtype(), kInt32);
  EXPECT_EQ(picked(xf, xi, none).dtype(), kFloat32);
  try {
    (void)picked(xf, xi, some);
    ADD_FAILURE() << "examples of two dtypes held in one variable";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dtype Int and shape [] in some examples and one of "
                                         "dtype Float and shape [] in others"),
              std::string::npos)
        << e.what();
  }
  const vb::Value both = converted_in_both(xf, some);
  EXPECT_EQ(both.dtype(), kFloat64);
  EXPECT_TRUE(equal(both.physical(), tensor({0.5, 5.0, -3.75}, kFloat64)));
  // Shapes that do not broadcast ([2] and [3]): no one tensor holds both, and the error
  // says so (it was where's "expected condition to be a boolean tensor").
  try {
    vb::Level level(0, 3);
    const vb::Value i = level.index();
    vb::Value v = vb::at(xf.expand({3, 3}).t(), i);  // [3] each
    vb::Where branch(vb::at(some, i).item<bool>());
    v = v.narrow(0, 0, 2);
    ADD_FAILURE() << "examples of two shapes held in one variable";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shape [2] in some examples and one of dtype Float and "
                                         "shape [3] in others"),
              std::string::npos)
        << e.what();
  }
  // One dtype: each example its own side, as before.
  const vb::Value same = rebound_where(xf, xi.to(kFloat32), some);
  EXPECT_EQ(same.dtype(), kFloat32);
  EXPECT_TRUE(equal(same.physical(), tensor({1.0f, 2.5f, 3.0f})));
}

}  // namespace
}  // namespace vmap
