// Compares what a program printed as written with what it printed rewritten by
// clang-vmap: numbers with a decimal point or exponent within a relative tolerance
// (batched reductions may reorder float sums), every other token exactly.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmap::test {

struct output_token {
  std::string text;
  bool is_number = false;
  bool is_float = false; // has '.', an exponent, or is inf/nan
  double value = 0;
};

// Splits into numbers and single non-space characters; whitespace only separates.
std::vector<output_token> tokenize_output(std::string_view text);

// Floats agree when |a - b| <= relative * max(|a|, |b|) + absolute (the absolute
// part for values that are zero up to rounding); nan equals nan.
struct tolerance {
  double relative = 1e-4;
  double absolute = 1e-6;
};

// `output` without the "<file>.<ext>:<line>: " that starts a line where a rewritten program
// printed a vmap::Error from a batched loop (Note [Errors name the statement] in
// vmap/types.hpp): the loop as written has no such prefix, the rest must agree.
std::string without_statement_locations(std::string_view output);

// The first difference, described with its position, or nullopt when they agree.
std::optional<std::string> compare_outputs(std::string_view expected, std::string_view actual,
                                           tolerance tol = {});

}  // namespace vmap::test
