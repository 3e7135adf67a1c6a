// The batching-rule property test: for every op-table entry, random per-example arguments;
// every tensor argument batched at dim 0, at its last dim, or not at all, in every
// combination; the batched result must equal the stack of per-example results (exact for
// integers and bools), and the rule must raise vmap::Error exactly when an example does.
//
// Arguments are generated from the entry's RuleId and ArgKinds only, so an op added with an
// existing rule is covered without touching this file.
#include "rules_test_util.hpp"

#include <vmap/rules/rules.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace vmap::rules {
namespace {

using test::Rng;

constexpr int kTrials = 16;

// Everything one example passes: argument i of example b is examples[b][i].
struct Case {
  std::vector<std::vector<Arg>> examples;
};

struct Generator {
  Rng& rng;
  const OpEntry& entry;
  std::size_t op;

  // The shared per-example shape of the main tensor, and facts other positions need.
  std::vector<int64_t> shape;
  Dtype dtype = kFloat32;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }

  std::vector<int64_t> random_shape(int min_rank, int max_rank) {
    std::vector<int64_t> result(static_cast<std::size_t>(rng.uniform(min_rank, max_rank)));
    for (int64_t& size : result) size = rng.uniform(1, 3);
    return result;
  }

  // A broadcast-compatible shape: a suffix of `shape`, some dims set to 1.
  std::vector<int64_t> broadcastable() {
    std::vector<int64_t> result(shape.end() - rng.uniform(0, rank()), shape.end());
    for (int64_t& size : result)
      if (rng.chance(0.3)) size = 1;
    return result;
  }

  int64_t random_dim(int64_t of_rank) {
    if (of_rank == 0) return rng.chance(0.5) ? 0 : -1;
    return rng.uniform(-of_rank, of_rank - 1);
  }

  // Values shared by all examples (dims, shapes, flags) drawn once; tensors per example.
  struct Plan {
    std::vector<std::function<Arg(int64_t example)>> positions;
  };

  Tensor tensor_of(const std::vector<int64_t>& sizes, Dtype type) {
    return test::random_tensor(rng, sizes, type);
  }

  Plan plan() {
    Plan plan;
    const RuleId rule = entry.rule;
    const bool needs_matrix = rule == RuleId::triangular;
    const bool needs_dim = rule == RuleId::select || rule == RuleId::narrow ||
                           rule == RuleId::index_select || rule == RuleId::gather ||
                           rule == RuleId::cat;
    shape = random_shape(needs_matrix ? 2 : needs_dim ? 1 : 0, 3);
    if (rule == RuleId::item) shape = std::vector<int64_t>(rng.uniform(0, 2), 1);
    dtype = test::random_dtype(rng);
    if (rule == RuleId::along_dim || rule == RuleId::compare_all || rule == RuleId::reduce_dims)
      dtype = rng.chance(0.5) ? kFloat32 : kFloat64;
    if (entry.family == Family::linalg) return linalg_plan();
    if (rule == RuleId::one_hot) return one_hot_plan();
    if (entry.family == Family::inplace) return inplace_plan();

    const auto main_shape = shape;
    const Dtype main_dtype = dtype;
    int64_t chosen_dim = 0;
    std::optional<std::size_t> list_length;  // movedim's destination list matches its source
    int64_t length = 1;
    for (std::size_t i = 0; i < entry.arity; ++i) {
      const ArgKind kind = entry.param(i);
      if (i >= entry.required && rng.chance(0.3) && kind != ArgKind::tensor_list) {
        plan.positions.push_back([](int64_t) { return Arg(); });
        continue;
      }
      switch (kind) {
        case ArgKind::tensor:
        case ArgKind::nested_list: {
          if (i == 0) {
            plan.positions.push_back(
                [=, this](int64_t) { return Arg(plain(tensor_of(main_shape, main_dtype))); });
          } else if (rule == RuleId::index_select) {
            const int64_t extent = main_shape[static_cast<std::size_t>(chosen_dim)];
            const int64_t count = rng.uniform(1, 4);
            plan.positions.push_back([=, this](int64_t) {
              return Arg(plain(test::random_index(rng, {count}, extent)));
            });
          } else if (rule == RuleId::gather) {
            std::vector<int64_t> index_shape = main_shape;
            for (int64_t& size : index_shape) size = rng.uniform(1, size);
            index_shape[static_cast<std::size_t>(chosen_dim)] = rng.uniform(1, 3);
            const int64_t extent = main_shape[static_cast<std::size_t>(chosen_dim)];
            plan.positions.push_back([=, this](int64_t) {
              return Arg(plain(test::random_index(rng, index_shape, extent)));
            });
          } else if (rule == RuleId::compare_all) {
            plan.positions.push_back([=, this](int64_t) { return Arg(); });  // filled in make()
          } else if (rule == RuleId::expand_as) {
            const auto target = expanded(false);
            plan.positions.push_back(
                [=, this](int64_t) { return Arg(plain(tensor_of(target, main_dtype))); });
          } else {
            const auto other_shape =
                rule == RuleId::ternary_where && i == 0 ? main_shape : broadcastable();
            const Dtype other_dtype = test::random_dtype(rng);
            plan.positions.push_back(
                [=, this](int64_t) { return Arg(plain(tensor_of(other_shape, other_dtype))); });
          }
          break;
        }
        case ArgKind::operand: {
          const bool first = i == 0;
          const auto operand_shape = first ? main_shape : broadcastable();
          const Dtype operand_dtype = first ? main_dtype : test::random_dtype(rng);
          plan.positions.push_back(
              [=, this](int64_t) { return Arg(plain(tensor_of(operand_shape, operand_dtype))); });
          break;
        }
        case ArgKind::tensor_list: {
          const int64_t count = rng.uniform(1, 3);
          const int64_t dim = random_dim(rank());
          const int64_t wrapped = rank() == 0 ? 0 : (dim + rank()) % std::max<int64_t>(rank(), 1);
          std::vector<std::vector<int64_t>> shapes;
          for (int64_t k = 0; k < count; ++k) {
            auto item_shape = main_shape;
            if (rule == RuleId::cat && !item_shape.empty())
              item_shape[static_cast<std::size_t>(wrapped)] = rng.uniform(1, 3);
            shapes.push_back(item_shape);
          }
          plan.positions.push_back([=, this](int64_t) {
            std::vector<TensorArg> list;
            for (const auto& item_shape : shapes)
              list.push_back({tensor_of(item_shape, main_dtype), std::nullopt});
            return Arg(list);
          });
          chosen_dim = dim;
          break;
        }
        case ArgKind::dim: {
          const bool adds = rule == RuleId::unsqueeze;
          int64_t dim = random_dim(rank() + (adds ? 1 : 0));
          if (i > 0 && entry.param(0) == ArgKind::tensor_list) dim = chosen_dim;
          chosen_dim = rank() == 0 ? 0 : (dim % rank() + rank()) % rank();
          plan.positions.push_back([=](int64_t) { return Arg(dim); });
          break;
        }
        case ArgKind::dim_list: {
          std::vector<int64_t> dims(shape.size());
          std::iota(dims.begin(), dims.end(), 0);
          rng.shuffle(dims);
          if (rule == RuleId::movedim && list_length)
            dims.resize(*list_length);
          else if (rule != RuleId::permute)
            dims.resize(static_cast<std::size_t>(rng.uniform(0, rank())));
          list_length = dims.size();
          for (int64_t& dim : dims)
            if (rng.chance(0.3)) dim -= rank();
          plan.positions.push_back([=](int64_t) { return Arg(dims); });
          break;
        }
        case ArgKind::shape: {
          std::vector<int64_t> sizes = shape_for(rule);
          plan.positions.push_back([=](int64_t) { return Arg(sizes); });
          break;
        }
        case ArgKind::index: {
          if (rank() == 0) {
            plan.positions.push_back([](int64_t) { return Arg(int64_t{0}); });
            break;
          }
          const int64_t dim_position = entry.name == "operator[]" ? 0 : chosen_dim;
          const int64_t extent = shape[static_cast<std::size_t>(dim_position)];
          if (rule == RuleId::narrow) {
            length = rng.uniform(1, extent);
            plan.positions.push_back(
                [=, this](int64_t) { return Arg(rng.uniform(0, extent - length)); });
          } else {
            plan.positions.push_back(
                [=, this](int64_t) { return Arg(rng.uniform(-extent, extent - 1)); });
          }
          break;
        }
        case ArgKind::integer: {
          const int64_t value = rule == RuleId::narrow ? length : rng.uniform(-1, 1);
          plan.positions.push_back([=](int64_t) { return Arg(value); });
          break;
        }
        case ArgKind::number:
        case ArgKind::alpha: {  // add/sub's alpha: a float one raises on integer operands
          const detail::Scalar value = rng.chance(0.3) ? detail::Scalar(rng.real(-2.0, 2.0))
                                                       : detail::Scalar(rng.uniform(-2, 2));
          plan.positions.push_back([=](int64_t) { return Arg(value); });
          break;
        }
        case ArgKind::scalar: {
          const bool upper = i == 2;
          plan.positions.push_back([=, this](int64_t) {
            if (rule == RuleId::compare_all) return Arg(detail::Scalar(1e-3));
            if (rule == RuleId::loop_invariant)
              return Arg(detail::Scalar(int64_t{rng.uniform(1, 4)}));
            const double value = upper ? rng.real(0.0, 1.0) : rng.real(-1.0, 0.0);
            return Arg(detail::Scalar(value));
          });
          break;
        }
        case ArgKind::keepdim: {
          const bool keepdim = rng.chance(0.5);
          plan.positions.push_back([=](int64_t) { return Arg(keepdim); });
          break;
        }
        case ArgKind::text: {  // each of the op's modes (LibTorch's strings)
          const std::vector<std::string> modes =
              entry.name == "gelu" ? std::vector<std::string>{"none", "tanh"}
                                   : std::vector<std::string>{"trunc", "floor"};
          const std::string mode = modes[static_cast<std::size_t>(rng.uniform(0, 1))];
          plan.positions.push_back([=](int64_t) { return Arg(mode); });
          break;
        }
        case ArgKind::conversion: {
          const Dtype target = test::random_dtype(rng);
          plan.positions.push_back([=](int64_t) { return Arg(target); });
          break;
        }
        default:
          plan.positions.push_back([](int64_t) { return Arg(); });
      }
    }
    return plan;
  }

  // A shape `shape` expands to; -1 (keep the size) where `infer` allows it.
  std::vector<int64_t> expanded(bool infer) {
    std::vector<int64_t> sizes = shape;
    for (int64_t& size : sizes)
      if (size == 1 && rng.chance(0.5))
        size = 2;
      else if (infer && rng.chance(0.3))
        size = -1;
    if (rng.chance(0.5)) sizes.insert(sizes.begin(), 2);
    return sizes;
  }

  std::vector<int64_t> shape_for(RuleId rule) {
    if (rule == RuleId::expand) return expanded(true);
    if (rule == RuleId::loop_invariant) return random_shape(0, 2);
    int64_t numel = 1;
    for (int64_t size : shape) numel *= size;
    switch (rng.uniform(0, 2)) {
      case 0:
        return {-1};
      case 1:
        return {numel, 1};
      default: {
        std::vector<int64_t> reversed(shape.rbegin(), shape.rend());
        return reversed;
      }
    }
  }

  Plan linalg_plan() {
    const int64_t n = rng.uniform(1, 3), k = rng.uniform(1, 3), m = rng.uniform(1, 3);
    const int64_t b = rng.uniform(1, 2);
    dtype = rng.chance(0.5) ? kFloat32 : kFloat64;
    std::vector<int64_t> x_shape, y_shape;
    switch (entry.rule) {
      case RuleId::mm:
        x_shape = {n, k};
        y_shape = {k, m};
        break;
      case RuleId::mv:
        x_shape = {n, k};
        y_shape = {k};
        break;
      case RuleId::bmm:
        x_shape = {b, n, k};
        y_shape = {b, k, m};
        break;
      case RuleId::dot:
        x_shape = {k};
        y_shape = {k};
        break;
      case RuleId::linear:
        x_shape = random_shape(0, 2);
        x_shape.push_back(k);
        y_shape = {n, k};
        break;
      default: {  // matmul: every rank pairing from 1-D to 3-D
        x_shape = random_shape(0, 2);
        x_shape.push_back(k);
        y_shape = {k};
        if (rng.chance(0.7)) {
          y_shape = random_shape(0, 1);
          if (!y_shape.empty() && x_shape.size() > 2) y_shape[0] = x_shape[0];
          y_shape.push_back(k);
          y_shape.push_back(m);
        }
      }
    }
    Plan plan;
    const Dtype type = dtype;
    plan.positions.push_back([=, this](int64_t) { return Arg(plain(tensor_of(x_shape, type))); });
    plan.positions.push_back([=, this](int64_t) { return Arg(plain(tensor_of(y_shape, type))); });
    if (entry.arity > 2) {
      const bool with_bias = rng.chance(0.7);
      plan.positions.push_back(
          [=, this](int64_t) { return with_bias ? Arg(plain(tensor_of({n}, type))) : Arg(); });
    }
    return plan;
  }

  // one_hot: class indices below 3 and a count of 3 or 4, or the count inferred (left out)
  // over examples whose largest class is 2 in each: an inferred count must be the same for
  // every example (OneHot.InferredCountsThatDifferAreAnError).
  Plan one_hot_plan() {
    Plan plan;
    const auto labels_shape = shape;
    const bool inferred = rng.chance(0.5);
    const int64_t classes = rng.uniform(3, 4);
    plan.positions.push_back([=, this](int64_t) {
      Tensor labels = test::random_index(rng, labels_shape, 3);
      if (inferred) labels.reshape({-1})[0] = 2;
      return Arg(plain(labels));
    });
    plan.positions.push_back([=](int64_t) { return inferred ? Arg() : Arg(classes); });
    return plan;
  }

  Plan inplace_plan() {
    Plan plan;
    const auto destination_shape = shape;
    dtype = rng.chance(0.5) ? kFloat32 : kFloat64;
    const Dtype destination_dtype = dtype;
    plan.positions.push_back(
        [=, this](int64_t) { return Arg(plain(tensor_of(destination_shape, destination_dtype))); });
    if (entry.arity > 1) {
      const auto value_shape =
          entry.rule == RuleId::fill_into ? std::vector<int64_t>{} : broadcastable();
      const Dtype value_dtype = test::random_dtype(rng);
      plan.positions.push_back(
          [=, this](int64_t) { return Arg(plain(tensor_of(value_shape, value_dtype))); });
    }
    return plan;
  }
};

std::vector<std::vector<Arg>> draw_examples(const OpEntry& entry, Generator::Plan& plan,
                                            int64_t batch) {
  std::vector<std::vector<Arg>> examples(static_cast<std::size_t>(batch));
  for (int64_t b = 0; b < batch; ++b)
    for (auto& make : plan.positions) examples[static_cast<std::size_t>(b)].push_back(make(b));
  if (entry.rule == RuleId::compare_all)  // b equal to a for some examples, not others
    for (int64_t b = 0; b < batch; ++b) {
      auto& args = examples[static_cast<std::size_t>(b)];
      const Tensor& a = std::get<TensorArg>(args[0]).value;
      args[1] = plain(b % 2 == 0 ? a.clone() : a + 0.5);
    }
  return examples;
}

// How a position is passed to the rule.
enum class Mode { unbatched, front, back };

bool is_batchable(const Arg& arg) {
  return std::holds_alternative<TensorArg>(arg) ||
         std::holds_alternative<std::vector<TensorArg>>(arg) ||
         std::holds_alternative<int64_t>(arg) || std::holds_alternative<detail::Scalar>(arg);
}

// Positions whose value may differ per example: tensors, and per-example C++ numbers
// (`index` and `scalar` kinds).
bool varies_per_example(const OpEntry& entry, std::size_t position) {
  const ArgKind kind = entry.param(position);
  return kind == ArgKind::tensor || kind == ArgKind::operand || kind == ArgKind::tensor_list ||
         kind == ArgKind::index || kind == ArgKind::scalar;
}

Tensor stack_at(const std::vector<Tensor>& slices, Mode mode) {
  const Tensor stacked = vmap::stack(slices);
  if (mode == Mode::back) return stacked.movedim(0, stacked.dim() - 1);
  return stacked;
}

Arg batch_position(const std::vector<Arg>& per_example, Mode mode) {
  const Arg& first = per_example.front();
  if (mode == Mode::unbatched) return first;
  if (const auto* list = std::get_if<std::vector<TensorArg>>(&first)) {
    std::vector<TensorArg> batched;
    for (std::size_t item = 0; item < list->size(); ++item) {
      std::vector<Tensor> slices;
      for (const Arg& arg : per_example)
        slices.push_back(std::get<std::vector<TensorArg>>(arg)[item].value);
      const Tensor stacked = stack_at(slices, mode);
      batched.push_back({stacked, mode == Mode::back ? BatchDim(stacked.dim() - 1) : BatchDim(0)});
    }
    return batched;
  }
  std::vector<Tensor> slices;
  bool wrapped = false;
  for (const Arg& arg : per_example) {
    if (const auto* tensor = std::get_if<TensorArg>(&arg))
      slices.push_back(tensor->value);
    else if (const auto* integer = std::get_if<int64_t>(&arg))
      slices.push_back(vmap::tensor(*integer));
    else {
      const auto value = std::get<detail::Scalar>(arg);
      slices.push_back(vmap::full({}, value, value.dtype()));
      wrapped = true;
    }
  }
  const Tensor stacked = stack_at(slices, mode);
  return TensorArg{stacked, mode == Mode::back ? BatchDim(stacked.dim() - 1) : BatchDim(0),
                   wrapped};
}

struct Outcome {
  std::vector<Tensor> per_example;  // empty when an example raised
  bool raised = false;
};

Outcome run_examples(std::size_t op, std::vector<std::vector<Arg>> examples) {
  Outcome outcome;
  try {
    for (auto& args : examples) outcome.per_example.push_back(call_reference(op, args));
  } catch (const Error&) {
    outcome.raised = true;
  }
  return outcome;
}

// Deep copies, so in-place ops on one example do not disturb another.
std::vector<Arg> cloned(const std::vector<Arg>& args) {
  std::vector<Arg> copy = args;
  for (Arg& arg : copy)
    if (auto* tensor = std::get_if<TensorArg>(&arg)) tensor->value = tensor->value.clone();
  return copy;
}

void check_entry(std::size_t op, Rng& rng) {
  const OpEntry& entry = kOpTable[op];
  SCOPED_TRACE("op " + std::to_string(op) + ": " + std::string(entry.name));
  if (entry.rule == RuleId::refused) {
    EXPECT_THROW(call_rule(op, {}), Error);
    return;
  }
  const bool values_unspecified = entry.name == "empty_like" || entry.name == "empty";
  int compared = 0;  // combinations that ran without an error and were checked
  for (int trial = 0; trial < kTrials; ++trial) {
    const int64_t batch = rng.chance(0.2) ? 1 : 3;
    Generator generator{rng, entry, op};
    Generator::Plan plan = generator.plan();
    std::vector<std::vector<Arg>> examples = draw_examples(entry, plan, batch);

    std::vector<std::size_t> varying;
    for (std::size_t i = 0; i < entry.arity; ++i)
      if (varies_per_example(entry, i) && i < examples[0].size() && is_batchable(examples[0][i]))
        varying.push_back(i);
    const bool inplace = entry.family == Family::inplace;

    std::size_t combinations = 1;
    for (std::size_t i = 0; i < varying.size(); ++i) combinations *= 3;
    for (std::size_t combination = 0; combination < combinations; ++combination) {
      std::vector<Mode> modes(entry.arity, Mode::unbatched);
      std::size_t code = combination;
      for (std::size_t position : varying) {
        modes[position] = static_cast<Mode>(code % 3);
        code /= 3;
      }
      // An index or scalar has no last dim apart from the batch dim.
      for (std::size_t position : varying)
        if (modes[position] == Mode::back &&
            (entry.param(position) == ArgKind::index || entry.param(position) == ArgKind::scalar))
          modes[position] = Mode::front;
      SCOPED_TRACE("trial " + std::to_string(trial) + " combination " +
                   std::to_string(combination));

      // Per-example arguments as this combination sees them: unbatched positions take
      // example 0's value for every example.
      std::vector<std::vector<Arg>> seen(examples.size());
      for (std::size_t b = 0; b < examples.size(); ++b) {
        seen[b] = cloned(examples[b]);
        for (std::size_t i = 0; i < seen[b].size(); ++i)
          if (i < modes.size() && modes[i] == Mode::unbatched) seen[b][i] = cloned(examples[0])[i];
      }
      std::vector<Arg> batched_args;
      for (std::size_t i = 0; i < examples[0].size(); ++i) {
        std::vector<Arg> column;
        for (const auto& args : seen) column.push_back(args[i]);
        batched_args.push_back(i < modes.size() && is_batchable(column[0]) &&
                                       varies_per_example(entry, i)
                                   ? batch_position(column, modes[i])
                                   : column[0]);
      }
      if (inplace && modes[0] == Mode::unbatched) {
        const bool value_batched = std::ranges::any_of(
            varying, [&](std::size_t p) { return p > 0 && modes[p] != Mode::unbatched; });
        if (value_batched) EXPECT_THROW(call_rule(op, batched_args), Error);
        continue;  // a shared destination written once per example has no batched analogue
      }

      if (entry.rule == RuleId::loop_invariant && std::ranges::any_of(varying, [&](std::size_t p) {
            return modes[p] != Mode::unbatched;
          })) {
        EXPECT_THROW(call_rule(op, batched_args), Error);  // factories take shared arguments
        continue;
      }
      const Outcome expected = run_examples(op, seen);
      std::optional<BatchedResult> result;
      try {
        result = call_rule(op, batched_args);
      } catch (const Error& error) {
        EXPECT_TRUE(expected.raised) << "the rule raised but no example did: " << error.what();
        continue;
      }
      if (expected.raised) {
        // The batched op may run on a different layout; only index errors must carry over.
        if (entry.family == Family::index || entry.family == Family::views)
          ADD_FAILURE() << "an example raised but the rule did not";
        continue;
      }
      Tensor actual = result->first;
      if (inplace) actual = std::get<TensorArg>(batched_args[0]).value;
      const BatchDim bdim = inplace ? std::get<TensorArg>(batched_args[0]).bdim : result->second;
      test::expect_stacked(actual, bdim, expected.per_example, values_unspecified);
      ++compared;
    }
  }
  EXPECT_GT(compared, 0) << "no generated case ran: the generator needs this rule's constraints";
}

// Runtime ops (tensors made plus in-place ops) of one batched call with every varying
// argument batched in front, or nullopt when the examples raise.
std::optional<int64_t> batched_cost(std::size_t op, const std::vector<std::vector<Arg>>& examples) {
  const OpEntry& entry = kOpTable[op];
  std::vector<Arg> batched_args;
  for (std::size_t i = 0; i < examples[0].size(); ++i) {
    std::vector<Arg> column;
    for (const auto& args : examples) column.push_back(cloned(args)[i]);
    batched_args.push_back(is_batchable(column[0]) && varies_per_example(entry, i)
                               ? batch_position(column, Mode::front)
                               : column[0]);
  }
  const int64_t before = detail::op_count();
  try {
    call_rule(op, batched_args);
  } catch (const Error&) {
    return std::nullopt;
  }
  return detail::op_count() - before;
}

class EveryOp : public ::testing::TestWithParam<std::size_t> {};

TEST_P(EveryOp, BatchedEqualsStackOfExamples) {
  // tensor({...})'s rule takes the literal's numbers as a list of 0-d values, which no
  // unbatched binding takes: BatchedApi.TensorLiteralsOfPerExampleNumbers checks it.
  if (kOpTable[GetParam()].rule == RuleId::tensor_literal) GTEST_SKIP();
  Rng rng(1234 + GetParam());
  check_entry(GetParam(), rng);
}

// No hidden per-example loops: a batched call costs the same number of runtime ops for 2
// examples as for 64.
TEST_P(EveryOp, CostIndependentOfBatchSize) {
  const OpEntry& entry = kOpTable[GetParam()];
  if (entry.rule == RuleId::refused || entry.rule == RuleId::loop_invariant ||
      entry.rule == RuleId::tensor_literal)
    GTEST_SKIP();
  Rng rng(99 + GetParam());
  int measured = 0;
  for (int trial = 0; trial < kTrials && measured < 3; ++trial) {
    Generator generator{rng, entry, GetParam()};
    Generator::Plan plan = generator.plan();
    const auto small = batched_cost(GetParam(), draw_examples(entry, plan, 2));
    const auto large = batched_cost(GetParam(), draw_examples(entry, plan, 64));
    if (!small || !large) continue;
    EXPECT_EQ(*small, *large) << "trial " << trial;
    ++measured;
  }
  EXPECT_GT(measured, 0);
}

// Per example the inferred count is the example's largest class + 1; batched, the result's
// shape would differ between examples, so the rule raises (naming one_hot) unless they agree.
TEST(OneHot, InferredCountsThatDifferAreAnError) {
  const std::size_t one_hot = find_op("one_hot", OpForm::free_function);
  const Tensor agree = vmap::tensor({{0, 3}, {3, 1}}).to(kInt64);
  const std::array<Arg, 1> same{TensorArg{agree, 0}};
  const auto [result, bdim] = call_rule(one_hot, same);
  EXPECT_TRUE(vmap::equal(result, vmap::stack({vmap::one_hot(agree[0]), vmap::one_hot(agree[1])})));
  EXPECT_EQ(bdim, BatchDim(0));
  const std::array<Arg, 1> differ{TensorArg{vmap::tensor({{0, 1}, {0, 3}}).to(kInt64), 1}};
  try {
    call_rule(one_hot, differ);
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("one_hot"), std::string::npos) << error.what();
  }
}

TEST(OpCount, CountsBatchedWork) {  // the cost test above is not vacuous
  const std::size_t add = find_op("add", OpForm::free_function);
  const std::array<Arg, 2> args{TensorArg{vmap::ones({4, 3}), 0}, TensorArg{vmap::ones({3}), {}}};
  const int64_t before = detail::op_count();
  call_rule(add, args);
  EXPECT_GT(detail::op_count(), before);
}

INSTANTIATE_TEST_SUITE_P(OpTable, EveryOp, ::testing::Range<std::size_t>(0, kOpTable.size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           std::string name = std::to_string(info.param) + "_";
                           for (char c : kOpTable[info.param].name)
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace vmap::rules
