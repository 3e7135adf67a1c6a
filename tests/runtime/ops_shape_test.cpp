// cat / stack / triu / tril against naive loops: dims (negative too), dtype promotion,
// non-contiguous inputs, LibTorch's legacy empty-tensor rule and the error messages.
#include "ops_reference.hpp"

using namespace vmap;
using namespace vmap_test;
using V = std::vector<int64_t>;

namespace {

// Concatenation along dim of row-major values: for each outer position, each input's block.
std::vector<double> naive_cat(const std::vector<Tensor>& tensors, int64_t dim) {
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= tensors[0].size(d);
  std::vector<double> result;
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor& t : tensors) {
      const auto data = values(t);
      const size_t block = data.size() / static_cast<size_t>(outer);
      result.insert(result.end(), data.begin() + o * block, data.begin() + (o + 1) * block);
    }
  }
  return result;
}

TEST(OpsShape, CatEveryDimAndDtype) {
  for (Dtype dtype : all_dtypes) {
    const Tensor a = random_tensor({2, 3, 4}, dtype, 1);
    for (int64_t dim : {0, 1, 2}) {
      V b_sizes = {2, 3, 4};
      b_sizes[dim] = 5;
      const Tensor b = random_tensor(b_sizes, dtype, 2);
      const Tensor result = cat({a, non_contiguous(b), a}, dim - 3);
      V expected_sizes = {2, 3, 4};
      expected_sizes[dim] += 5 + expected_sizes[dim];
      EXPECT_EQ(shape(result), expected_sizes);
      EXPECT_EQ(result.dtype(), dtype);
      EXPECT_EQ(values(result), naive_cat({a, b, a}, dim));
    }
  }
}

TEST(OpsShape, CatPromotesAndSkipsLegacyEmpty) {
  const Tensor ints = tensor({1, 2});
  const Tensor floats = tensor({0.5f});
  const Tensor flags = tensor({true});
  EXPECT_EQ(cat({ints, floats}).dtype(), kFloat32);
  EXPECT_EQ(values(cat({ints, floats, flags})), std::vector<double>({1, 2, 0.5, 1}));
  EXPECT_EQ(cat({ints.to(kInt32), flags}).dtype(), kInt32);
  EXPECT_EQ(cat({flags, tensor({2.0}, kFloat64)}).dtype(), kFloat64);
  // A 1-d empty tensor is skipped whatever the other shapes.
  const Tensor matrix = random_tensor({2, 3}, kInt64);
  EXPECT_EQ(values(cat({empty({0}, kInt64), matrix, empty({0}, kInt64)}, 1)), values(matrix));
  EXPECT_EQ(shape(cat({empty({0}), empty({0})})), V({0}));
  EXPECT_EQ(shape(cat({empty({2, 0}), empty({2, 3})}, 1)), V({2, 3}));
}

TEST(OpsShape, StackEveryDim) {
  for (Dtype dtype : {kFloat32, kInt64, kBool}) {
    const Tensor a = random_tensor({3, 4}, dtype, 1);
    const Tensor b = random_tensor({3, 4}, dtype, 2);
    for (int64_t dim : {0, 1, 2, -1, -3}) {
      const Tensor result = stack({a, non_contiguous(b)}, dim);
      const int64_t wrapped = dim < 0 ? dim + 3 : dim;
      EXPECT_EQ(shape(result), shape(cat({a.unsqueeze(wrapped), b.unsqueeze(wrapped)}, wrapped)));
      EXPECT_EQ(values(result), naive_cat({a.unsqueeze(wrapped), b.unsqueeze(wrapped)}, wrapped));
    }
  }
  const Tensor scalars = stack({tensor(1), tensor(2.5f)});
  EXPECT_EQ(shape(scalars), V({2}));
  EXPECT_EQ(scalars.dtype(), kFloat32);
  EXPECT_EQ(values(scalars), std::vector<double>({1, 2.5}));
}

TEST(OpsShape, TriuTrilEveryDtypeAndDiagonal) {
  for (Dtype dtype : all_dtypes) {
    for (V sizes : {V{4, 5}, V{5, 3}, V{2, 3, 4}}) {
      const Tensor x = random_tensor(sizes, dtype, 3);
      const int64_t rows = sizes[sizes.size() - 2], cols = sizes.back();
      const auto data = values(x);
      for (int64_t diagonal : {-2, -1, 0, 1, 3, 10}) {
        std::vector<double> upper(data.size()), lower(data.size());
        for (size_t k = 0; k < data.size(); ++k) {
          const int64_t i = static_cast<int64_t>(k) / cols % rows, j = static_cast<int64_t>(k) % cols;
          upper[k] = j - i >= diagonal ? data[k] : 0.0;
          lower[k] = j - i <= diagonal ? data[k] : 0.0;
        }
        EXPECT_EQ(values(triu(x, diagonal)), upper);
        EXPECT_EQ(values(x.tril(diagonal)), lower);
        EXPECT_EQ(values(triu(non_contiguous(x), diagonal)), upper);
        EXPECT_EQ(triu(x, diagonal).dtype(), dtype);
      }
    }
  }
  EXPECT_EQ(shape(tril(empty({0, 3}))), V({0, 3}));
}

TEST(OpsShape, Errors) {
  EXPECT_EQ(error_of([] { cat({}); }), "cat: expected a non-empty list of Tensors");
  EXPECT_EQ(error_of([] { cat({tensor({1}), tensor(2)}); }),
            "cat: zero-dimensional tensor (at position 1) cannot be concatenated");
  EXPECT_EQ(error_of([] { cat({empty({2, 3}), empty({2, 4})}, 0); }),
            "cat: Sizes of tensors must match except in dimension 0. Expected size 3 but got "
            "size 4 for tensor number 1 in the list.");
  EXPECT_EQ(error_of([] { cat({empty({2, 3}), empty({2, 3, 1})}); }),
            "cat: Tensors must have same number of dimensions: got 2 and 3");
  EXPECT_NE(error_of([] { cat({empty({2, 3})}, 2); }).find("cat: dimension out of range"),
            std::string::npos);
  EXPECT_EQ(error_of([] { stack({empty({2}), empty({3})}); }),
            "stack: expects each tensor to be equal size, but got [2] at entry 0 and [3] at "
            "entry 1");
  EXPECT_NE(error_of([] { stack({empty({2})}, 2); }).find("stack: dimension out of range"),
            std::string::npos);
  EXPECT_EQ(error_of([] { triu(empty({3})); }),
            "triu: input tensor must have at least 2 dimensions, but got [3]");
  EXPECT_EQ(error_of([] { tril(tensor(1.0f)); }),
            "tril: input tensor must have at least 2 dimensions, but got []");
}

}  // namespace
