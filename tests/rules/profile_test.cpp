// The run-time profile (vmap/profile.hpp, beyond SPEC): calls and time per batched statement
// (file and line) and per op of the batched API, the overlap guards' counter and its
// one-time warning, the table VMAP_PROFILE prints.
#include <vmap/batched.hpp>
#include <vmap/profile.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace vmap {
namespace {

namespace vb = vmap::batched;

const profile::OpStats* find(const std::vector<profile::OpStats>& all, std::string_view op) {
  auto it = std::find_if(all.begin(), all.end(),
                         [&](const profile::OpStats& entry) { return entry.op == op; });
  return it == all.end() ? nullptr : &*it;
}

float relu_of_twice_sum(const Tensor& row) { return relu(row * 2).sum().item<float>(); }

// out[i] = relu(x[i] * 2).sum(), batched: one call of each op for the whole batch.
void batched_loop(const Tensor& x, Tensor& out) {
  vb::Level level(0, x.size(0));
  const vb::Value i = level.index();
  vb::at(out, i) = vb::relu(vb::at(x, i) * 2).sum();
}

// Statements in the form clang-vmap prints them (Note [Profiled statements]): each starts
// with vb::profile_line(), and the test records each one's line on the same line (so the
// statement lines below are kept from clang-format).
struct ProductLines {
  int add = 0, product = 0;
};
// clang-format off
ProductLines products(const Tensor& a, const Tensor& b, const Tensor& c, Tensor& out,
                      Tensor& small) {
  ProductLines lines;
  vb::profile_line(); vb::Level level(0, a.size(0)); const vb::Value i = level.index();
  vb::profile_line(); vb::at(small, i) = vb::at(c, i) + 1; lines.add = __LINE__;
  vb::profile_line(); vb::at(out, i) = vb::at(a, i).matmul(b); lines.product = __LINE__;
  return lines;
}
// clang-format on

const profile::StatementStats* find_line(const std::vector<profile::StatementStats>& all,
                                         int line) {
  auto it = std::find_if(all.begin(), all.end(), [&](const profile::StatementStats& entry) {
    return entry.line == line;
  });
  return it == all.end() ? nullptr : &*it;
}

bool lists(const profile::StatementStats& entry, std::string_view op) {
  return std::find(entry.ops.begin(), entry.ops.end(), op) != entry.ops.end();
}

class Profile : public testing::Test {
 protected:
  void SetUp() override {
    profile::reset();
    profile::enable(true);
  }
  void TearDown() override {
    profile::enable(false);
    profile::reset();
  }
};

TEST_F(Profile, CountsEachOpOncePerBatchedCall) {
  const Tensor x = arange(24, kFloat32).reshape({6, 4}) - 10;
  Tensor out = zeros({6});
  for (int run = 0; run < 3; ++run) batched_loop(x, out);
  const std::vector<profile::OpStats> all = profile::ops();
  const profile::OpStats* relu = find(all, "relu");
  ASSERT_NE(relu, nullptr) << profile::table();
  EXPECT_EQ(relu->calls, 3);
  EXPECT_GT(relu->seconds, 0.0);
  const profile::OpStats* sum = find(all, "sum");
  ASSERT_NE(sum, nullptr) << profile::table();
  EXPECT_EQ(sum->calls, 3);
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.seconds > b.seconds;
  }));
  // The batched result is the per-example one.
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(out[i].item<float>(), relu_of_twice_sum(x[i]));
}

TEST_F(Profile, OffCountsNothing) {
  profile::enable(false);
  const Tensor x = ones({3, 2});
  Tensor out = zeros({3});
  batched_loop(x, out);
  EXPECT_TRUE(profile::ops().empty());
}

TEST_F(Profile, TableNamesTheOpsWithCallsAndShares) {
  const Tensor x = ones({3, 2});
  Tensor out = zeros({3});
  batched_loop(x, out);
  const std::string table = profile::table();
  EXPECT_NE(table.find("vmap op (batched)"), std::string::npos) << table;
  EXPECT_NE(table.find("Calls"), std::string::npos) << table;
  EXPECT_NE(table.find("relu"), std::string::npos) << table;
  EXPECT_NE(table.find("%"), std::string::npos) << table;
}

// A [128 x 128] product per example against an add of 4 elements: the product heads the
// statements, named by this file and its line, once per batched run.
TEST_F(Profile, StatementsAreNamedByFileAndLineTheHottestFirst) {
  const int64_t n = 16, size = 128;
  const Tensor a = rand({n, size, size});
  const Tensor b = rand({size, size});
  const Tensor c = arange(n * 4, kFloat32).reshape({n, 4});
  Tensor out = zeros({n, size, size});
  Tensor small = zeros({n, 4});
  ProductLines lines;
  for (int run = 0; run < 2; ++run) lines = products(a, b, c, out, small);
  const std::vector<profile::StatementStats> all = profile::statements();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().line, lines.product) << profile::table();
  EXPECT_EQ(all.front().file, __FILE__);
  EXPECT_EQ(all.front().calls, 2);
  EXPECT_TRUE(lists(all.front(), "matmul")) << profile::table();
  const profile::StatementStats* add = find_line(all, lines.add);
  ASSERT_NE(add, nullptr) << profile::table();
  EXPECT_EQ(add->calls, 2);
  EXPECT_EQ(add->ops, std::vector<std::string>{"operator+"});
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(), [](const auto& x, const auto& y) {
    return x.seconds > y.seconds;
  }));
  const std::string table = profile::table();
  EXPECT_NE(table.find("Batched statement"), std::string::npos) << table;
  EXPECT_NE(table.find("profile_test.cpp:" + std::to_string(lines.product)), std::string::npos)
      << table;
  // The batched result is the per-example one.
  EXPECT_TRUE(allclose(out[3], a[3].matmul(b), 1e-4, 1e-4));
  EXPECT_TRUE(equal(small, c + 1));
}

// Self time leaves out the ops called inside: a statement's self time is its glue, never
// more than its total; the trace holds each statement run and op call as a Chrome "X" slice,
// statements named by full path and line.
TEST_F(Profile, SelfTimesAndTheChromeTrace) {
  profile::record_trace(true);
  const int64_t n = 16, size = 64;
  const Tensor a = rand({n, size, size});
  const Tensor b = rand({size, size});
  const Tensor c = arange(n * 4, kFloat32).reshape({n, 4});
  Tensor out = zeros({n, size, size});
  Tensor small = zeros({n, 4});
  const ProductLines lines = products(a, b, c, out, small);
  for (const profile::StatementStats& entry : profile::statements()) {
    EXPECT_GE(entry.self_seconds, 0);
    EXPECT_LE(entry.self_seconds, entry.seconds);
  }
  const std::vector<profile::OpStats> ops = profile::ops();
  const profile::OpStats* matmul = find(ops, "matmul");
  ASSERT_NE(matmul, nullptr);
  EXPECT_LE(matmul->self_seconds, matmul->seconds);
  EXPECT_GT(matmul->self_seconds, 0);
  const std::string trace = profile::trace_json();
  EXPECT_EQ(trace.rfind("{\"displayTimeUnit\"", 0), 0u) << trace;
  EXPECT_NE(trace.find("\"traceEvents\": ["), std::string::npos);
  EXPECT_NE(trace.find("{\"name\": \"" + std::string(__FILE__) + ":" +
                       std::to_string(lines.product) + "\", \"cat\": \"statement\", \"ph\": \"X\""),
            std::string::npos)
      << trace;
  EXPECT_NE(trace.find("{\"name\": \"matmul\", \"cat\": \"op\", \"ph\": \"X\""),
            std::string::npos)
      << trace;
  EXPECT_NE(trace.find("\"self_us\": "), std::string::npos);
  EXPECT_NE(trace.find("\"truncated\": false"), std::string::npos);
  profile::reset();  // clears the slices and stops recording
  EXPECT_EQ(profile::trace_json().find("\"cat\""), std::string::npos);
}

// A pending value (Note [Pending values]) is computed where it is consumed: its time counts
// toward the store, not toward the statement that wrote the chain.
TEST_F(Profile, APendingValueCountsWhereItIsComputed) {
  const Tensor x = rand({16, 1 << 18});
  Tensor out = zeros({16, 1 << 18});
  int chain_line = 0, store_line = 0;
  // clang-format off
  for (int run = 0; run < 3; ++run) {
    vb::profile_line(); vb::Level level(0, x.size(0)); const vb::Value i = level.index();
    vb::profile_line(); vb::Value t = (vb::at(x, i) * 2 + 1).exp(); chain_line = __LINE__;
    vb::profile_line(); vb::at(out, i) = t; store_line = __LINE__;
  }
  // clang-format on
  const std::vector<profile::StatementStats> all = profile::statements();
  const profile::StatementStats* chain = find_line(all, chain_line);
  const profile::StatementStats* store = find_line(all, store_line);
  ASSERT_NE(chain, nullptr) << profile::table();
  ASSERT_NE(store, nullptr) << profile::table();
  EXPECT_TRUE(lists(*chain, "operator*")) << profile::table();  // called there, computed later
  EXPECT_GT(store->seconds, chain->seconds) << profile::table();
  EXPECT_TRUE(allclose(out, (x * 2 + 1).exp(), 1e-5, 1e-5));
}

// A compiled fused kernel runs no op of the batched API, yet shows: as "fused" (and "fused
// sum") in its statement and in the table of ops.
TEST_F(Profile, FusedKernelsShowOnTheirLine) {
  const Tensor x = rand({8, 300});
  const Tensor y = rand({8, 300});
  Tensor out = zeros({8, 300});
  Tensor sums = zeros({8});
  int store_line = 0, sum_line = 0;
  // clang-format off
  {
    vb::profile_line(); vb::Level level(0, x.size(0)); const vb::Value i = level.index();
    vb::profile_line(); vb::at(out, i) = vb::fused([](const auto& a, const auto& b) { return (a - b) * (a - b); }, vb::at(x, i), vb::at(y, i)); store_line = __LINE__;
    vb::profile_line(); vb::at(sums, i) = vb::fused([](const auto& a, const auto& b) { return (a - b) * (a - b); }, vb::at(x, i), vb::at(y, i)).sum(); sum_line = __LINE__;
  }
  // clang-format on
  const std::vector<profile::StatementStats> all = profile::statements();
  const profile::StatementStats* store = find_line(all, store_line);
  const profile::StatementStats* sum = find_line(all, sum_line);
  ASSERT_NE(store, nullptr) << profile::table();
  ASSERT_NE(sum, nullptr) << profile::table();
  EXPECT_TRUE(lists(*store, "fused")) << profile::table();
  EXPECT_TRUE(lists(*sum, "fused sum")) << profile::table();
  const std::vector<profile::OpStats> ops = profile::ops();
  const profile::OpStats* fused = find(ops, "fused");
  ASSERT_NE(fused, nullptr) << profile::table();
  EXPECT_EQ(fused->calls, 1);
  EXPECT_TRUE(allclose(out, (x - y) * (x - y), 1e-6, 1e-6));
  EXPECT_TRUE(allclose(sums, ((x - y) * (x - y)).sum(1), 1e-4, 1e-4));
}

// A batched `while`: the condition is tested after the iteration's resume(), so it counts
// toward the loop's line, once per test, and not toward the body's last statement.
TEST_F(Profile, ALoopConditionCountsTowardTheLoopLine) {
  const Tensor x = tensor({0.5f, 3.0f, 100.0f});
  Tensor steps = zeros({3}, kInt64);
  int loop_line = 0, body_line = 0;
  // clang-format off
  {
    vb::profile_line(); vb::Level level(0, x.size(0)); const vb::Value i = level.index();
    vb::profile_line(); vb::Value v = vb::at(x, i).item<float>();
    vb::profile_line(); vb::Value k = int64_t{0};
    {
      vb::profile_line(); vb::Loop loop; loop_line = __LINE__;
      while (loop.next(v > 1.0f)) {
        vb::profile_line(); v = v / 2.0f; k += 1; body_line = __LINE__;
        loop.resume();
      }
    }
    vb::profile_line(); vb::at(steps, i) = k;
  }
  // clang-format on
  const std::vector<profile::StatementStats> all = profile::statements();
  const profile::StatementStats* loop = find_line(all, loop_line);
  const profile::StatementStats* body = find_line(all, body_line);
  ASSERT_NE(loop, nullptr) << profile::table();
  ASSERT_NE(body, nullptr) << profile::table();
  EXPECT_EQ(body->calls, 7);  // 100 halves 7 times to 0.78
  EXPECT_EQ(loop->calls, 8);  // entered, then once after each iteration
  EXPECT_TRUE(lists(*loop, "operator>")) << profile::table();
  EXPECT_FALSE(lists(*body, "operator>")) << profile::table();
  EXPECT_TRUE(equal(steps, tensor({int64_t{0}, int64_t{2}, int64_t{7}})));
}

TEST_F(Profile, OffRecordsNoStatement) {
  profile::enable(false);
  const Tensor a = ones({2, 3, 3});
  Tensor out = zeros({2, 3, 3});
  Tensor small = zeros({2, 4});
  products(a, ones({3, 3}), ones({2, 4}), out, small);
  EXPECT_TRUE(profile::statements().empty());
  EXPECT_TRUE(profile::ops().empty());
}

TEST_F(Profile, OverlapGuardsThatRunTheLoopAsWrittenAreCountedAndWarnedOnce) {
  Tensor buffer = arange(12, kFloat32).reshape({4, 3});
  const Tensor shifted = buffer.narrow(0, 1, 3);
  const Tensor separate = zeros({4, 3});
  testing::internal::CaptureStderr();
  EXPECT_FALSE(vb::unsafe_overlap(buffer, separate));
  EXPECT_FALSE(vb::unsafe_overlap(buffer, buffer));  // the same view: batched is safe
  EXPECT_TRUE(vb::unsafe_overlap(buffer, shifted));
  EXPECT_TRUE(vb::any_overlap(buffer, buffer));
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_EQ(profile::overlap_fallbacks(), 2);
  EXPECT_NE(warned.find("runs as written, one example at a time"), std::string::npos) << warned;
  EXPECT_EQ(warned.find("vmap: warning"), warned.rfind("vmap: warning")) << warned;  // once
}

}  // namespace
}  // namespace vmap
