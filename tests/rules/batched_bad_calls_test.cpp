// The bad-call table of tests/runtime/bad_calls_test.cpp on the batched API (issue 18): each
// row is a call a user could write in a vmap loop body by mistake, as the loop runs it (per
// example, on Tensors) and as the rewrite runs it (vb:: on Values, for all examples at once).
// Both must throw vmap::Error whose message starts with the op the user called (Note [The op
// the user called] in vmap/types.hpp), never the op a rule is made of.
#include <vmap/batched.hpp>
#include <vmap/detail/parallel.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace vmap {
namespace {

namespace vb = vmap::batched;

constexpr int64_t examples = 3;

struct BadCall {
  const char* description;
  std::function<void(int64_t)> per_example;
  std::function<void(const vb::Value&)> batched;
  const char* op;
};

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

void expect_both_name_op(const BadCall& row) {
  SCOPED_TRACE(row.description);
  const std::string prefix = std::string(row.op) + ": ";
  const std::string as_written = error_of([&] {
    for (int64_t i = 0; i < examples; ++i) row.per_example(i);
  });
  EXPECT_EQ(as_written.rfind(prefix, 0), 0u) << "as written: '" << as_written << "'";
  const std::string rewritten = error_of([&] {
    vb::Level level(0, examples);
    row.batched(level.index());
  });
  EXPECT_EQ(rewritten.rfind(prefix, 0), 0u) << "rewritten: '" << rewritten << "'";
}

// Per-example operands: x[i] is [2, 3], y[i] is [4], k[i] an int64 [2, 3], m[i] a bool [2, 3].
struct Operands {
  Tensor x = arange(examples * 6, kFloat32).reshape({examples, 2, 3});
  Tensor y = ones({examples, 4});
  Tensor k = arange(examples * 6, kInt64).reshape({examples, 2, 3});
  Tensor m = zeros({examples, 2, 3}, kBool);
};

TEST(BatchedBadCalls, ShapesThatDoNotBroadcast) {
  const Operands o;
  const BadCall rows[] = {
      {"x[i] + y[i]", [&](int64_t i) { o.x[i] + o.y[i]; },
       [&](const vb::Value& i) { vb::at(o.x, i) + vb::at(o.y, i); }, "add"},
      {"x[i] - y[i]", [&](int64_t i) { o.x[i] - o.y[i]; },
       [&](const vb::Value& i) { vb::at(o.x, i) - vb::at(o.y, i); }, "sub"},
      {"x[i] * y[i]", [&](int64_t i) { o.x[i] * o.y[i]; },
       [&](const vb::Value& i) { vb::at(o.x, i) * vb::at(o.y, i); }, "mul"},
      {"maximum(x[i], y[i])", [&](int64_t i) { maximum(o.x[i], o.y[i]); },
       [&](const vb::Value& i) { vb::maximum(vb::at(o.x, i), vb::at(o.y, i)); }, "maximum"},
      {"pow(x[i], y[i])", [&](int64_t i) { pow(o.x[i], o.y[i]); },
       [&](const vb::Value& i) { vb::pow(vb::at(o.x, i), vb::at(o.y, i)); }, "pow"},
      {"where(m[i], x[i], y[i])", [&](int64_t i) { where(o.m[i], o.x[i], o.y[i]); },
       [&](const vb::Value& i) { vb::where(vb::at(o.m, i), vb::at(o.x, i), vb::at(o.y, i)); },
       "where"},
      {"lerp(x[i], y[i], 0.5)", [&](int64_t i) { lerp(o.x[i], o.y[i], 0.5); },
       [&](const vb::Value& i) { vb::lerp(vb::at(o.x, i), vb::at(o.y, i), 0.5); }, "lerp"},
      {"x[i].lerp(x[i], y[i])", [&](int64_t i) { o.x[i].lerp(o.x[i], o.y[i]); },
       [&](const vb::Value& i) { vb::at(o.x, i).lerp(vb::at(o.x, i), vb::at(o.y, i)); }, "lerp"},
      {"clamp(x[i], y[i])", [&](int64_t i) { clamp(o.x[i], o.y[i]); },
       [&](const vb::Value& i) { vb::clamp(vb::at(o.x, i), vb::at(o.y, i)); }, "clamp"},
      {"masked_fill(y[i], m[i], 0)", [&](int64_t i) { masked_fill(o.y[i], o.m[i], 0); },
       [&](const vb::Value& i) { vb::masked_fill(vb::at(o.y, i), vb::at(o.m, i), 0); },
       "masked_fill"},
      {"div(x[i], y[i], \"floor\")", [&](int64_t i) { div(o.x[i], o.y[i], "floor"); },
       [&](const vb::Value& i) { vb::div(vb::at(o.x, i), vb::at(o.y, i), "floor"); }, "div"},
      // pointwise chains the batched API defers and fuses (Note [Fused regions])
      {"(x[i] * 2).tanh() + y[i]", [&](int64_t i) { (o.x[i] * 2).tanh() + o.y[i]; },
       [&](const vb::Value& i) { (vb::at(o.x, i) * 2).tanh() + vb::at(o.y, i); }, "add"},
      {"x[i].sigmoid() * y[i].exp()", [&](int64_t i) { o.x[i].sigmoid() * o.y[i].exp(); },
       [&](const vb::Value& i) { vb::at(o.x, i).sigmoid() * vb::at(o.y, i).exp(); }, "mul"},
      {"out[i] = (x[i] - 1).abs() * y[i]",
       [&](int64_t i) { Tensor c = o.x.clone(); c[i] = (o.x[i] - 1).abs() * o.y[i]; },
       [&](const vb::Value& i) {
         Tensor c = o.x.clone();
         vb::at(c, i) = (vb::at(o.x, i) - 1).abs() * vb::at(o.y, i);
       },
       "mul"},
      {"out[i] += y[i]", [&](int64_t i) { Tensor c = o.x.clone(); c[i] += o.y[i]; },
       [&](const vb::Value& i) { Tensor c = o.x.clone(); vb::at(c, i) += vb::at(o.y, i); },
       "add_"},
      {"out[i] = y[i]", [&](int64_t i) { Tensor c = o.x.clone(); c[i] = o.y[i]; },
       [&](const vb::Value& i) { Tensor c = o.x.clone(); vb::at(c, i) = vb::at(o.y, i); },
       "copy_"},
  };
  for (const BadCall& row : rows) expect_both_name_op(row);
}

TEST(BatchedBadCalls, DimsOutOfRange) {
  const Operands o;
  const BadCall rows[] = {
      {"x[i].sum(2)", [&](int64_t i) { o.x[i].sum(2); },
       [&](const vb::Value& i) { vb::at(o.x, i).sum(2); }, "sum"},
      {"x[i].mean(-3)", [&](int64_t i) { o.x[i].mean(-3); },
       [&](const vb::Value& i) { vb::at(o.x, i).mean(-3); }, "mean"},
      {"x[i].amax(5)", [&](int64_t i) { o.x[i].amax(5); },
       [&](const vb::Value& i) { vb::at(o.x, i).amax(5); }, "amax"},
      {"x[i].argmax(2)", [&](int64_t i) { o.x[i].argmax(2); },
       [&](const vb::Value& i) { vb::at(o.x, i).argmax(2); }, "argmax"},
      {"softmax(x[i], 2)", [&](int64_t i) { softmax(o.x[i], 2); },
       [&](const vb::Value& i) { vb::softmax(vb::at(o.x, i), 2); }, "softmax"},
      {"x[i].cumsum(-3)", [&](int64_t i) { o.x[i].cumsum(-3); },
       [&](const vb::Value& i) { vb::at(o.x, i).cumsum(-3); }, "cumsum"},
      {"x[i].var({2})", [&](int64_t i) { o.x[i].var({2}, true); },
       [&](const vb::Value& i) { vb::at(o.x, i).var({2}, true); }, "var"},
      {"x[i].std({-3})", [&](int64_t i) { o.x[i].std({-3}, true); },
       [&](const vb::Value& i) { vb::at(o.x, i).std({-3}, true); }, "std"},
      {"x[i].norm(2, {2})", [&](int64_t i) { o.x[i].norm(2, {2}); },
       [&](const vb::Value& i) { vb::at(o.x, i).norm(2, {2}); }, "norm"},
      {"logsumexp(x[i], {2})", [&](int64_t i) { logsumexp(o.x[i], {2}); },
       [&](const vb::Value& i) { vb::logsumexp(vb::at(o.x, i), {2}); }, "logsumexp"},
      {"x[i].narrow(2, 0, 1)", [&](int64_t i) { o.x[i].narrow(2, 0, 1); },
       [&](const vb::Value& i) { vb::at(o.x, i).narrow(2, 0, 1); }, "narrow"},
      {"x[i].transpose(0, 2)", [&](int64_t i) { o.x[i].transpose(0, 2); },
       [&](const vb::Value& i) { vb::at(o.x, i).transpose(0, 2); }, "transpose"},
      {"x[i].unsqueeze(4)", [&](int64_t i) { o.x[i].unsqueeze(4); },
       [&](const vb::Value& i) { vb::at(o.x, i).unsqueeze(4); }, "unsqueeze"},
      {"x[i].squeeze(2)", [&](int64_t i) { o.x[i].squeeze(2); },
       [&](const vb::Value& i) { vb::at(o.x, i).squeeze(2); }, "squeeze"},
      {"x[i].permute({0, 0})", [&](int64_t i) { o.x[i].permute({0, 0}); },
       [&](const vb::Value& i) { vb::at(o.x, i).permute({0, 0}); }, "permute"},
      {"x[i].flatten(1, 0)", [&](int64_t i) { o.x[i].flatten(1, 0); },
       [&](const vb::Value& i) { vb::at(o.x, i).flatten(1, 0); }, "flatten"},
      {"movedim(x[i], 3, 0)", [&](int64_t i) { movedim(o.x[i], 3, 0); },
       [&](const vb::Value& i) { vb::movedim(vb::at(o.x, i), 3, 0); }, "movedim"},
      {"cat({x[i], x[i]}, 2)", [&](int64_t i) { cat({o.x[i], o.x[i]}, 2); },
       [&](const vb::Value& i) { vb::cat({vb::at(o.x, i), vb::at(o.x, i)}, 2); }, "cat"},
      {"stack({x[i], x[i]}, 4)", [&](int64_t i) { stack({o.x[i], o.x[i]}, 4); },
       [&](const vb::Value& i) { vb::stack({vb::at(o.x, i), vb::at(o.x, i)}, 4); }, "stack"},
      {"x[i].topk(1, 2)", [&](int64_t i) { o.x[i].topk(1, 2); },
       [&](const vb::Value& i) { vb::at(o.x, i).topk(1, 2); }, "topk"},
      {"x[i].sort(2)", [&](int64_t i) { o.x[i].sort(2); },
       [&](const vb::Value& i) { vb::at(o.x, i).sort(2); }, "sort"},
  };
  for (const BadCall& row : rows) expect_both_name_op(row);
}

// Note [Errors in per-example shapes]: a shape error in a batched call reads as the loop's,
// with one example's shapes, not the batch's.
TEST(BatchedBadCalls, ShapeErrorsNameOneExamplesShapes) {
  const Operands o;
  const BadCall rows[] = {
      {"matmul(x[i], y[i])", [&](int64_t i) { matmul(o.x[i], o.y[i]); },
       [&](const vb::Value& i) { vb::matmul(vb::at(o.x, i), vb::at(o.y, i)); }, "matmul"},
      {"mm(x[i], x[i])", [&](int64_t i) { mm(o.x[i], o.x[i]); },
       [&](const vb::Value& i) { vb::mm(vb::at(o.x, i), vb::at(o.x, i)); }, "mm"},
      {"x[i] + y[i]", [&](int64_t i) { o.x[i] + o.y[i]; },
       [&](const vb::Value& i) { vb::at(o.x, i) + vb::at(o.y, i); }, "add"},
      {"cat({x[i], y[i]})", [&](int64_t i) { cat({o.x[i], o.y[i]}); },
       [&](const vb::Value& i) { vb::cat({vb::at(o.x, i), vb::at(o.y, i)}); }, "cat"},
  };
  for (const BadCall& row : rows) {
    SCOPED_TRACE(row.description);
    const std::string as_written = error_of([&] { row.per_example(0); });
    ASSERT_EQ(as_written.rfind(std::string(row.op) + ": ", 0), 0u) << as_written;
    const std::string rewritten = error_of([&] {
      vb::Level level(0, examples);
      row.batched(level.index());
    });
    EXPECT_EQ(rewritten, as_written);
  }
}

// Note [Errors name the statement]: an error raised in a statement clang-vmap marked
// (`vb::profile_line();` in front of it, here at this file's line) names that line, on the
// loop's thread and on parallel_for_each's; outside a rewritten loop, and once it has ended,
// messages are as the loop as written raises them.
TEST(BatchedBadCalls, ErrorsNameTheStatementsLine) {
  const Operands o;
  const std::string as_written = error_of([&] { matmul(o.x[0], o.y[0]); });
  unsigned line = 0;
  const std::string rewritten = error_of([&] {
    vb::Level level(0, examples);
    // clang-format off
    line = __LINE__ + 1;
    vb::profile_line(); vb::matmul(vb::at(o.x, level.index()), vb::at(o.y, level.index()));
    // clang-format on
  });
  const std::string at_line = std::string(__FILE__) + ":" + std::to_string(line) + ": ";
  EXPECT_EQ(rewritten, at_line + as_written);
  EXPECT_EQ(error_of([&] { matmul(o.x[0], o.y[0]); }), as_written);

  const std::string on_threads = error_of([&] {
    vb::Level level(0, examples);
    // clang-format off
    line = __LINE__ + 1;
    vb::profile_line(); detail::parallel_for_each(64, detail::parallel_grain, [](int64_t k) {
      if (k == 63) throw Error("item 63");
    });
    // clang-format on
  });
  EXPECT_EQ(on_threads, std::string(__FILE__) + ":" + std::to_string(line) + ": item 63");
}

TEST(BatchedBadCalls, ShapesIndicesAndSizes) {
  const Operands o;
  const std::vector<int64_t> seventeen(17, 1);
  const BadCall rows[] = {
      {"x[i][5]", [&](int64_t i) { o.x[i][5]; },
       [&](const vb::Value& i) { vb::at(o.x, i)[5]; }, "select"},
      {"x[i].select(1, 3)", [&](int64_t i) { o.x[i].select(1, 3); },
       [&](const vb::Value& i) { vb::at(o.x, i).select(1, 3); }, "select"},
      {"x[i].narrow(1, 2, 2)", [&](int64_t i) { o.x[i].narrow(1, 2, 2); },
       [&](const vb::Value& i) { vb::at(o.x, i).narrow(1, 2, 2); }, "narrow"},
      {"x[i].reshape({4, 2})", [&](int64_t i) { o.x[i].reshape({4, 2}); },
       [&](const vb::Value& i) { vb::at(o.x, i).reshape({4, 2}); }, "reshape"},
      {"x[i].view({7})", [&](int64_t i) { o.x[i].view({7}); },
       [&](const vb::Value& i) { vb::at(o.x, i).view({7}); }, "view"},
      {"x[i].reshape(17 dims)", [&](int64_t i) { o.y[i].reshape(seventeen); },
       [&](const vb::Value& i) { vb::at(o.y, i).reshape(seventeen); }, "reshape"},
      {"x[i].expand({4, 3})", [&](int64_t i) { o.x[i].expand({4, 3}); },
       [&](const vb::Value& i) { vb::at(o.x, i).expand({4, 3}); }, "expand"},
      {"x[i].expand({INT64_MAX, 2, 3})",
       [&](int64_t i) { o.x[i].expand({std::numeric_limits<int64_t>::max(), 2, 3}); },
       [&](const vb::Value& i) {
         vb::at(o.x, i).expand({std::numeric_limits<int64_t>::max(), 2, 3});
       },
       "expand"},
      {"index_select(x[i], 1, {0, 3})",
       [&](int64_t i) { index_select(o.x[i], 1, tensor({0, 3})); },
       [&](const vb::Value& i) { vb::index_select(vb::at(o.x, i), 1, tensor({0, 3})); },
       "index_select"},
      {"gather(x[i], 1, {{0, 3}})", [&](int64_t i) { gather(o.x[i], 1, tensor({{0, 3}})); },
       [&](const vb::Value& i) { vb::gather(vb::at(o.x, i), 1, tensor({{0, 3}})); }, "gather"},
      {"mm(x[i], x[i])", [&](int64_t i) { mm(o.x[i], o.x[i]); },
       [&](const vb::Value& i) { vb::mm(vb::at(o.x, i), vb::at(o.x, i)); }, "mm"},
      {"matmul(x[i], y[i])", [&](int64_t i) { matmul(o.x[i], o.y[i]); },
       [&](const vb::Value& i) { vb::matmul(vb::at(o.x, i), vb::at(o.y, i)); }, "matmul"},
      {"mv(x[i], y[i])", [&](int64_t i) { mv(o.x[i], o.y[i]); },
       [&](const vb::Value& i) { vb::mv(vb::at(o.x, i), vb::at(o.y, i)); }, "mv"},
      {"dot(y[i], x[i][0])", [&](int64_t i) { dot(o.y[i], o.x[i][0]); },
       [&](const vb::Value& i) { vb::dot(vb::at(o.y, i), vb::at(o.x, i)[0]); }, "dot"},
      {"linear(x[i], y[i] as weight)", [&](int64_t i) { linear(o.x[i], o.y[i].view({2, 2})); },
       [&](const vb::Value& i) { vb::linear(vb::at(o.x, i), vb::at(o.y, i).view({2, 2})); },
       "linear"},
      {"cat({x[i], y[i]})", [&](int64_t i) { cat({o.x[i], o.y[i]}); },
       [&](const vb::Value& i) { vb::cat({vb::at(o.x, i), vb::at(o.y, i)}); }, "cat"},
      {"stack({x[i], y[i]})", [&](int64_t i) { stack({o.x[i], o.y[i]}); },
       [&](const vb::Value& i) { vb::stack({vb::at(o.x, i), vb::at(o.y, i)}); }, "stack"},
      {"x[i].topk(4)", [&](int64_t i) { o.x[i].topk(4); },
       [&](const vb::Value& i) { vb::at(o.x, i).topk(4); }, "topk"},
      {"x[i].item()", [&](int64_t i) { o.x[i].item<float>(); },
       [&](const vb::Value& i) { vb::at(o.x, i).item<float>(); }, "item"},
      // issue 31: the second example's 6e10 does not fit an int (LibTorch's checked item)
      {"(x[i][0][0] * 1e10).item<int>()", [&](int64_t i) { (o.x[i][0][0] * 1e10).item<int>(); },
       [&](const vb::Value& i) { (vb::at(o.x, i)[0][0] * 1e10).item<int>(); }, "item"},
  };
  for (const BadCall& row : rows) expect_both_name_op(row);
}

TEST(BatchedBadCalls, Dtypes) {
  const Operands o;
  const BadCall rows[] = {
      {"m[i] - m[i]", [&](int64_t i) { o.m[i] - o.m[i]; },
       [&](const vb::Value& i) { vb::at(o.m, i) - vb::at(o.m, i); }, "sub"},
      {"-m[i]", [&](int64_t i) { -o.m[i]; }, [&](const vb::Value& i) { -vb::at(o.m, i); },
       "neg"},
      {"k[i].mean()", [&](int64_t i) { o.k[i].mean(); },
       [&](const vb::Value& i) { vb::at(o.k, i).mean(); }, "mean"},
      {"k[i].var()", [&](int64_t i) { o.k[i].var(); },
       [&](const vb::Value& i) { vb::at(o.k, i).var(); }, "var"},
      {"lerp(k[i], k[i], 0.5)", [&](int64_t i) { lerp(o.k[i], o.k[i], 0.5); },
       [&](const vb::Value& i) { vb::lerp(vb::at(o.k, i), vb::at(o.k, i), 0.5); }, "lerp"},
      {"softplus(k[i])", [&](int64_t i) { softplus(o.k[i]); },
       [&](const vb::Value& i) { vb::softplus(vb::at(o.k, i)); }, "softplus"},
      {"one_hot(x[i])", [&](int64_t i) { one_hot(o.x[i]); },
       [&](const vb::Value& i) { vb::one_hot(vb::at(o.x, i)); }, "one_hot"},
      {"masked_fill(x[i], x[i], 0)", [&](int64_t i) { masked_fill(o.x[i], o.x[i], 0); },
       [&](const vb::Value& i) { vb::masked_fill(vb::at(o.x, i), vb::at(o.x, i), 0); },
       "masked_fill"},
      {"where(x[i], x[i], x[i])", [&](int64_t i) { where(o.x[i], o.x[i], o.x[i]); },
       [&](const vb::Value& i) { vb::where(vb::at(o.x, i), vb::at(o.x, i), vb::at(o.x, i)); },
       "where"},
      {"k[i] *= 0.5", [&](int64_t i) { Tensor c = o.k.clone(); c[i] *= 0.5; },
       [&](const vb::Value& i) { Tensor c = o.k.clone(); vb::at(c, i) *= 0.5; }, "mul_"},
      {"div(k[i], 0, \"trunc\")", [&](int64_t i) { div(o.k[i], 0, "trunc"); },
       [&](const vb::Value& i) { vb::div(vb::at(o.k, i), 0, "trunc"); }, "div"},
      {"index_select(x[i], 0, float index)",
       [&](int64_t i) { index_select(o.x[i], 0, tensor({0.0f})); },
       [&](const vb::Value& i) { vb::index_select(vb::at(o.x, i), 0, tensor({0.0f})); },
       "index_select"},
  };
  for (const BadCall& row : rows) expect_both_name_op(row);
}

}  // namespace
}  // namespace vmap
