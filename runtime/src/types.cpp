// Printing of the small value types.
#include "internal.hpp"

#include <ostream>

namespace vmap {

std::ostream& operator<<(std::ostream& out, Dtype dtype) {
  switch (dtype) {
    case Dtype::Float32: return out << "Float";
    case Dtype::Float64: return out << "Double";
    case Dtype::Int32: return out << "Int";
    case Dtype::Int64: return out << "Long";
    case Dtype::Bool: return out << "Bool";
  }
  return out;
}

std::ostream& operator<<(std::ostream& out, Device device) {
  return out << (device == kCPU ? "cpu" : "cuda");
}

namespace detail {

std::string at_running_statement(const std::string& message) {
  const Statement& statement = running_statement;  // Note [Errors name the statement]
  if (statement.file == nullptr) return message;
  return std::string(statement.file) + ":" + std::to_string(statement.line) + ": " + message;
}

std::ostream& operator<<(std::ostream& out, const Scalar& value) {
  if (value.is_floating()) return out << value.to_double();
  if (value.is_bool()) return out << (value.to_bool() ? "true" : "false");
  return out << value.to_int64();
}

void Scalar::overflow(const char* op, bool floating, bool is_signed, size_t bytes) const {
  // The C++ type as LibTorch's message names it ("int", "int64_t", "float").
  const std::string bits = std::to_string(bytes * 8);
  const std::string type = floating     ? (bytes == 4 ? "float" : bytes == 8 ? "double" : "long double")
                           : !is_signed ? "uint" + bits + "_t"
                           : bytes == 4 ? "int"
                                        : "int" + bits + "_t";
  fail(op, "value cannot be converted to type ", type, " without overflow: ", *this);
}

std::ostream& operator<<(std::ostream& out, IntList list) {
  out << '[';
  for (size_t i = 0; i < list.size(); ++i) out << (i ? ", " : "") << list[i];
  return out << ']';
}

std::string shape_str(IntList sizes) {
  std::ostringstream out;
  out << sizes;
  return out.str();
}

}  // namespace detail
}  // namespace vmap
