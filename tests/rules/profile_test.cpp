// The run-time profile (vmap/profile.hpp, beyond SPEC): calls and time per op of the batched
// API, the overlap guards' counter and its one-time warning, the table VMAP_PROFILE prints.
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
