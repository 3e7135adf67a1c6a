// vmap_generate_op_table_programs <group> <groups> <output.cpp>
// vmap_generate_op_table_programs refused <output.cpp>
// Writes test programs from the op table (Note [Every entry has every layer] in
// tests/rules/generate_op_table_checks.cpp), so that every entry is rewritten by clang-vmap
// with a per-example value in each argument position SPEC section 6 lets vary:
// - group k of n: the entries with index % n == k, each in `#pragma vmap` loops: one with
//   every such position per example, then one per position with only that one per example
//   (the others loop-invariant: a member called on a loop-invariant object, `linear(x, W[m],
//   b[m])`), a per-example C++ number in an operand position as a variant of its own. Each
//   loop stores its result into a slot per example, and main() prints them: the
//   differential test builds the program as written and rewritten and compares.
// - refused: one loop per entry and position SPEC wants the same for every example (a
//   dimension, topk's k, a shape, an option, a dtype), with a per-example value there, and
//   the FileCheck line the refusal test expects: the error at that line, naming the argument.
// The arguments are chosen per rule and kind, as the property test chooses them: the
// per-example tensors are x, y (float [3, 4], y positive), mask (bool) and idx (int64 in
// [0, 3)); the per-example numbers s_i (float) and q_i (int64 in {0, 1}).
#include <vmap/rules/op_table.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace vmap::rules;

// One argument: its text for example i, and a loop-invariant text of the same shape and type.
struct Argument {
  std::string per_example;
  std::string invariant;
  bool may_vary = true;  // SPEC lets it differ per example
};

// A per-example tensor read: `x[i]` and the invariant `x[0]`, with `rest` appended.
Argument read(std::string_view tensor, std::string_view rest = "") {
  return {std::string(tensor) + "[i]" + std::string(rest),
          std::string(tensor) + "[0]" + std::string(rest)};
}
Argument fixed(std::string text) { return {text, text, false}; }

// LibTorch's bitwise and logical-not operators take bool (or integer) tensors only.
bool wants_bools(const OpEntry& entry) {
  return entry.name == "operator&" || entry.name == "operator|" || entry.name == "operator!";
}

// The tensor (or operand) at `position`, shaped for the entry's rule.
Argument tensor_argument(const OpEntry& entry, std::size_t position) {
  if (wants_bools(entry)) return position == 0 ? read("mask") : read("mask", ".logical_not()");
  switch (entry.rule) {
    case RuleId::mm:
    case RuleId::matmul:
      return position == 0 ? read("x") : read("y", ".t()");
    case RuleId::mv:
      return position == 0 ? read("x") : read("y", "[0]");
    case RuleId::bmm:
      return position == 0 ? read("x", ".unsqueeze(0)") : read("y", ".t().unsqueeze(0)");
    case RuleId::dot:
      return position == 0 ? read("x", "[0]") : read("y", "[0]");
    case RuleId::linear:  // x [3, 4], W [3, 4], b [3]
      return position == 0 ? read("x") : position == 1 ? read("y") : read("y", ".select(1, 0)");
    case RuleId::one_hot:
      return read("idx");
    case RuleId::index_select:
      return position == 0 ? read("x") : read("idx", "[0].narrow(0, 0, 2)");
    case RuleId::gather:
      return position == 0 ? read("x") : read("idx");
    case RuleId::masked_fill:  // a tensor value is 0-d
      return position == 0 ? read("x") : position == 1 ? read("mask") : read("y", "[0][0]");
    case RuleId::fill_into:  // likewise
      return position == 0 ? read("x") : read("y", "[0][0]");
    case RuleId::ternary_where:
      return position == 0 ? read("mask") : position == 1 ? read("x") : read("y");
    case RuleId::expand_as:
      return position == 0 ? read("x", "[0]") : read("y");
    default:
      return position == 0 ? read("x") : read("y");
  }
}

// A per-example C++ number where the entry takes one.
Argument number_argument(const OpEntry& entry, std::size_t position) {
  if (entry.rule == RuleId::clamp) return position == 1 ? Argument{"s_i", "0.75"}
                                                         : Argument{"s_i + 1", "1.5"};
  if (entry.rule == RuleId::compare_all)  // allclose's rtol, atol
    return position == 2 ? Argument{"s_i * 0.001", "0.001"} : Argument{"s_i", "0.5"};
  return {"s_i", "0.75"};
}

// Nth position of this kind before `position` (transpose's second dim...).
std::size_t ordinal(const OpEntry& entry, std::size_t position) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < position; ++i) count += entry.param(i) == entry.param(position);
  return count;
}

// The loop-invariant value a position SPEC does not let vary takes.
std::string invariant_value(const OpEntry& entry, std::size_t position) {
  const std::size_t nth = ordinal(entry, position);
  switch (entry.param(position)) {
    case ArgKind::dim:
      switch (entry.rule) {
        case RuleId::unsqueeze:
        case RuleId::cat:
        case RuleId::stack:
        case RuleId::index_select:
          return "0";
        case RuleId::flatten:
          return nth == 0 ? "0" : "-1";
        case RuleId::along_dim:
        case RuleId::topk:
          return "-1";
        default:
          return nth == 0 ? "1" : "0";
      }
    case ArgKind::dim_list:
      if (entry.rule == RuleId::permute) return "{1, 0}";
      if (entry.rule == RuleId::movedim) return nth == 0 ? "{0}" : "{1}";
      return "{1}";
    case ArgKind::shape:
      return entry.rule == RuleId::expand ? "{2, 3, 4}" : "{4, 3}";
    case ArgKind::integer:
      if (entry.rule == RuleId::one_hot) return "3";
      return entry.rule == RuleId::triangular ? "1" : "2";  // narrow's length, topk's k
    case ArgKind::number:
      return entry.rule == RuleId::reduce_dims ? "2" : nth == 0 ? "2.0" : "1.0";
    case ArgKind::keepdim:
      return "true";
    case ArgKind::text:
      return entry.name == "gelu" ? "\"tanh\"" : "\"floor\"";
    case ArgKind::conversion:
      return "kFloat64";
    default:
      return "";
  }
}

// A per-example value for a position that must not vary, of the type the position takes.
std::string refused_value(const OpEntry& entry, std::size_t position) {
  switch (entry.param(position)) {
    case ArgKind::dim:
      return "q_i";
    case ArgKind::dim_list:
      return "{q_i}";
    case ArgKind::shape:
      return "{q_i + 3, -1}";
    case ArgKind::integer:
      return "q_i + 1";
    case ArgKind::number:
      return "s_i";
    case ArgKind::keepdim:
      return "q_i > 0";
    case ArgKind::text:
      return entry.name == "gelu" ? "q_i > 0 ? \"tanh\" : \"none\""
                                  : "q_i > 0 ? \"floor\" : \"trunc\"";
    case ArgKind::conversion:
      return "q_i > 0 ? kFloat64 : kFloat32";
    default:
      return "";
  }
}

std::optional<Argument> argument(const OpEntry& entry, std::size_t position) {
  switch (entry.param(position)) {
    case ArgKind::tensor:
    case ArgKind::operand:
      return tensor_argument(entry, position);
    case ArgKind::tensor_list:
      return Argument{"{x[i], y[i]}", "{x[0], y[0]}"};
    case ArgKind::index:
      return Argument{"q_i", "1"};
    case ArgKind::scalar:
    case ArgKind::alpha:
      return number_argument(entry, position);
    case ArgKind::nested_list:  // tensor({...}) of per-example C++ numbers
      return Argument{"{{s_i, 2 * s_i, 1.5f}, {-s_i, 0.5f, s_i + 1}}",
                      "{{0.75f, 1.5f, 1.5f}, {-0.75f, 0.5f, 1.75f}}"};
    case ArgKind::options:
    case ArgKind::pointer:
      return std::nullopt;
    default:
      return fixed(invariant_value(entry, position));
  }
}

// Every position's argument; fewer than the entry's arity where one has no value the
// programs can give (a factory's options, from_blob's pointer): the differential programs
// take an entry whose missing positions have defaults (full, tensor).
std::vector<Argument> arguments_of(const OpEntry& entry) {
  std::vector<Argument> arguments;
  for (std::size_t position = 0; position < entry.arity; ++position) {
    std::optional<Argument> chosen = argument(entry, position);
    if (!chosen) break;
    arguments.push_back(*chosen);
  }
  return arguments;
}

// The call with these argument texts, as the user writes it.
std::string call(const OpEntry& entry, const std::vector<std::string>& args) {
  const std::string_view name = entry.name;
  auto list = [&](std::size_t from) {
    std::string text;
    for (std::size_t i = from; i < args.size(); ++i) text += (i > from ? ", " : "") + args[i];
    return text;
  };
  const std::string op(name.substr(name.starts_with("operator") ? 8 : 0));
  switch (entry.form) {
    case OpForm::free_function:  // qualified: `std(x)` would name the namespace
      return "vmap::" + std::string(name) + "(" + list(0) + ")";
    case OpForm::binary_operator:
      return "(" + args[0] + " " + op + " " + args[1] + ")";
    case OpForm::unary_operator:
      return op + args[0];
    default:
      if (name == "operator[]") return args[0] + "[" + args[1] + "]";
      return args[0] + "." + op + "(" + list(1) + ")";
  }
}

// Entries with a per-example meaning the differential programs run: not refused, not the
// factories (loop-invariant arguments only), not metadata and item (no tensor result; the
// goldens cover them).
bool runs_batched(const OpEntry& entry) {
  return entry.family != Family::refused && entry.rule != RuleId::loop_invariant &&
         entry.rule != RuleId::metadata && entry.rule != RuleId::item;
}

// The body statements that compute `result` from the call, and the result expression.
struct Statement {
  std::string before;  // statements ending in a newline
  std::string result;  // a Tensor (or bool) expression
};

Statement statement(const OpEntry& entry, const std::vector<std::string>& args) {
  if (entry.writes_first_argument()) {  // into a per-example copy of the object
    std::vector<std::string> rest = args;
    rest[0] = "t";
    const std::string write = entry.form == OpForm::compound_assign
                                  ? "t " + std::string(entry.name.substr(8)) + " " + args[1]
                                  : call(entry, rest);
    return {"    Tensor t = " + args[0] + ".clone();\n    " + write + ";\n", "t"};
  }
  if (entry.values_and_indices)
    return {"    auto [values, indices] = " + call(entry, args) + ";\n", "values + indices"};
  if (entry.rule == RuleId::compare_all)
    return {"    bool same = " + call(entry, args) + ";\n", "same"};
  if (entry.name == "empty_like")  // its values are unspecified: its shape and dtype count
    return {"", "vmap::zeros_like(" + call(entry, args) + ")"};
  return {"", call(entry, args)};
}

class ProgramWriter {
 public:
  explicit ProgramWriter(std::ostream& out) : out_(out) {}

  // One loop computing `statement` per example into a fresh output, printed after it.
  void loop(const std::string& label, const Statement& body) {
    const std::string name = "out" + std::to_string(loops_++);
    const std::string numbers = scalars(body.before + body.result);
    const bool is_bool = body.result == "same";
    out_ << "  // " << label << "\n  Tensor " << name << ";\n  {\n    const int64_t i = 0;\n"
         << numbers << body.before << "    " << name << " = "
         << (is_bool ? "zeros({n})" : "result_for(n, " + body.result + ")") << ";\n  }\n"
         << "#pragma vmap\n  for (int64_t i = 0; i < n; ++i) {\n"
         << numbers << body.before << "    " << name << "[i] = " << body.result << ";\n  }\n"
         << "  show(\"" << label << "\", " << name << ");\n";
  }

 private:
  static std::string scalars(const std::string& text) {
    std::string lines;
    if (text.find("s_i") != std::string::npos) lines += "    float s_i = s[i].item<float>();\n";
    if (text.find("q_i") != std::string::npos)
      lines += "    int64_t q_i = q[i].item<int64_t>();\n";
    return lines;
  }

  std::ostream& out_;
  int loops_ = 0;
};

constexpr std::string_view kForms[] = {"free",           "member",   "binary operator",
                                       "unary operator", "compound", "in-place member"};

std::string label(std::size_t index, std::string_view variant) {
  const OpEntry& entry = kOpTable[index];
  return "entry " + std::to_string(index) + " " + std::string(entry.name) + " (" +
         std::string(kForms[static_cast<std::size_t>(entry.form)]) + ", " +
         std::to_string(entry.arity) + " args) " + std::string(variant);
}

const char* const kPrelude =
    "// Generated by vmap_generate_op_table_programs from the op table; differential test\n"
    "// input (tests/transform/op_table/CMakeLists.txt). Do not edit.\n"
    "#include <vmap/vmap.hpp>\n\n#include <cstdint>\n#include <iostream>\n#include <string>\n"
    "#include <tuple>\n#include <vector>\n\nusing namespace vmap;\n\n";

// The inputs every loop reads, made in main() and passed in (loop-invariant tensors).
const char* const kInputs =
    "const Tensor& x, const Tensor& y, const Tensor& mask, const Tensor& idx, const Tensor& s, "
    "const Tensor& q";

int differential(int group, int groups, const char* path) {
  std::ofstream out(path);
  out << kPrelude
      << "// [n, ...] zeros with an example's shape and dtype, for a loop's results.\n"
         "Tensor result_for(int64_t n, const Tensor& example) {\n"
         "  std::vector<int64_t> sizes{n};\n"
         "  for (int64_t size : example.sizes()) sizes.push_back(size);\n"
         "  return zeros(sizes, example.dtype());\n}\n\n"
         "void show(const std::string& label, const Tensor& result) {\n"
         "  std::cout << label << \"\\n\" << result.to(kFloat64) << \"\\n\";\n}\n\n"
         "void run(int64_t n, "
      << kInputs << ") {\n";
  ProgramWriter writer(out);
  for (std::size_t index = static_cast<std::size_t>(group); index < kOpTable.size();
       index += static_cast<std::size_t>(groups)) {
    const OpEntry& entry = kOpTable[index];
    if (!runs_batched(entry)) continue;
    const std::vector<Argument> arguments = arguments_of(entry);
    if (arguments.size() < entry.required) continue;
    auto texts = [&](std::optional<std::size_t> only, bool number) {
      std::vector<std::string> args;
      for (std::size_t position = 0; position < arguments.size(); ++position) {
        const Argument& argument = arguments[position];
        const bool varies = !only || *only == position;
        args.push_back(number && varies ? "s_i"
                       : varies         ? argument.per_example
                                        : argument.invariant);
      }
      return args;
    };
    std::size_t varying = 0;
    for (const Argument& argument : arguments) varying += argument.may_vary;
    writer.loop(label(index, "all per example"), statement(entry, texts(std::nullopt, false)));
    for (std::size_t position = 0; position < arguments.size(); ++position) {
      if (!arguments[position].may_vary) continue;
      if (varying > 1)
        writer.loop(label(index, "argument " + std::to_string(position) + " per example"),
                    statement(entry, texts(position, false)));
      // an operand after the first as a per-example C++ number
      const bool operand = entry.param(position) == ArgKind::operand && position > 0;
      if (operand && !wants_bools(entry))
        writer.loop(label(index, "argument " + std::to_string(position) + " a C++ number"),
                    statement(entry, texts(position, true)));
      // a factory's per-example integers give an int64 tensor: `full({4, 3}, q_i)`
      if (entry.family == Family::factory && (entry.param(position) == ArgKind::scalar ||
                                              entry.param(position) == ArgKind::nested_list)) {
        std::vector<std::string> args = texts(std::nullopt, false);
        args[position] = entry.param(position) == ArgKind::scalar
                             ? "q_i"
                             : "{{q_i, q_i + 1, int64_t{7}}, {-q_i, int64_t{0}, 3 * q_i}}";
        writer.loop(label(index, "argument " + std::to_string(position) + " a C++ integer"),
                    statement(entry, args));
      }
    }
  }
  out << "}\n\nint main() {\n"
         "  const int64_t n = 4;\n"
         "  const Tensor grid = arange(n * 12).reshape({n, 3, 4}).to(kFloat);\n"
         "  const Tensor x = (grid * 0.37).sin() + 1.1;  // in [0.1, 2.1]: logs, roots, powers\n"
         "  const Tensor y = (grid * 0.61).cos() + 2.5;  // in [1.5, 3.5]: divisors\n"
         "  const Tensor mask = (grid * 0.83).sin() > 0;\n"
         "  const Tensor idx = remainder(arange(n * 12) * 7, 3).reshape({n, 3, 4});\n"
         "  const Tensor s = arange(n).to(kFloat) * 0.3 + 0.5;\n"
         "  const Tensor q = remainder(arange(n), 2);\n"
         "  run(n, x, y, mask, idx, s, q);\n}\n";
  return out ? 0 : 1;
}

int refused(const char* path) {
  std::ostringstream text;
  text << kPrelude << "void run(int64_t n, " << kInputs << ", Tensor& out) {\n";
  auto next_line = [&] {
    const std::string so_far = text.str();
    return 1 + std::count(so_far.begin(), so_far.end(), '\n');
  };
  std::vector<std::string> checks;
  for (std::size_t index = 0; index < kOpTable.size(); ++index) {
    const OpEntry& entry = kOpTable[index];
    if (entry.family == Family::refused || entry.rule == RuleId::item ||
        entry.rule == RuleId::loop_invariant)
      continue;
    const std::vector<Argument> arguments = arguments_of(entry);
    if (arguments.size() < entry.arity) continue;
    for (std::size_t position = 0; position < arguments.size(); ++position) {
      if (arguments[position].may_vary) continue;
      std::vector<std::string> args;
      for (std::size_t k = 0; k < arguments.size(); ++k)
        args.push_back(k == position ? refused_value(entry, position) : arguments[k].per_example);
      const std::string refused_call = call(entry, args);
      const Statement body = entry.rule == RuleId::metadata
                                 ? Statement{"", "x[i] * " + refused_call}
                                 : statement(entry, args);
      text << "  // " << label(index, "argument " + std::to_string(position) + " per example")
           << "\n#pragma vmap\n  for (int64_t i = 0; i < n; ++i) {\n";
      if ((body.before + body.result).find("s_i") != std::string::npos)
        text << "    float s_i = s[i].item<float>();\n";
      text << "    int64_t q_i = q[i].item<int64_t>();\n";
      // the error is at the line that holds the per-example value
      const std::string value = refused_value(entry, position);
      std::istringstream lines(body.before + "    out[i] = (" + body.result + ").sum();\n");
      bool found = false;
      for (std::string statement_line; std::getline(lines, statement_line);) {
        if (!found && statement_line.find(value) != std::string::npos) {
          found = true;
          const std::size_t written =
              entry.form == OpForm::free_function ? position + 1 : position;
          checks.push_back("// CHECK: {{.*}}.cpp:" + std::to_string(next_line()) +
                           ":{{[0-9]+}}: error: per-example value used as argument " +
                           std::to_string(written) + " of '" + std::string(entry.name) + "' (");
        }
        text << statement_line << "\n";
      }
      text << "  }\n";
    }
  }
  text << "}\n";
  for (const std::string& check : checks) text << check << "\n";
  std::ofstream out(path);
  out << text.str();
  return out ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "refused") return refused(argv[2]);
  if (argc == 4) return differential(std::stoi(argv[1]), std::stoi(argv[2]), argv[3]);
  std::cerr << "usage: vmap_generate_op_table_programs <group> <groups> <output.cpp>\n"
               "       vmap_generate_op_table_programs refused <output.cpp>\n";
  return 2;
}
