// The op table covers SPEC section 4, and is usable without the runtime (this file links
// only the header-only vmap::op_table target).
#include <vmap/rules/op_table.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

namespace {

using vmap::rules::kOpTable;
using vmap::rules::OpForm;

// Every op name of SPEC section 4 (Tensor members, operators, free functions, factories,
// checks), as the user spells it.
constexpr std::string_view kSpecMembers[] = {
    "dim",           "size",       "sizes",        "numel",      "dtype",      "device",
    "is_contiguous", "contiguous", "clone",        "to",         "item",       "data_ptr",
    "operator[]",    "select",     "index_select", "gather",     "unsqueeze",  "squeeze",
    "expand",        "reshape",    "view",         "transpose",  "t",          "permute",
    "flatten",       "sum",        "mean",         "amax",       "amin",       "argmax",
    "matmul",        "sqrt",       "exp",          "log",        "abs",        "neg",
    "relu",          "sigmoid",    "tanh",         "pow",        "clamp",      "copy_",
    "fill_",         "zero_",      "operator+=",   "operator-=", "operator*=", "operator/=",
    "narrow",        "any",        "all",          "sign"};
constexpr std::string_view kSpecBinaryOperators[] = {
    "operator+", "operator-",  "operator*",  "operator/",  "operator<", "operator<=",
    "operator>", "operator>=", "operator==", "operator!=", "operator&", "operator|"};
constexpr std::string_view kSpecUnaryOperators[] = {"operator-", "operator!"};
constexpr std::string_view kSpecFreeFunctions[] = {
    "add", "sub", "mul", "div", "neg", "abs", "sqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid",
    "relu", "pow", "maximum", "minimum", "where", "clamp", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_not", "sum", "mean", "amax", "amin", "argmax", "argmin",
    "matmul", "mm", "mv", "bmm", "dot", "linear", "gather", "index_select", "softmax",
    "log_softmax", "cat", "stack", "unsqueeze", "squeeze", "expand", "reshape", "transpose",
    "permute", "movedim", "flatten", "triu", "tril", "zeros_like", "ones_like", "full_like",
    "narrow", "empty_like", "any", "all", "sign",
    // factories
    "zeros", "ones", "full", "empty", "arange", "rand", "randn", "randint", "tensor", "from_blob",
    "manual_seed",
    // checks
    "allclose", "equal"};

// Members the runtime has beyond SPEC's list, where LibTorch has them as members too: users
// write `a.add(b)`, `x.mm(w)` as often as the free forms.
constexpr std::string_view kLibTorchMembers[] = {
    "add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_not", "sin", "cos", "mm", "mv", "bmm", "dot",
    "expand_as", "movedim", "triu", "tril", "softmax", "log_softmax", "scalar_type"};

// SPEC section 6's runtime ops, with a member and a free form each (LibTorch has both).
constexpr std::string_view kSpec6Ops[] = {
    "remainder", "fmod",   "floor_divide", "floor", "ceil",        "round",     "trunc",
    "frac",      "rsqrt",  "reciprocal",   "square", "log1p",      "expm1",     "log2",
    "exp2",      "erf",    "erfc",         "silu",  "atan2",       "clamp_min", "clamp_max",
    "var",       "std",    "norm",         "cumsum", "cumprod",    "masked_fill", "lerp",
    "hypot",     "topk",   "sort",         "argsort",
    "logsumexp"};

bool has(std::string_view name, OpForm form) {
  return vmap::rules::find_op(name, form) != vmap::rules::kNoOp;
}

TEST(OpTable, EverySpecMemberHasAnEntry) {
  for (std::string_view name : kSpecMembers)
    EXPECT_TRUE(has(name, OpForm::member) || has(name, OpForm::inplace_member) ||
                has(name, OpForm::compound_assign))
        << "SPEC member " << name << " has no op-table entry";
}

TEST(OpTable, EveryLibTorchMemberOfTheRuntimeHasAnEntry) {
  for (std::string_view name : kLibTorchMembers)
    EXPECT_TRUE(has(name, OpForm::member)) << "member " << name << " has no op-table entry";
}

TEST(OpTable, EverySpecOperatorHasAnEntry) {
  for (std::string_view name : kSpecBinaryOperators)
    EXPECT_TRUE(has(name, OpForm::binary_operator)) << name;
  for (std::string_view name : kSpecUnaryOperators)
    EXPECT_TRUE(has(name, OpForm::unary_operator)) << name;
  EXPECT_TRUE(has("operator<<", OpForm::binary_operator));
}

TEST(OpTable, EverySpec6OpHasAMemberAndAFreeEntry) {
  for (std::string_view name : kSpec6Ops) {
    EXPECT_TRUE(has(name, OpForm::member)) << "SPEC section 6 member " << name;
    EXPECT_TRUE(has(name, OpForm::free_function)) << "SPEC section 6 function " << name;
  }
}

// SPEC section 6's ops that LibTorch has as free functions only (gelu, softplus, one_hot), and
// div's rounding_mode form.
TEST(OpTable, Spec6FreeOnlyOpsAndDivRoundingMode) {
  using vmap::rules::find_op;
  using vmap::rules::kNoOp;
  EXPECT_NE(find_op("gelu", OpForm::free_function, 2), kNoOp);
  EXPECT_NE(find_op("softplus", OpForm::free_function, 3), kNoOp);
  EXPECT_NE(find_op("one_hot", OpForm::free_function, 2), kNoOp);
  EXPECT_NE(find_op("div", OpForm::free_function, 3), kNoOp);
  EXPECT_NE(find_op("div", OpForm::member, 3), kNoOp);
  EXPECT_NE(find_op("operator%", OpForm::binary_operator), kNoOp);
}

// The tool's questions answered from the table (transform/ asks these, not name lists).
TEST(OpTable, AnswersTheToolsQuestions) {
  using namespace vmap::rules;
  for (std::string_view view : {"select", "narrow", "reshape", "expand_as", "movedim", "t"})
    EXPECT_TRUE(is_view_member(view)) << view;
  for (std::string_view not_view : {"sum", "clone", "cumsum", "zeros"})
    EXPECT_FALSE(is_view_member(not_view)) << not_view;
  for (std::string_view writer : {"copy_", "fill_", "zero_", "operator+=", "operator/="})
    EXPECT_TRUE(writes_object(writer)) << writer;
  EXPECT_FALSE(writes_object("add"));
  for (std::string_view factory : {"zeros", "arange", "tensor", "full_like", "rand", "randint"})
    EXPECT_TRUE(is_factory(factory)) << factory;
  EXPECT_FALSE(is_factory("sum"));
  for (std::string_view random : {"rand", "randn", "randint", "rand_like", "randn_like", "bernoulli", "manual_seed"})
    EXPECT_TRUE(is_random_factory(random)) << random;
  EXPECT_FALSE(is_random_factory("zeros"));
  EXPECT_TRUE(is_index_argument_of_member("select", 1));   // x.select(d, i): i
  EXPECT_TRUE(is_index_argument_of_member("narrow", 1));   // x.narrow(d, start, n): start
  EXPECT_FALSE(is_index_argument_of_member("select", 0));  // the dim
  EXPECT_FALSE(is_index_argument_of_member("narrow", 2));  // the length
  EXPECT_FALSE(is_index_argument_of_member("index_select", 1));
}

TEST(OpTable, EverySpecFreeFunctionHasAnEntry) {
  for (std::string_view name : kSpecFreeFunctions)
    EXPECT_TRUE(has(name, OpForm::free_function)) << "SPEC function " << name << " has no entry";
}

TEST(OpTable, EntriesAreUniqueAndWellFormed) {
  std::set<std::string> seen;
  for (const auto& entry : kOpTable) {
    std::string key = std::string(entry.name) + "/" + std::to_string(int(entry.form)) + "/";
    for (std::size_t i = 0; i < entry.arity; ++i) key += std::to_string(int(entry.params[i]));
    EXPECT_TRUE(seen.insert(key).second) << "duplicate entry " << key;
    EXPECT_LE(entry.required, entry.arity) << entry.name;
    if (entry.is_member_like()) {
      EXPECT_GE(entry.arity, 1) << entry.name;
    }
  }
}

TEST(OpTable, LookupDistinguishesOverloads) {
  using vmap::rules::ArgKind;
  using vmap::rules::RuleId;
  const auto sum_dim = vmap::rules::find_op("sum", OpForm::member,
                                            {ArgKind::tensor, ArgKind::dim, ArgKind::keepdim});
  const auto sum_dims = vmap::rules::find_op(
      "sum", OpForm::member, {ArgKind::tensor, ArgKind::dim_list, ArgKind::keepdim});
  ASSERT_NE(sum_dim, vmap::rules::kNoOp);
  ASSERT_NE(sum_dims, vmap::rules::kNoOp);
  EXPECT_EQ(kOpTable[sum_dim].rule, RuleId::reduce_dim);
  EXPECT_EQ(kOpTable[sum_dims].rule, RuleId::reduce_dims);
  EXPECT_EQ(kOpTable[vmap::rules::find_op("sum", OpForm::member, 1)].rule, RuleId::reduce_all);
  EXPECT_EQ(vmap::rules::find_op("no_such_op", OpForm::free_function), vmap::rules::kNoOp);
  static_assert(vmap::rules::find_op("index_select", OpForm::member) != vmap::rules::kNoOp);
}

}  // namespace

// Note [Every entry has every layer] (generate_op_table_checks.cpp): LibTorch's peer. Each
// op name of the table is called in a peer program (tests/peer, run against LibTorch 1.13
// where installed), as `.name(`, `name(` or `name<`; the pointwise-list ops through the
// list itself, which peer/pointwise.cpp includes. Operators are checked by their programs,
// refused ops have nothing to compare.
TEST(OpTable, PeerProgramsCallEveryOp) {
  std::string peer_sources;
  for (const auto& file : std::filesystem::directory_iterator(VMAP_PEER_DIR)) {
    if (file.path().extension() != ".cpp") continue;
    std::ifstream in(file.path());
    std::ostringstream text;
    text << in.rdbuf();
    peer_sources += text.str();
  }
  ASSERT_FALSE(peer_sources.empty()) << VMAP_PEER_DIR;
  std::set<std::string_view> list_ops;
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) list_ops.insert(#name);
#define VMAP_BINARY_OP(name, Functor, domain) list_ops.insert(#name);
#include <vmap/detail/pointwise_ops.def>
  EXPECT_NE(peer_sources.find("pointwise_ops.def"), std::string::npos);
  for (const auto& entry : kOpTable) {
    const bool is_operator = entry.name.starts_with("operator");
    if (is_operator || entry.rule == vmap::rules::RuleId::refused || list_ops.contains(entry.name))
      continue;
    const std::regex call("[^A-Za-z0-9_]" + std::string(entry.name) + " *[(<]");
    EXPECT_TRUE(std::regex_search(peer_sources, call))
        << entry.name << ": no peer program calls it (tests/peer)";
  }
}
