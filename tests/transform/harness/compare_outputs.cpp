#include "compare_outputs.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace vmap::test {
namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// Length of the number starting at text[pos] ([-+]digits[.digits][e[-+]digits], or
// [-+]inf / nan as whole words), 0 if none starts there.
size_t number_length(std::string_view text, size_t pos) {
  size_t end = pos;
  if (end < text.size() && (text[end] == '-' || text[end] == '+')) ++end;
  for (std::string_view word : {"inf", "nan"}) {
    if (text.substr(end, word.size()) == word &&
        (end + word.size() == text.size() || !is_alpha(text[end + word.size()])))
      return end + word.size() - pos;
  }
  size_t digits_start = end;
  while (end < text.size() && is_digit(text[end])) ++end;
  bool has_digits = end > digits_start;
  if (end < text.size() && text[end] == '.') {
    size_t fraction_start = ++end;
    while (end < text.size() && is_digit(text[end])) ++end;
    has_digits = has_digits || end > fraction_start;
  }
  if (!has_digits) return 0;
  if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
    size_t exponent = end + 1;
    if (exponent < text.size() && (text[exponent] == '-' || text[exponent] == '+')) ++exponent;
    if (exponent < text.size() && is_digit(text[exponent])) {
      end = exponent;
      while (end < text.size() && is_digit(text[end])) ++end;
    }
  }
  return end - pos;
}

bool numbers_agree(const output_token& a, const output_token& b, tolerance tol) {
  if (!a.is_float && !b.is_float) return a.text == b.text;
  if (std::isnan(a.value) || std::isnan(b.value)) return std::isnan(a.value) && std::isnan(b.value);
  if (std::isinf(a.value) || std::isinf(b.value)) return a.value == b.value;
  double scale = std::max(std::fabs(a.value), std::fabs(b.value));
  return std::fabs(a.value - b.value) <= tol.relative * scale + tol.absolute;
}

}  // namespace

std::vector<output_token> tokenize_output(std::string_view text) {
  std::vector<output_token> tokens;
  size_t pos = 0;
  while (pos < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[pos]))) {
      ++pos;
      continue;
    }
    if (size_t length = number_length(text, pos); length > 0) {
      output_token token{std::string(text.substr(pos, length)), true, false, 0};
      token.is_float = token.text.find_first_of(".eEin") != std::string::npos;
      token.value = std::strtod(token.text.c_str(), nullptr);
      tokens.push_back(std::move(token));
      pos += length;
      continue;
    }
    tokens.push_back({std::string(1, text[pos]), false, false, 0});
    ++pos;
  }
  return tokens;
}

std::string without_statement_locations(std::string_view output) {
  static const std::regex location(R"(^[^\s:]+\.(cpp|cc|cxx|hpp|hh|h):[0-9]+: )",
                                   std::regex::multiline);
  return std::regex_replace(std::string(output), location, "");
}

std::optional<std::string> compare_outputs(std::string_view expected, std::string_view actual,
                                           tolerance tol) {
  std::vector<output_token> want = tokenize_output(expected);
  std::vector<output_token> got = tokenize_output(actual);
  for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
    bool agree = want[i].is_number && got[i].is_number ? numbers_agree(want[i], got[i], tol)
                                                       : want[i].text == got[i].text;
    if (!agree)
      return "token " + std::to_string(i) + ": expected '" + want[i].text + "', got '" +
             got[i].text + "'";
  }
  if (want.size() != got.size())
    return "expected " + std::to_string(want.size()) + " tokens, got " +
           std::to_string(got.size());
  return std::nullopt;
}

}  // namespace vmap::test
