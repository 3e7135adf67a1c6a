// Bad input throws vmap::Error naming the op and the offending shapes or values.
#include "test_util.hpp"

using namespace vmap;
using vmap_test::error_of;

namespace {

TEST(Errors, MessagesNameOpAndValues) {
  Tensor x = zeros({2, 3});
  EXPECT_EQ(error_of([&] { x.select(1, 3); }), "select: index 3 out of range for dim 1 of size 3");
  EXPECT_EQ(error_of([&] { x.select(0, -3); }), "select: index -3 out of range for dim 0 of size 2");
  EXPECT_EQ(error_of([&] { x.unsqueeze(3); }),
            "unsqueeze: dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EXPECT_EQ(error_of([&] { x.view({4, 2}); }),
            "view: shape '[4, 2]' is invalid for input of size 6");
  EXPECT_EQ(error_of([&] { x.data_ptr<int64_t>(); }),
            "data_ptr: expected scalar type Float but requested Long");
  EXPECT_EQ(error_of([&] { x.expand({3, 3}); }),
            "expand: the expanded size of the tensor (3) must match the existing size (2) at "
            "non-singleton dimension 0.  Target sizes: [3, 3].  Tensor sizes: [2, 3]");
  EXPECT_EQ(error_of([&] { x[0] = zeros({2}); }),
            "copy_: the source of shape [2] cannot be broadcast to the destination of shape [3]");
  EXPECT_EQ(error_of([&] { x.to(kCUDA); }).empty(), false);
}

TEST(Errors, IsARuntimeError) {
  try {
    zeros({2}) * zeros({3});
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()).rfind("mul: ", 0), 0u);
  }
}

TEST(Errors, NothingOutOfBoundsOnEdgeIndices) {
  Tensor x = zeros({1});
  EXPECT_NO_THROW(x[0]);
  EXPECT_NO_THROW(x[-1]);
  EXPECT_FALSE(error_of([&] { x[1]; }).empty());
  EXPECT_FALSE(error_of([&] { x[-2]; }).empty());
  EXPECT_FALSE(error_of([&] { x.narrow(0, 0, 2); }).empty());
  EXPECT_FALSE(error_of([&] { x.narrow(0, 2, 0); }).empty());
  EXPECT_NO_THROW(x.narrow(0, 1, 0));
  EXPECT_FALSE(error_of([&] { zeros({0})[0]; }).empty());
}

}  // namespace
