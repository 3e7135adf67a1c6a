// Check mode's comparison and state keeping (Note [Check mode] in vmap/batched.hpp): a
// planted difference is caught and named; agreeing results pass.
#include <vmap/batched.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace vmap {
namespace {

namespace vb = vmap::batched;

// The message of the vmap::Error that check_equal throws, or "" when it passes.
template <class T>
std::string check_message(const T& batched, const T& as_written, const vb::CheckSite& site) {
  try {
    vb::check_equal(batched, as_written, site);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

const vb::CheckSite kOutput{"model.cpp", 12, "out", false, 1};

TEST(CheckMode, NamesFileLineOutputExampleAndBothValues) {
  const Tensor as_written = tensor({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
  Tensor batched = as_written.clone();
  batched[2][1] = 6.5f;
  EXPECT_EQ(check_message(batched, as_written, kOutput),
            "clang-vmap --check: model.cpp:12: output 'out' differs at example 2, element "
            "[2, 1]: batched 6.5, as written 6");
}

TEST(CheckMode, NamesTheFirstDifferenceOnly) {
  const Tensor as_written = zeros({4}, kInt64);
  Tensor batched = as_written.clone();
  batched[1] = 7;
  batched[3] = 9;
  EXPECT_EQ(check_message(batched, as_written, kOutput),
            "clang-vmap --check: model.cpp:12: output 'out' differs at example 1, element "
            "[1]: batched 7, as written 0");
}

TEST(CheckMode, NestedExamplesAndAccumulators) {
  const vb::CheckSite nested{"a.cpp", 3, "mask", false, 2};
  Tensor batched = zeros({2, 3, 4}, kBool);
  batched[1][2][3] = true;
  EXPECT_EQ(check_message(batched, zeros({2, 3, 4}, kBool), nested),
            "clang-vmap --check: a.cpp:3: output 'mask' differs at example [1, 2], element "
            "[1, 2, 3]: batched 1, as written 0");
  const vb::CheckSite accumulator{"a.cpp", 5, "acc", true, 0};
  EXPECT_EQ(check_message(tensor({1., 2.}), tensor({1., 2.5}), accumulator),
            "clang-vmap --check: a.cpp:5: accumulator 'acc' differs at element [1]: batched 2, "
            "as written 2.5");
}

TEST(CheckMode, FloatsWithinTheToleranceAgreeIntegersMustBeEqual) {
  EXPECT_EQ(check_message(tensor({1000.f, 0.f, NAN}), tensor({1000.05f, 5e-7f, NAN}), kOutput),
            "");
  EXPECT_NE(check_message(tensor({1000.f}), tensor({1000.5f}), kOutput), "");
  EXPECT_NE(check_message(tensor({1.f}), tensor({NAN}), kOutput), "");
  EXPECT_NE(check_message(tensor({int64_t{1} << 60}), tensor({(int64_t{1} << 60) + 1}), kOutput),
            "");
}

TEST(CheckMode, DtypeAndShapeMustMatch) {
  EXPECT_EQ(check_message(zeros({2}, kFloat64), zeros({2}, kFloat32), kOutput),
            "clang-vmap --check: model.cpp:12: output 'out' has dtype Double batched, Float "
            "as written");
  EXPECT_EQ(check_message(zeros({2, 3}), zeros({3, 2}), kOutput),
            "clang-vmap --check: model.cpp:12: output 'out' has shape [2, 3] batched, [3, 2] as "
            "written");
}

TEST(CheckMode, Scalars) {
  const vb::CheckSite sum{"m.cpp", 9, "total", true, 0};
  EXPECT_EQ(check_message(vmap::detail::Scalar(int64_t{5}), vmap::detail::Scalar(int64_t{6}), sum),
            "clang-vmap --check: m.cpp:9: accumulator 'total' differs: batched 5, as written 6");
  EXPECT_EQ(check_message(vmap::detail::Scalar(1.0), vmap::detail::Scalar(1.00001), sum), "");
}

TEST(CheckMode, AnErrorOnlyTheBatchedLoopRaisesNamesTheLoop) {
  try {
    vb::check_threw(Error("index_select: index 7 out of range for size 3"), "m.cpp", 4);
    FAIL() << "check_threw returned";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "clang-vmap --check: m.cpp:4: the batched loop threw where the loop as "
                 "written did not: index_select: index 7 out of range for size 3");
  }
}

// The loop as written runs first; the batched loop must start from the same state, and the
// variable is bound again to the storage it started with.
TEST(CheckMode, PutsOutputsBackAsTheyWere) {
  Tensor out = tensor({1.f, 2.f});
  const Tensor view = out;  // shares its storage
  vb::CheckedOutput checked(out);
  out[0] = 10.f;              // written in place ...
  out = tensor({7.f, 8.f});   // ... and rebound
  checked.ran_as_written(out);
  checked.put_back(out);
  EXPECT_TRUE(out.is_same(view));
  EXPECT_EQ(out[0].item<float>(), 1.f);
  out[1] = 8.f;
  EXPECT_NO_THROW(checked.compare(tensor({7.f, 8.f}), kOutput));
  EXPECT_THROW(checked.compare(out, kOutput), Error);

  float total = 1.f;
  vb::CheckedOutput scalar(total);
  total += 2.f;
  scalar.ran_as_written(total);
  scalar.put_back(total);
  EXPECT_EQ(total, 1.f);
  EXPECT_NO_THROW(scalar.compare(3.f, kOutput));
  EXPECT_THROW(scalar.compare(4.f, kOutput), Error);
}

// An output that is an expanded view (stride 0, as written the last write wins) and two
// outputs sharing one buffer: every result is kept before any is put back, and an expanded
// view is put back through its one location per element.
TEST(CheckMode, PutsBackExpandedAndSharedOutputs) {
  Tensor row = tensor({1.f, 2.f});
  Tensor expanded = row.expand({3, 2});
  vb::CheckedOutput checked(expanded);
  row.fill_(5.f);
  checked.ran_as_written(expanded);
  checked.put_back(expanded);
  EXPECT_EQ(row[1].item<float>(), 2.f);
  EXPECT_NO_THROW(checked.compare(full({3, 2}, 5.f), kOutput));

  Tensor rows = zeros({2, 2});
  Tensor cols = rows.t();
  vb::CheckedOutput kept_rows(rows), kept_cols(cols);
  rows[0][1] = 3.f;  // as written: cols[1][0] is 3 too
  kept_rows.ran_as_written(rows);
  kept_cols.ran_as_written(cols);
  kept_rows.put_back(rows);
  kept_cols.put_back(cols);
  EXPECT_EQ(rows[0][1].item<float>(), 0.f);
  EXPECT_THROW(kept_cols.compare(zeros({2, 2}), kOutput), Error);
}

}  // namespace
}  // namespace vmap
