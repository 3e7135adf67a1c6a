// Per-example control flow in the batched API (Note [Control masks] in vmap/batched.hpp):
// each test writes the per-example code and its batched form side by side.
#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <cstdint>
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

}  // namespace
}  // namespace vmap
