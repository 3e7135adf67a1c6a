// Printing matches LibTorch 1.13's operator<< (at::print); expected strings are LibTorch's.
#include "test_util.hpp"

#include <sstream>

using namespace vmap;

namespace {

std::string printed(const Tensor& t) {
  std::ostringstream out;
  out << t;
  return out.str();
}

TEST(Print, IntegersAndFooter) {
  EXPECT_EQ(printed(tensor({1, 2, 3})), " 1\n 2\n 3\n[ CPULongType{3} ]");
  EXPECT_EQ(printed(ones({2, 3})), " 1  1  1\n 1  1  1\n[ CPUFloatType{2,3} ]");
  EXPECT_EQ(printed(tensor({10, -2}, kInt32)), " 10\n -2\n[ CPUIntType{2} ]");
  EXPECT_EQ(printed(tensor({true, false})), " 1\n 0\n[ CPUBoolType{2} ]");
}

TEST(Print, FloatsFixedPoint) {
  EXPECT_EQ(printed(tensor({0.5, 1.5})), " 0.5000\n 1.5000\n[ CPUFloatType{2} ]");
  EXPECT_EQ(printed(tensor({{0.5, 12.25}}, kFloat64)), "  0.5000  12.2500\n[ CPUDoubleType{1,2} ]");
}

TEST(Print, ScaleFactorAndScientific) {
  // |max| has 6 digits: a common factor 1e+05 is printed first.
  EXPECT_EQ(printed(tensor({123456.5, 10000.5})), "1e+05 *\n 1.2346\n 0.1000\n[ CPUFloatType{2} ]");
  // Magnitudes 5 decades apart: scientific.
  EXPECT_EQ(printed(tensor({1e-3, 100.5}, kFloat64)),
            " 1.0000e-03\n 1.0050e+02\n[ CPUDoubleType{2} ]");
}

TEST(Print, ZeroDimEmptyAndHigherRank) {
  EXPECT_EQ(printed(tensor(3.5)), "3.5\n[ CPUFloatType{} ]");
  EXPECT_EQ(printed(tensor(int64_t{7})), "7\n[ CPULongType{} ]");
  EXPECT_EQ(printed(zeros({0})), "[ CPUFloatType{0} ]");
  EXPECT_EQ(printed(zeros({2, 0})), "[ CPUFloatType{2,0} ]");
  EXPECT_EQ(printed(zeros({2, 1, 2})),
            "(1,.,.) = \n  0  0\n\n(2,.,.) = \n  0  0\n[ CPUFloatType{2,1,2} ]");
  EXPECT_EQ(printed(Tensor()), "[ Tensor (undefined) ]");
}

TEST(Print, FourDimsCountFirstIndexFastest) {
  Tensor x = arange(4).view({2, 2, 1, 1});
  EXPECT_EQ(printed(x),
            "(1,1,.,.) = \n  0\n\n(2,1,.,.) = \n  2\n\n(1,2,.,.) = \n  1\n\n(2,2,.,.) = \n  3\n"
            "[ CPULongType{2,2,1,1} ]");
}

TEST(Print, WideMatricesSplitColumns) {
  std::string text = printed(zeros({1, 30}));
  EXPECT_EQ(text.rfind("Columns 1 to 26", 0), 0u) << text;
  EXPECT_NE(text.find("\nColumns 27 to 30"), std::string::npos) << text;
}

TEST(Print, StreamFormatIsRestored) {
  std::ostringstream out;
  out << tensor({0.5}) << ' ' << 0.125;
  EXPECT_EQ(out.str(), " 0.5000\n[ CPUFloatType{1} ] 0.125");
}

TEST(Print, TypesPrintLikeLibTorch) {
  std::ostringstream out;
  out << kFloat32 << ' ' << kInt64 << ' ' << kCPU << ' ' << zeros({2, 3}).sizes();
  EXPECT_EQ(out.str(), "Float Long cpu [2, 3]");
}

}  // namespace
