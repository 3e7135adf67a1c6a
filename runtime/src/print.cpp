// operator<< with the output of LibTorch 1.13's at::print (line width 80): values converted to
// double, one format (integer, fixed with an optional common scale factor, or scientific)
// chosen per matrix, columns split to fit the line, a "[ CPUFloatType{2,3} ]" footer.
#include "internal.hpp"

#include <cmath>
#include <iomanip>
#include <ostream>

namespace vmap {
namespace {

constexpr int64_t line_width = 80;

struct Format {
  double scale = 1;
  int64_t width = 0;
};

// Restores the stream's number formatting when done.
class FormatGuard {
 public:
  explicit FormatGuard(std::ostream& out) : out_(out), saved_(nullptr) { saved_.copyfmt(out); }
  ~FormatGuard() { out_.copyfmt(saved_); }
  FormatGuard(const FormatGuard&) = delete;
  FormatGuard& operator=(const FormatGuard&) = delete;

 private:
  std::ostream& out_;
  std::ios saved_;
};

void default_float(std::ostream& out) { out.unsetf(std::ios_base::floatfield); }

// Chooses the number format for `values` (all of one matrix or vector) and sets it on out.
Format choose_format(std::ostream& out, const double* values, int64_t count) {
  if (count == 0) return {1, 0};
  bool integers = true;
  for (int64_t k = 0; k < count; ++k)
    if (std::isfinite(values[k]) && values[k] != std::ceil(values[k])) {
      integers = false;
      break;
    }
  int64_t first_finite = 0;
  while (first_finite < count && !std::isfinite(values[first_finite])) ++first_finite;
  double exp_min = 1, exp_max = 1;
  if (first_finite < count) {
    exp_min = std::fabs(values[first_finite]);
    exp_max = exp_min;
    for (int64_t k = first_finite; k < count; ++k) {
      const double magnitude = std::fabs(values[k]);
      if (!std::isfinite(magnitude)) continue;
      if (magnitude < exp_min) exp_min = magnitude;
      // As in LibTorch: the signed value is compared, so negative values never raise it.
      if (values[k] > exp_max) exp_max = magnitude;
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  Format format;
  if (integers) {
    if (exp_max > 9) {
      format.width = 11;
      out << std::scientific << std::setprecision(4);
    } else {
      format.width = static_cast<int64_t>(exp_max) + 1;
      default_float(out);
    }
    return format;
  }
  if (exp_max - exp_min > 4) {
    format.width = std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99 ? 12 : 11;
    out << std::scientific << std::setprecision(4);
    return format;
  }
  out << std::fixed << std::setprecision(4);
  if (exp_max > 5 || exp_max < 0) {
    format.width = 7;
    format.scale = std::pow(10, exp_max - 1);
  } else {
    format.width = exp_max == 0 ? 7 : static_cast<int64_t>(exp_max) + 6;
  }
  return format;
}

void print_scale(std::ostream& out, double scale) {
  FormatGuard guard(out);
  default_float(out);
  out << scale << " *\n";
}

void indent(std::ostream& out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out << ' ';
}

// A rows x columns block of doubles (row-major), split into column groups that fit a line.
void print_matrix(std::ostream& out, const double* values, int64_t rows, int64_t columns,
                  int64_t indentation) {
  const Format format = choose_format(out, values, rows * columns);
  indent(out, indentation);
  const int64_t per_line = (line_width - indentation) / (format.width + 1);
  int64_t first = 0;
  while (first < columns) {
    const int64_t last = first + per_line <= columns ? first + per_line - 1 : columns - 1;
    if (per_line < columns) {
      if (first != 0) out << '\n';
      out << "Columns " << first + 1 << " to " << last + 1;
      indent(out, indentation);
    }
    if (format.scale != 1) {
      print_scale(out, format.scale);
      indent(out, indentation);
    }
    for (int64_t row = 0; row < rows; ++row) {
      for (int64_t column = first; column <= last; ++column) {
        out << std::setw(static_cast<int>(format.width)) << values[row * columns + column] / format.scale;
        if (column != last) {
          out << ' ';
          continue;
        }
        out << '\n';
        if (row != rows - 1) {
          indent(out, indentation);
          if (format.scale != 1) out << ' ';
        }
      }
    }
    first = last + 1;
  }
}

// n-d (n > 2): one "(i,j,.,.) = " matrix per index of the leading dims.
void print_slices(std::ostream& out, const Tensor& tensor) {
  const int64_t leading = tensor.dim() - 2;
  const int64_t rows = tensor.size(-2), columns = tensor.size(-1);
  int64_t slices = 1;
  for (int64_t d = 0; d < leading; ++d) slices *= tensor.size(d);
  const double* values = tensor.data_ptr<double>();
  std::vector<int64_t> index(static_cast<size_t>(leading), 0);
  for (int64_t slice = 0; slice < slices; ++slice) {
    if (slice != 0) out << '\n';
    out << '(';
    for (int64_t i : index) out << i + 1 << ',';
    out << ".,.) = \n";
    int64_t offset = 0;
    for (int64_t d = 0; d < leading; ++d) offset = offset * tensor.size(d) + index[d];
    print_matrix(out, values + offset * rows * columns, rows, columns, 1);
    // The first leading dim varies fastest, as LibTorch counts.
    for (int64_t d = 0; d < leading; ++d) {
      if (++index[d] < tensor.size(d)) break;
      index[d] = 0;
    }
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) {
  FormatGuard guard(out);
  if (!tensor.defined()) return out << "[ Tensor (undefined) ]";
  const std::string type_name =
      std::string(tensor.device() == kCPU ? "CPU" : "CUDA") + [&] {
        std::ostringstream name;
        name << tensor.dtype();
        return name.str();
      }() + "Type";
  const Tensor values = tensor.to(kCPU).to(kFloat64).contiguous();
  const double* data = values.data_ptr<double>();
  if (values.dim() == 0) {
    default_float(out);
    out << data[0] << '\n' << "[ " << type_name << "{}";
  } else if (values.dim() == 1) {
    if (values.numel() > 0) {
      const Format format = choose_format(out, data, values.numel());
      if (format.scale != 1) print_scale(out, format.scale);
      for (int64_t k = 0; k < values.numel(); ++k)
        out << std::setw(static_cast<int>(format.width)) << data[k] / format.scale << '\n';
    }
    out << "[ " << type_name << '{' << values.size(0) << '}';
  } else {
    if (values.numel() > 0) {
      if (values.dim() == 2) print_matrix(out, data, values.size(0), values.size(1), 0);
      else print_slices(out, values);
    }
    out << "[ " << type_name << '{' << values.size(0);
    for (int64_t d = 1; d < values.dim(); ++d) out << ',' << values.size(d);
    out << '}';
  }
  return out << " ]";
}

}  // namespace vmap
