#include "compare_outputs.hpp"

#include <gtest/gtest.h>

namespace vmap::test {
namespace {

TEST(CompareOutputs, IdenticalTextAgrees) {
  EXPECT_EQ(compare_outputs("sum = [1.5, 2, -3e-2]\n", "sum = [1.5, 2, -3e-2]\n"), std::nullopt);
}

TEST(CompareOutputs, FloatsWithinRelativeToleranceAgree) {
  EXPECT_EQ(compare_outputs("x 1000.0", "x 1000.05"), std::nullopt);
  EXPECT_NE(compare_outputs("x 1000.0", "x 1000.5"), std::nullopt);
}

TEST(CompareOutputs, FloatsNearZeroUseTheAbsoluteTolerance) {
  EXPECT_EQ(compare_outputs("1e-9", "-2e-9"), std::nullopt);
  EXPECT_NE(compare_outputs("0.0", "0.001"), std::nullopt);
}

TEST(CompareOutputs, IntegersMustBeExact) {
  EXPECT_NE(compare_outputs("count 100000", "count 100001"), std::nullopt);
  EXPECT_EQ(compare_outputs("count 100000", "count 100000"), std::nullopt);
}

TEST(CompareOutputs, IntegerAgainstFloatComparesAsFloat) {
  EXPECT_EQ(compare_outputs("2", "2.0"), std::nullopt);
}

TEST(CompareOutputs, WordsAndPunctuationMustBeExact) {
  EXPECT_NE(compare_outputs("true", "false"), std::nullopt);
  EXPECT_NE(compare_outputs("[1, 2]", "[1; 2]"), std::nullopt);
}

TEST(CompareOutputs, WhitespaceOnlySeparates) {
  EXPECT_EQ(compare_outputs("a  1.0\n b", "a 1.0 b\n"), std::nullopt);
}

TEST(CompareOutputs, DifferentLengthsDiffer) {
  auto difference = compare_outputs("1 2 3", "1 2");
  ASSERT_NE(difference, std::nullopt);
  EXPECT_NE(difference->find("expected 3 tokens, got 2"), std::string::npos);
}

TEST(CompareOutputs, NanEqualsNanAndInfMustMatchSign) {
  EXPECT_EQ(compare_outputs("nan inf", "nan inf"), std::nullopt);
  EXPECT_NE(compare_outputs("inf", "-inf"), std::nullopt);
  EXPECT_NE(compare_outputs("nan", "1.0"), std::nullopt);
}

TEST(CompareOutputs, WordsStartingWithInfAreNotNumbers) {
  auto tokens = tokenize_output("info");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_FALSE(tokens[0].is_number);
}

TEST(CompareOutputs, StatementLocationsStartingALineAreDropped) {
  EXPECT_EQ(without_statement_locations("ok\n/src/model.cpp:42: matmul: shapes [3] and [5, 2]\n"
                                        "a.hpp:7: select: index 9\n"),
            "ok\nmatmul: shapes [3] and [5, 2]\nselect: index 9\n");
  // Only at the start of a line, and only a source file's name.
  EXPECT_EQ(without_statement_locations("at model.cpp:42: x\nmodel.txt:3: y\n"),
            "at model.cpp:42: x\nmodel.txt:3: y\n");
}

TEST(TokenizeOutput, SplitsNumbersFromPunctuation) {
  auto tokens = tokenize_output("[1.5,-2e3]");
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_EQ(tokens[1].text, "1.5");
  EXPECT_TRUE(tokens[1].is_float);
  EXPECT_EQ(tokens[3].text, "-2e3");
  EXPECT_DOUBLE_EQ(tokens[3].value, -2000.0);
}

}  // namespace
}  // namespace vmap::test
