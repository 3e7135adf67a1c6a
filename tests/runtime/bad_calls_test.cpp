// The bad-call table (issue 18): calls a LibTorch user could write by mistake, from every op
// family (shapes that do not broadcast, bad dims, out-of-range indices, wrong dtypes, sizes
// whose products overflow int64, null blobs, undefined tensors). Each must throw vmap::Error
// whose message starts with the op the user called, never succeed with an overflowed size
// (and then read or write out of bounds) nor crash. The sanitized build runs it too.
#include "test_util.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace vmap;
using vmap_test::error_of;

namespace {

constexpr int64_t huge = std::numeric_limits<int64_t>::max();

// Expanded views: many elements, no memory.
Tensor column(int64_t rows, Dtype dtype = kFloat32) {
  return zeros({1, 1}, dtype).expand({rows, 1});
}
Tensor row(int64_t columns) { return zeros({1, 1}).expand({1, columns}); }

struct BadCall {
  const char* description;
  std::function<void()> call;
  const char* op;  // the message must start with "<op>: "
};

void expect_error_naming_op(const BadCall& row) {
  SCOPED_TRACE(row.description);
  const std::string message = error_of(row.call);
  ASSERT_FALSE(message.empty()) << "no vmap::Error";
  EXPECT_EQ(message.rfind(std::string(row.op) + ": ", 0), 0u) << message;
}

TEST(BadCalls, PointwiseShapesThatDoNotBroadcast) {
  const Tensor a = zeros({2, 3}), b = zeros({4}), i = zeros({2, 3}, kInt64);
  const BadCall rows[] = {
      {"a + b", [&] { a + b; }, "add"},
      {"add(a, b)", [&] { add(a, b); }, "add"},
      {"a - b", [&] { a - b; }, "sub"},
      {"a * b", [&] { a * b; }, "mul"},
      {"a / b", [&] { a / b; }, "div"},
      {"a += b", [&] { Tensor c = a.clone(); c += b; }, "add_"},
      {"a < b", [&] { a < b; }, "lt"},
      {"maximum(a, b)", [&] { maximum(a, b); }, "maximum"},
      {"where(a > 0, a, b)", [&] { where(a > 0, a, b); }, "where"},
      {"pow(a, b)", [&] { pow(a, b); }, "pow"},
      {"int % int by zero", [&] { i % zeros({2, 3}, kInt64); }, "remainder"},
      {"masked_fill mask shape", [&] { masked_fill(a, zeros({4}, kBool), 1.0); }, "masked_fill"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, UndefinedTensors) {
  const Tensor undefined, t = ones({3});
  const BadCall rows[] = {
      {"Tensor() + t", [&] { undefined + t; }, "add"},
      {"t + Tensor()", [&] { t + undefined; }, "add"},
      {"Tensor() * 2", [&] { undefined * 2; }, "mul"},
      {"t - Tensor()", [&] { t - undefined; }, "sub"},
      {"Tensor() < t", [&] { undefined < t; }, "lt"},
      {"t += Tensor()", [&] { Tensor c = t.clone(); c += undefined; }, "add_"},
      {"sum(Tensor())", [&] { sum(undefined); }, "sum"},
      {"Tensor().sqrt()", [&] { undefined.sqrt(); }, "sqrt"},
      {"mm(Tensor(), t)", [&] { mm(undefined, t); }, "mm"},
      {"cat({t, Tensor()})", [&] { cat({t, undefined}); }, "cat"},
      {"Tensor().view({3})", [&] { undefined.view({3}); }, "view"},
      {"Tensor()[0]", [&] { undefined[0]; }, "select"},
      {"Tensor().item()", [&] { undefined.item(); }, "item"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

// Every op family on an undefined tensor (a default-constructed handle): the message names
// the op the user called, not the accessor it reads first.
TEST(BadCalls, UndefinedTensorInEveryOpFamily) {
  const Tensor undefined, t = ones({3}), m = ones({2, 3});
  const BadCall rows[] = {
      {"zeros_like(Tensor())", [&] { zeros_like(undefined); }, "zeros_like"},
      {"ones_like(Tensor())", [&] { ones_like(undefined); }, "ones_like"},
      {"full_like(Tensor(), 2)", [&] { full_like(undefined, 2); }, "full_like"},
      {"empty_like(Tensor())", [&] { empty_like(undefined); }, "empty_like"},
      {"zeros_like(Tensor(), kInt64)", [&] { zeros_like(undefined, kInt64); }, "zeros_like"},
      {"Tensor().clone()", [&] { undefined.clone(); }, "clone"},
      {"Tensor().contiguous()", [&] { undefined.contiguous(); }, "contiguous"},
      {"Tensor().to(kInt64)", [&] { undefined.to(kInt64); }, "to"},
      {"Tensor().to(kCPU)", [&] { undefined.to(kCPU); }, "to"},
      {"Tensor().copy_(t)", [&] { undefined.copy_(t); }, "copy_"},
      {"t.copy_(Tensor())", [&] { t.clone().copy_(undefined); }, "copy_"},
      {"Tensor().fill_(1)", [&] { undefined.fill_(1); }, "fill_"},
      {"Tensor().zero_()", [&] { undefined.zero_(); }, "zero_"},
      {"Tensor() *= 2", [&] { Tensor u; u *= 2; }, "mul_"},
      {"relu(Tensor())", [&] { relu(undefined); }, "relu"},
      {"abs(Tensor())", [&] { abs(undefined); }, "abs"},
      {"-Tensor()", [&] { -undefined; }, "neg"},
      {"exp(Tensor())", [&] { exp(undefined); }, "exp"},
      {"pow(Tensor(), 2)", [&] { pow(undefined, 2); }, "pow"},
      {"pow(2, Tensor())", [&] { pow(2, undefined); }, "pow"},
      {"where(Tensor(), t, t)", [&] { where(undefined, t, t); }, "where"},
      {"where(t > 0, Tensor(), t)", [&] { where(t > 0, undefined, t); }, "where"},
      {"maximum(t, Tensor())", [&] { maximum(t, undefined); }, "maximum"},
      {"logical_and(Tensor(), t)", [&] { logical_and(undefined, t); }, "logical_and"},
      {"masked_fill(t, Tensor(), 1)", [&] { masked_fill(t, undefined, 1); }, "masked_fill"},
      {"mean(Tensor())", [&] { mean(undefined); }, "mean"},
      {"amax(Tensor(), 0)", [&] { amax(undefined, 0); }, "amax"},
      {"argmax(Tensor())", [&] { argmax(undefined); }, "argmax"},
      {"any(Tensor())", [&] { any(undefined); }, "any"},
      {"softmax(Tensor(), 0)", [&] { softmax(undefined, 0); }, "softmax"},
      {"cumsum(Tensor(), 0)", [&] { cumsum(undefined, 0); }, "cumsum"},
      {"var(Tensor())", [&] { var(undefined); }, "var"},
      {"norm(Tensor())", [&] { norm(undefined); }, "norm"},
      {"logsumexp(Tensor(), 0)", [&] { logsumexp(undefined, {0}); }, "logsumexp"},
      {"gelu(Tensor())", [&] { gelu(undefined); }, "gelu"},
      {"matmul(t, Tensor())", [&] { matmul(t, undefined); }, "matmul"},
      {"dot(Tensor(), t)", [&] { dot(undefined, t); }, "dot"},
      {"mv(m, Tensor())", [&] { mv(m, undefined); }, "mv"},
      {"linear(Tensor(), m)", [&] { linear(undefined, m); }, "linear"},
      {"linear(m, m, Tensor() bias) is no bias", [&] { linear(Tensor(), m, undefined); },
       "linear"},
      {"index_select(t, 0, Tensor())", [&] { index_select(t, 0, undefined); }, "index_select"},
      {"gather(Tensor(), 0, index)", [&] { gather(undefined, 0, tensor({0})); }, "gather"},
      {"Tensor().narrow(0, 0, 1)", [&] { undefined.narrow(0, 0, 1); }, "narrow"},
      {"Tensor().reshape({1})", [&] { undefined.reshape({1}); }, "reshape"},
      {"Tensor().expand({3})", [&] { undefined.expand({3}); }, "expand"},
      {"t.expand_as(Tensor())", [&] { t.expand_as(undefined); }, "expand_as"},
      {"Tensor().unsqueeze(0)", [&] { undefined.unsqueeze(0); }, "unsqueeze"},
      {"Tensor().squeeze()", [&] { undefined.squeeze(); }, "squeeze"},
      {"Tensor().t()", [&] { undefined.t(); }, "t"},
      {"Tensor().transpose(0, 1)", [&] { undefined.transpose(0, 1); }, "transpose"},
      {"Tensor().permute({0})", [&] { undefined.permute({0}); }, "permute"},
      {"Tensor().flatten()", [&] { undefined.flatten(); }, "flatten"},
      {"movedim(Tensor(), 0, 0)", [&] { movedim(undefined, 0, 0); }, "movedim"},
      {"triu(Tensor())", [&] { triu(undefined); }, "triu"},
      {"stack({Tensor()})", [&] { stack({undefined}); }, "stack"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

// Dims and indices at the ends of int64 (INT64_MIN cannot be wrapped by adding the rank).
TEST(BadCalls, DimsAndIndicesAtTheEndsOfInt64) {
  constexpr int64_t lowest = std::numeric_limits<int64_t>::min();
  const Tensor a = zeros({2, 3});
  const BadCall rows[] = {
      {"sum(a, INT64_MIN)", [&] { sum(a, lowest); }, "sum"},
      {"a.size(INT64_MIN)", [&] { a.size(lowest); }, "size"},
      {"a.stride(INT64_MAX)", [&] { a.stride(huge); }, "stride"},
      {"a.select(0, INT64_MIN)", [&] { a.select(0, lowest); }, "select"},
      {"a[INT64_MIN]", [&] { a[lowest]; }, "select"},
      {"a.select(INT64_MIN, 0)", [&] { a.select(lowest, 0); }, "select"},
      {"a.narrow(1, INT64_MIN, 1)", [&] { a.narrow(1, lowest, 1); }, "narrow"},
      {"a.narrow(1, 1, INT64_MIN)", [&] { a.narrow(1, 1, lowest); }, "narrow"},
      {"a.unsqueeze(INT64_MIN)", [&] { a.unsqueeze(lowest); }, "unsqueeze"},
      {"a.squeeze(INT64_MAX)", [&] { a.squeeze(huge); }, "squeeze"},
      {"a.transpose(INT64_MIN, 0)", [&] { a.transpose(lowest, 0); }, "transpose"},
      {"a.permute({INT64_MIN, 0})", [&] { a.permute({lowest, 0}); }, "permute"},
      {"a.flatten(INT64_MIN)", [&] { a.flatten(lowest); }, "flatten"},
      {"movedim(a, 0, INT64_MIN)", [&] { movedim(a, 0, lowest); }, "movedim"},
      {"softmax(a, INT64_MIN)", [&] { softmax(a, lowest); }, "softmax"},
      {"cumprod(a, INT64_MAX)", [&] { cumprod(a, huge); }, "cumprod"},
      {"argmin(a, INT64_MIN)", [&] { argmin(a, lowest); }, "argmin"},
      {"any(a, INT64_MIN)", [&] { any(a, lowest); }, "any"},
      {"all(a, INT64_MAX)", [&] { all(a, huge); }, "all"},
      {"cat({a, a}, INT64_MIN)", [&] { cat({a, a}, lowest); }, "cat"},
      {"stack({a, a}, INT64_MAX)", [&] { stack({a, a}, huge); }, "stack"},
      {"index_select(a, INT64_MIN, i)", [&] { index_select(a, lowest, tensor({0})); },
       "index_select"},
      {"index_select index INT64_MIN", [&] { index_select(a, 0, tensor({lowest})); },
       "index_select"},
      {"gather index INT64_MIN", [&] { gather(a, 1, tensor({{lowest}})); }, "gather"},
      {"a[tensor({INT64_MIN})]", [&] { a[tensor({lowest})]; }, "index_select"},
      {"expand({INT64_MIN, 3})", [&] { a.expand({lowest, 3}); }, "expand"},
      {"reshape({INT64_MIN, -1})", [&] { a.reshape({lowest, -1}); }, "reshape"},
      {"view({-1, INT64_MIN})", [&] { a.view({-1, lowest}); }, "view"},
      {"zeros({INT64_MIN})", [] { zeros({lowest}); }, "zeros"},
      {"randint(5, 5, {2})", [] { randint(5, 5, {2}); }, "randint"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
  // high - low overflows int64 here: refused naming the op, or every draw in range.
  const std::string message = error_of([&] {
    const Tensor draws = randint(lowest, huge, {64});
    for (int64_t i = 0; i < 64; ++i) EXPECT_LT(draws[i].item<int64_t>(), huge);
  });
  EXPECT_TRUE(message.empty() || message.rfind("randint: ", 0) == 0) << message;
}

// More dims than a tensor holds: the op the user called is named, not the shape container.
TEST(BadCalls, TooManyDims) {
  const std::vector<int64_t> seventeen(17, 1);
  const Tensor sixteen = zeros(std::vector<int64_t>(16, 1));
  const BadCall rows[] = {
      {"zeros of 17 dims", [&] { zeros(seventeen); }, "zeros"},
      {"ones of 17 dims", [&] { ones(seventeen); }, "ones"},
      {"rand of 17 dims", [&] { rand(seventeen); }, "rand"},
      {"unsqueeze a 16-d tensor", [&] { sixteen.unsqueeze(0); }, "unsqueeze"},
      {"from_blob of 17 dims",
       [&] {
         float value = 0;
         from_blob(&value, seventeen);
       },
       "from_blob"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

// Empty, 0-d and non-contiguous operands where the op needs something else.
TEST(BadCalls, EmptyZeroDimAndStridedOperands) {
  const Tensor empty = zeros({0}), scalar = zeros({}), strided = zeros({3, 4}).t();
  const BadCall rows[] = {
      {"amin of empty", [&] { amin(empty); }, "amin"},
      {"argmax of empty", [&] { argmax(empty); }, "argmax"},
      {"argmin of 2x0 along 1", [&] { argmin(zeros({2, 0}), 1); }, "argmin"},
      {"empty.item()", [&] { empty.item(); }, "item"},
      {"0-d t.transpose(0, 1)", [&] { scalar.transpose(0, 1); }, "transpose"},
      {"0-d narrow", [&] { scalar.narrow(0, 0, 1); }, "narrow"},
      {"0-d index_select", [&] { index_select(scalar, 1, tensor({0})); }, "index_select"},
      {"0-d cat", [&] { cat({scalar, scalar}); }, "cat"},
      {"0-d mm", [&] { mm(scalar, scalar); }, "mm"},
      {"0-d dot", [&] { dot(scalar, scalar); }, "dot"},
      {"0-d bmm", [&] { bmm(scalar, scalar); }, "bmm"},
      {"0-d triu", [&] { triu(scalar); }, "triu"},
      {"1-d tril", [&] { tril(zeros({3})); }, "tril"},
      {"strided view({12})", [&] { strided.view({12}); }, "view"},
      {"strided + (4)", [&] { strided + zeros({4}); }, "add"},
      {"strided.mm(strided)", [&] { strided.mm(strided); }, "mm"},
      {"expanded strided += 1", [&] { Tensor e = strided[0].unsqueeze(0).expand({2, 3}); e += 1; },
       "add_"},
      {"reshape empty to -1 with a 0", [&] { empty.reshape({0, -1}); }, "reshape"},
      {"gather with an int32 index", [&] { gather(zeros({2}), 0, zeros({2}, kInt32)); },
       "gather"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, Reductions) {
  const Tensor a = zeros({2, 3});
  const BadCall rows[] = {
      {"sum dim 2", [&] { sum(a, 2); }, "sum"},
      {"sum dim -3", [&] { a.sum(-3); }, "sum"},
      {"mean dim 5", [&] { mean(a, 5); }, "mean"},
      {"mean of ints", [&] { mean(zeros({3}, kInt64)); }, "mean"},
      {"amax dim 2", [&] { amax(a, 2); }, "amax"},
      {"argmax dim 9", [&] { argmax(a, 9); }, "argmax"},
      {"softmax dim 2", [&] { softmax(a, 2); }, "softmax"},
      {"log_softmax dim -3", [&] { log_softmax(a, -3); }, "log_softmax"},
      {"cumsum dim 2", [&] { cumsum(a, 2); }, "cumsum"},
      {"logsumexp dim 3", [&] { logsumexp(a, 3); }, "logsumexp"},
      {"amax of empty", [&] { amax(zeros({0}), 0); }, "amax"},
      {"sort dim 2", [&] { sort(a, 2); }, "sort"},
      {"argsort dim -3", [&] { a.argsort(-3); }, "argsort"},
      {"topk k 4 of 3", [&] { a.topk(4); }, "topk"},
      {"topk k -1", [&] { topk(a, -1, 0); }, "topk"},
      {"topk dim 2", [&] { a.topk(1, 2); }, "topk"},
      {"topk of bools", [&] { topk(a > 0, 1); }, "topk"},
      {"one_hot of floats", [&] { one_hot(a); }, "one_hot"},
      {"one_hot negative class", [&] { one_hot(tensor({1, -1}).to(kInt64)); }, "one_hot"},
      {"one_hot class 3 of 3", [&] { one_hot(tensor({0, 3}).to(kInt64), 3); }, "one_hot"},
      {"one_hot of empty, inferred", [&] { one_hot(zeros({0}, kInt64)); }, "one_hot"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, ViewsWithBadDims) {
  const Tensor a = zeros({2, 3});
  const BadCall rows[] = {
      {"narrow dim 2", [&] { a.narrow(2, 0, 1); }, "narrow"},
      {"narrow past the end", [&] { narrow(a, 1, 2, 2); }, "narrow"},
      {"narrow negative length", [&] { a.narrow(1, 0, -1); }, "narrow"},
      {"select index 3", [&] { a.select(1, 3); }, "select"},
      {"a[5]", [&] { a[5]; }, "select"},
      {"select of 0-d", [&] { zeros({}).select(0, 0); }, "select"},
      {"expand smaller rank", [&] { a.expand({3}); }, "expand"},
      {"expand mismatch", [&] { a.expand({4, 3}); }, "expand"},
      {"expand negative", [&] { a.expand({-2, 3}); }, "expand"},
      {"reshape wrong numel", [&] { a.reshape({4, 2}); }, "reshape"},
      {"reshape two -1", [&] { a.reshape({-1, -1}); }, "reshape"},
      {"view wrong numel", [&] { a.view({7}); }, "view"},
      {"view -2", [&] { a.view({-2, 3}); }, "view"},
      {"view of a transpose", [&] { a.t().view({6}); }, "view"},
      {"permute too few", [&] { a.permute({0}); }, "permute"},
      {"permute repeat", [&] { permute(a, {0, 0}); }, "permute"},
      {"transpose dim 2", [&] { a.transpose(0, 2); }, "transpose"},
      {"t of 3-d", [&] { zeros({2, 2, 2}).t(); }, "t"},
      {"squeeze dim 2", [&] { a.squeeze(2); }, "squeeze"},
      {"unsqueeze dim 4", [&] { a.unsqueeze(4); }, "unsqueeze"},
      {"movedim dim 3", [&] { movedim(a, 3, 0); }, "movedim"},
      {"flatten dims reversed", [&] { a.flatten(1, 0); }, "flatten"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

// Sizes whose products or sums overflow int64 must be refused, not wrapped.
TEST(BadCalls, OverflowingSizes) {
  const Tensor a = zeros({4}), m = zeros({2, 3});
  const BadCall rows[] = {
      {"narrow(0, 1, INT64_MAX)", [&] { a.narrow(0, 1, huge); }, "narrow"},
      {"narrow(0, 4, INT64_MAX)", [&] { narrow(a, 0, 4, huge); }, "narrow"},
      {"narrow(0, -1, INT64_MAX)", [&] { a.narrow(0, -1, huge); }, "narrow"},
      {"expand({INT64_MAX, 4})", [&] { a.expand({huge, 4}); }, "expand"},
      {"expand({2^32, 2^32, 4})", [&] { a.expand({int64_t{1} << 32, int64_t{1} << 32, 4}); },
       "expand"},
      {"expand({INT64_MAX, 2, 3})", [&] { m.expand({huge, 2, 3}); }, "expand"},
      {"reshape({-1, INT64_MAX, 2})", [&] { m.reshape({-1, huge, 2}); }, "reshape"},
      {"view({INT64_MAX, 2, -1})", [&] { m.view({huge, 2, -1}); }, "view"},
      {"view({2^62, 4})", [&] { m.view({int64_t{1} << 62, 4}); }, "view"},
      {"reshape of empty to huge", [&] { zeros({0}).reshape({huge, 2, 0}); }, "reshape"},
      {"zeros({INT64_MAX, 2})", [] { zeros({huge, 2}); }, "zeros"},
      {"ones({2^32, 2^32})", [] { ones({int64_t{1} << 32, int64_t{1} << 32}); }, "ones"},
      {"empty({INT64_MAX, 2})", [] { empty({huge, 2}); }, "empty"},
      {"full({INT64_MAX, 3}, 1)", [] { full({huge, 3}, 1.0); }, "full"},
      {"rand({INT64_MAX, 2})", [] { rand({huge, 2}); }, "rand"},
      {"randn({2^40, 2^40})", [] { randn({int64_t{1} << 40, int64_t{1} << 40}); }, "randn"},
      {"randint(5, {INT64_MAX, 2})", [] { randint(5, {huge, 2}); }, "randint"},
      {"arange(INT64_MAX)", [] { arange(huge); }, "arange"},
      {"arange(-2^62, 2^62)", [] { arange(-(int64_t{1} << 62), int64_t{1} << 62); }, "arange"},
      {"arange(0, 1, 1e-300)", [] { arange(0.0, 1.0, 1e-300); }, "arange"},
      {"column + row of 2^40 each", [] { column(int64_t{1} << 40) + row(int64_t{1} << 40); },
       "add"},
      {"where broadcast of 2^40 x 2^40",
       [] { where(column(int64_t{1} << 40, kBool), 1.0, row(int64_t{1} << 40)); }, "where"},
      {"mm of expanded 2^30 x 2^30",
       [] { mm(column(int64_t{1} << 30), row(int64_t{1} << 30)); }, "mm"},
      {"matmul of expanded 2^30 x 2^30",
       [] { matmul(column(int64_t{1} << 30), row(int64_t{1} << 30)); }, "matmul"},
      {"bmm of expanded 2^20 x 2^20 x 2^20",
       [] {
         bmm(zeros({1, 1, 1}).expand({int64_t{1} << 20, int64_t{1} << 20, 1}),
             zeros({1, 1, 1}).expand({int64_t{1} << 20, 1, int64_t{1} << 20}));
       },
       "bmm"},
      {"cat of expanded 2^47 three times",
       [] {
         const Tensor big = zeros({1}).expand({int64_t{1} << 47});
         cat({big, big, big});
       },
       "cat"},
      {"stack of expanded 2^47 three times",
       [] {
         const Tensor big = zeros({1}).expand({int64_t{1} << 47});
         stack({big, big, big});
       },
       "stack"},
      {"from_blob({INT64_MAX, 2})",
       [] {
         float data[4] = {};
         from_blob(data, {huge, 2});
       },
       "from_blob"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, NegativeSizes) {
  const BadCall rows[] = {
      {"zeros({-1})", [] { zeros({-1}); }, "zeros"},
      {"ones({2, -3})", [] { ones({2, -3}); }, "ones"},
      {"empty({-5})", [] { empty({-5}); }, "empty"},
      {"full({-2}, 3)", [] { full({-2}, 3); }, "full"},
      {"rand({-1})", [] { rand({-1}); }, "rand"},
      {"randn({3, -1})", [] { randn({3, -1}); }, "randn"},
      {"randint(0, 5, {-1})", [] { randint(0, 5, {-1}); }, "randint"},
      {"from_blob({-1})",
       [] {
         float data[1] = {};
         from_blob(data, {-1});
       },
       "from_blob"},
      {"arange(5, 0)", [] { arange(5, 0); }, "arange"},
      {"arange step 0", [] { arange(0, 5, 0); }, "arange"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, FromBlobNull) {
  const BadCall rows[] = {
      {"from_blob(nullptr, {3})", [] { from_blob(nullptr, {3}); }, "from_blob"},
      {"from_blob(nullptr, {2, 2}, kInt64)", [] { from_blob(nullptr, {2, 2}, kInt64); },
       "from_blob"},
      {"from_blob(nullptr, {}) (a 0-d tensor holds one element)", [] { from_blob(nullptr, {}); },
       "from_blob"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
  // Nothing to read: an empty shape over a null pointer is fine (as in LibTorch).
  EXPECT_EQ(from_blob(nullptr, {0}).numel(), 0);
  EXPECT_EQ(from_blob(nullptr, {3, 0}).sum().item<float>(), 0.0f);
}

TEST(BadCalls, Indexing) {
  const Tensor a = arange(6.0).view({2, 3});
  const Tensor index = tensor({0, 3});
  const BadCall rows[] = {
      {"index_select index 3", [&] { index_select(a, 1, index); }, "index_select"},
      {"index_select index -1", [&] { a.index_select(0, tensor({-1})); }, "index_select"},
      {"index_select float index", [&] { index_select(a, 0, tensor({0.0f})); }, "index_select"},
      {"index_select dim 2", [&] { index_select(a, 2, tensor({0})); }, "index_select"},
      {"index_select 2-d index", [&] { index_select(a, 0, zeros({1, 1}, kInt64)); },
       "index_select"},
      {"gather index 3", [&] { gather(a, 1, tensor({{0, 3}})); }, "gather"},
      {"gather index -1", [&] { a.gather(1, tensor({{-1}})); }, "gather"},
      {"gather float index", [&] { gather(a, 1, zeros({2, 1})); }, "gather"},
      {"gather rank mismatch", [&] { gather(a, 1, tensor({0})); }, "gather"},
      {"gather dim 2", [&] { gather(a, 2, zeros({2, 1}, kInt64)); }, "gather"},
      {"masked_fill float mask", [&] { masked_fill(a, zeros({2, 3}), 1.0); }, "masked_fill"},
      {"where float condition", [&] { where(zeros({2, 3}), a, a); }, "where"},
      {"item of 6 elements", [&] { a.item(); }, "item"},
      {"data_ptr wrong type", [&] { a.data_ptr<int64_t>(); }, "data_ptr"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, Linalg) {
  const Tensor m23 = zeros({2, 3}), m43 = zeros({4, 3}), v3 = zeros({3}), v4 = zeros({4});
  const BadCall rows[] = {
      {"mm inner mismatch", [&] { mm(m23, m43); }, "mm"},
      {"mm 1-d", [&] { m23.mm(v3); }, "mm"},
      {"matmul inner mismatch", [&] { matmul(m23, m43); }, "matmul"},
      {"matmul vector mismatch", [&] { v4.matmul(m23); }, "matmul"},
      {"matmul 0-d", [&] { matmul(zeros({}), m23); }, "matmul"},
      {"bmm 2-d", [&] { bmm(m23, m43); }, "bmm"},
      {"bmm batch mismatch", [&] { bmm(zeros({2, 2, 3}), zeros({3, 3, 2})); }, "bmm"},
      {"bmm inner mismatch", [&] { zeros({2, 2, 3}).bmm(zeros({2, 4, 2})); }, "bmm"},
      {"dot lengths", [&] { dot(v3, v4); }, "dot"},
      {"dot 2-d", [&] { v3.dot(m23); }, "dot"},
      {"dot dtypes", [&] { dot(v3, zeros({3}, kInt64)); }, "dot"},
      {"mv mismatch", [&] { mv(m23, v4); }, "mv"},
      {"linear weight mismatch", [&] { linear(m23, zeros({2, 4})); }, "linear"},
      {"linear bias mismatch", [&] { linear(m23, m43, v3); }, "linear"},
      {"mm dtypes", [&] { mm(m23, zeros({3, 2}, kFloat64)); }, "mm"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, CatAndStack) {
  const Tensor a = zeros({2, 3}), b = zeros({2, 4});
  const BadCall rows[] = {
      {"cat dim 0 mismatch", [&] { cat({a, b}); }, "cat"},
      {"cat dim 2", [&] { cat({a, a}, 2); }, "cat"},
      {"cat rank mismatch", [&] { cat({a, zeros({3})}, 0); }, "cat"},
      {"cat empty list", [] { cat({}); }, "cat"},
      {"stack shapes", [&] { stack({a, b}); }, "stack"},
      {"stack dim 4", [&] { stack({a, a}, 4); }, "stack"},
      {"stack empty list", [] { stack({}); }, "stack"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, Dtypes) {
  const Tensor f = zeros({3}), i = zeros({3}, kInt64), b = zeros({3}, kBool);
  const BadCall rows[] = {
      {"bool - bool", [&] { b - b; }, "sub"},
      {"-bool", [&] { -b; }, "neg"},
      {"int += float", [&] { Tensor c = i.clone(); c += f; }, "add_"},
      {"int *= 0.5", [&] { Tensor c = i.clone(); c *= 0.5; }, "mul_"},
      {"float & float", [&] { f & f; }, "bitwise_and"},
      {"rand of ints", [] { rand({2}, kInt64); }, "rand"},
      {"randn of bools", [] { randn({2}, kBool); }, "randn"},
      {"add alpha float on ints", [&] { add(i, i, 0.5); }, "add"},
      {"int % float-zero", [&] { i % 0; }, "remainder"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, WritesIntoExpandedViews) {
  const Tensor a = zeros({1, 3});
  const BadCall rows[] = {
      {"expanded += 1", [&] { Tensor e = a.expand({4, 3}); e += 1; }, "add_"},
      {"expanded.fill_", [&] { a.expand({4, 3}).fill_(2); }, "fill_"},
      {"expanded.copy_", [&] { a.expand({4, 3}).copy_(ones({4, 3})); }, "copy_"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

TEST(BadCalls, Devices) {
  const Tensor a = zeros({3});
  if (error_of([&] { a.to(kCUDA); }).empty())
    GTEST_SKIP() << "a CUDA device is present: to(kCUDA) succeeds";
  const BadCall rows[] = {
      {"to(kCUDA)", [&] { a.to(kCUDA); }, "to"},
      {"zeros on kCUDA", [] { zeros({3}, kCUDA); }, "zeros"},
      {"arange on kCUDA", [] { arange(3, kCUDA); }, "arange"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

}  // namespace

namespace {

// Every op of the pointwise op list (Note [Pointwise op list]), called the ways a user writes
// it, on an undefined tensor and on shapes that do not broadcast.
TEST(BadCalls, EveryPointwiseListOp) {
  const Tensor undefined, a = zeros({2, 3}), b = zeros({4});
  std::vector<BadCall> rows;
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost)                          \
  rows.push_back({#name "(Tensor())", [&] { name(undefined); }, #name});          \
  rows.push_back({"Tensor()." #name "()", [&] { undefined.name(); }, #name});
#define VMAP_BINARY_OP(name, Functor, domain)                                     \
  rows.push_back({#name "(a, b)", [&] { name(a, b); }, #name});                   \
  rows.push_back({"a." #name "(b)", [&] { a.name(b); }, #name});                  \
  rows.push_back({#name "(Tensor(), a)", [&] { name(undefined, a); }, #name});    \
  rows.push_back({#name "(a, Tensor())", [&] { name(a, undefined); }, #name});    \
  rows.push_back({#name "(Tensor(), 2)", [&] { name(undefined, 2); }, #name});
#include <vmap/detail/pointwise_ops.def>
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

// Ops composed of other ops name themselves, not the op they call first.
TEST(BadCalls, CompositeOpsNameThemselves) {
  const Tensor undefined, a = zeros({2, 3}), b = zeros({4}), i = zeros({2, 3}, kInt64);
  const Tensor mask = zeros({2, 3}, kBool);
  const BadCall rows[] = {
      {"clamp(Tensor())", [&] { clamp(undefined); }, "clamp"},
      {"clamp(Tensor(), 0, 1)", [&] { clamp(undefined, 0, 1); }, "clamp"},
      {"Tensor().clamp(0)", [&] { undefined.clamp(0); }, "clamp"},
      {"clamp(a, tensor min of shape (4))", [&] { clamp(a, b, std::nullopt); }, "clamp"},
      {"clamp(a, {}, tensor max of shape (4))", [&] { clamp(a, std::nullopt, b); }, "clamp"},
      {"clamp(Tensor(), tensor min)", [&] { clamp(undefined, a, a); }, "clamp"},
      {"clamp_min(Tensor(), 0)", [&] { clamp_min(undefined, 0); }, "clamp_min"},
      {"lerp(a, b, 0.5)", [&] { lerp(a, b, 0.5); }, "lerp"},
      {"lerp(a, a, b)", [&] { lerp(a, a, b); }, "lerp"},
      {"lerp(Tensor(), a, 0.5)", [&] { lerp(undefined, a, 0.5); }, "lerp"},
      {"lerp(a, Tensor(), 0.5)", [&] { lerp(a, undefined, 0.5); }, "lerp"},
      {"lerp(a, a, Tensor())", [&] { lerp(a, a, undefined); }, "lerp"},
      {"a.lerp(b, a)", [&] { a.lerp(b, a); }, "lerp"},
      {"lerp of ints", [&] { lerp(i, i, 0.5); }, "lerp"},
      {"masked_fill(Tensor(), mask, 1)", [&] { masked_fill(undefined, mask, 1); },
       "masked_fill"},
      {"masked_fill(Tensor(), mask, tensor(1))",
       [&] { masked_fill(undefined, mask, tensor(1.0f)); }, "masked_fill"},
      {"masked_fill(a, mask, Tensor())", [&] { masked_fill(a, mask, undefined); },
       "masked_fill"},
      {"masked_fill(a, mask, a) (value not 0-d)", [&] { a.masked_fill(mask, a); },
       "masked_fill"},
      {"masked_fill mask larger than self",
       [&] { masked_fill(zeros({3}), mask, 1); }, "masked_fill"},
      {"var dim 2", [&] { var(a, {2}, true); }, "var"},
      {"std dim -3", [&] { a.std({-3}, true); }, "std"},
      {"var(Tensor())", [&] { var(undefined); }, "var"},
      {"std(Tensor())", [&] { vmap::std(undefined); }, "std"},
      {"var of ints", [&] { var(i); }, "var"},
      {"std of ints, dim 0", [&] { vmap::std(i, {0}, true); }, "std"},
      {"norm dim 2", [&] { norm(a, 2, {2}); }, "norm"},
      {"norm inf dim 5", [&] { a.norm(std::numeric_limits<double>::infinity(), {5}); }, "norm"},
      {"norm 0 dim 5", [&] { a.norm(0, {5}); }, "norm"},
      {"norm 3 dim 5", [&] { a.norm(3, {5}); }, "norm"},
      {"norm of ints", [&] { norm(i); }, "norm"},
      {"logsumexp dim 2", [&] { logsumexp(a, {2}); }, "logsumexp"},
      {"logsumexp of undefined", [&] { undefined.logsumexp({0}); }, "logsumexp"},
      {"cumsum(Tensor(), 0)", [&] { undefined.cumsum(0); }, "cumsum"},
      {"cumprod dim -3", [&] { cumprod(a, -3); }, "cumprod"},
      {"div(a, b, \"floor\")", [&] { div(a, b, "floor"); }, "div"},
      {"div(a, b, \"trunc\")", [&] { div(a, b, "trunc"); }, "div"},
      {"div(a, a, \"round\")", [&] { div(a, a, "round"); }, "div"},
      {"div(Tensor(), a, \"trunc\")", [&] { div(undefined, a, "trunc"); }, "div"},
      {"div(i, 0, \"floor\")", [&] { div(i, 0, "floor"); }, "div"},
      {"div(i, 0, \"trunc\")", [&] { i.div(0, "trunc"); }, "div"},
      {"div(i, zeros, \"trunc\")", [&] { div(i, zeros({2, 3}, kInt64), "trunc"); }, "div"},
      {"gelu(a, \"fast\")", [&] { gelu(a, "fast"); }, "gelu"},
      {"gelu of ints", [&] { gelu(i); }, "gelu"},
      {"softplus(Tensor())", [&] { softplus(undefined); }, "softplus"},
      {"softplus of ints", [&] { softplus(i); }, "softplus"},
      {"softmax(Tensor(), 0)", [&] { undefined.softmax(0); }, "softmax"},
      {"log_softmax(Tensor(), 0)", [&] { log_softmax(undefined, 0); }, "log_softmax"},
      {"sign(Tensor())", [&] { sign(undefined); }, "sign"},
      {"logical_not(Tensor())", [&] { logical_not(undefined); }, "logical_not"},
      {"relu of bools", [&] { relu(mask); }, "relu"},
      {"pow(Tensor(), a)", [&] { pow(undefined, a); }, "pow"},
      {"pow(a, Tensor())", [&] { a.pow(undefined); }, "pow"},
      {"pow(2, b) fine, pow(a, b) shapes", [&] { pow(a, b); }, "pow"},
      {"pow of ints to -1", [&] { pow(i, -1); }, "pow"},
      {"sort(Tensor())", [&] { sort(undefined); }, "sort"},
      {"argsort(Tensor())", [&] { argsort(undefined); }, "argsort"},
      {"topk(Tensor(), 1)", [&] { topk(undefined, 1); }, "topk"},
      {"one_hot(Tensor())", [&] { one_hot(undefined); }, "one_hot"},
      {"allclose(Tensor(), a)", [&] { allclose(undefined, a); }, "allclose"},
      {"allclose(a, b)", [&] { allclose(a, b); }, "allclose"},
      {"equal(a, Tensor())", [&] { equal(a, undefined); }, "equal"},
      {"tensor ragged", [] { tensor({{1, 2}, {3}}); }, "tensor"},
      {"one_hot with INT64_MAX classes", [] { one_hot(tensor({0}).to(kInt64), huge); },
       "one_hot"},
      {"topk k INT64_MAX", [&] { topk(a, huge); }, "topk"},
      {"cumsum of 17 dims is fine, dim 17 is not", [&] { cumsum(a, 17); }, "cumsum"},
      {"softplus(a, beta 0) of ints", [&] { softplus(i, 0); }, "softplus"},
      {"norm(Tensor(), inf)", [&] { norm(undefined, std::numeric_limits<double>::infinity()); },
       "norm"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

// Number-first operators (`2 - t`) and the in-place forms.
TEST(BadCalls, NumberFirstAndInPlaceOperators) {
  const Tensor undefined, a = zeros({2, 3}), b = zeros({4}), i = zeros({3}, kInt64);
  const BadCall rows[] = {
      {"2 + Tensor()", [&] { 2 + undefined; }, "add"},
      {"2 - Tensor()", [&] { 2 - undefined; }, "sub"},
      {"2 * Tensor()", [&] { 2 * undefined; }, "mul"},
      {"2 / Tensor()", [&] { 2 / undefined; }, "div"},
      {"2 % Tensor()", [&] { 2 % undefined; }, "remainder"},
      {"2 < Tensor()", [&] { 2 < undefined; }, "lt"},
      {"2 <= Tensor()", [&] { 2 <= undefined; }, "le"},
      {"2 > Tensor()", [&] { 2 > undefined; }, "gt"},
      {"2 >= Tensor()", [&] { 2 >= undefined; }, "ge"},
      {"2 == Tensor()", [&] { 2 == undefined; }, "eq"},
      {"2 != Tensor()", [&] { 2 != undefined; }, "ne"},
      {"Tensor() & a", [&] { undefined & a; }, "bitwise_and"},
      {"a | b", [&] { (a > 0) | (b > 0); }, "bitwise_or"},
      {"a -= b", [&] { Tensor c = a.clone(); c -= b; }, "sub_"},
      {"a *= b", [&] { Tensor c = a.clone(); c *= b; }, "mul_"},
      {"a /= b", [&] { Tensor c = a.clone(); c /= b; }, "div_"},
      {"int /= 2", [&] { Tensor c = i.clone(); c /= 2; }, "div_"},
      {"Tensor() -= 1", [&] { Tensor u; u -= 1; }, "sub_"},
      {"Tensor() /= a", [&] { Tensor u; u /= a; }, "div_"},
      {"a += Tensor()", [&] { Tensor c = a.clone(); c += Tensor(); }, "add_"},
      {"a.fill_(non 0-d tensor)", [&] { a.clone().fill_(a); }, "fill_"},
      {"a.fill_(Tensor())", [&] { a.clone().fill_(undefined); }, "fill_"},
      {"a.copy_(b)", [&] { a.clone().copy_(b); }, "copy_"},
      {"slot = b", [&] { Tensor c = a.clone(); c[0] = b; }, "copy_"},
      {"slot = Tensor()", [&] { Tensor c = a.clone(); c[0] = undefined; }, "copy_"},
      {"int slot = 0.5 tensor", [&] { Tensor c = i.clone(); c += tensor({0.5f, 1.f, 2.f}); },
       "add_"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

// Results of more than 16 dims, from every op that can add dims.
TEST(BadCalls, ResultsOfMoreThanSixteenDims) {
  const std::vector<int64_t> seventeen(17, 1);
  const Tensor one = zeros({1}), sixteen = zeros(std::vector<int64_t>(16, 1));
  const BadCall rows[] = {
      {"reshape to 17-d", [&] { one.reshape(seventeen); }, "reshape"},
      {"view as 17-d", [&] { one.view(seventeen); }, "view"},
      {"expand to 17-d", [&] { one.expand(seventeen); }, "expand"},
      {"full of 17 dims", [&] { full(seventeen, 1); }, "full"},
      {"empty of 17 dims", [&] { vmap::empty(seventeen); }, "empty"},
      {"randn of 17 dims", [&] { randn(seventeen); }, "randn"},
      {"randint of 17 dims", [&] { randint(3, seventeen); }, "randint"},
      {"stack of 16-d", [&] { stack({sixteen, sixteen}); }, "stack"},
      {"one_hot of 16-d", [&] { one_hot(zeros(std::vector<int64_t>(16, 1), kInt64), 2); },
       "one_hot"},
      {"unsqueeze(-1) of 16-d", [&] { unsqueeze(sixteen, -1); }, "unsqueeze"},
      {"16-d.unsqueeze(16)", [&] { sixteen.unsqueeze(16); }, "unsqueeze"},
      {"permute 17 dims", [&] { one.permute({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}); },
       "permute"},
      {"movedim lists of 17", [&] { movedim(one, seventeen, seventeen); }, "movedim"},
      {"sum over 17 dims", [&] { sum(one, seventeen); }, "sum"},
      {"amax over 17 dims", [&] { amax(one, seventeen); }, "amax"},
      {"mean over 17 dims", [&] { mean(one, seventeen); }, "mean"},
      {"var over 17 dims", [&] { var(one, seventeen); }, "var"},
      {"logsumexp over 17 dims", [&] { logsumexp(one, seventeen); }, "logsumexp"},
      {"norm over 17 dims", [&] { norm(one, 2, seventeen); }, "norm"},
  };
  for (const BadCall& row : rows) expect_error_naming_op(row);
}

}  // namespace
