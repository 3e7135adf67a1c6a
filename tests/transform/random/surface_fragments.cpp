// The fragment generators of vmap_generate_program --surface (Case in surface_case.hpp): each
// returns the text of one form of the SPEC surface for a loop body, drawn from the case's own
// random stream.
#include "surface_case.hpp"

#include <string>
#include <vector>

namespace vmap_generator::surface_detail {

std::string Case::value() {
  return one_of({"x[i]", "(y[i] * 0.5)", "(x[i] - y[i])", "x3[i].sum(0)", "x[i].tanh()",
                 "x3[i][1]", "(x[i] * y[i] + 1.0)", "x.select(0, i).abs()",
                 "mv(w, y[i])", "n[i].to(kFloat)", "(k[i] * 2).to(kFloat)"});
}

std::string Case::increments() {
  if (!use("increment_condition")) return integer_arithmetic();
  const std::string type = one_of({"int64_t", "int"});
  const std::string limit = count();
  const std::string start = std::to_string(pick(-2, 2));
  std::string text = "    {\n      " + type + " c = " + start + ", s = 0;\n      const " +
                     type + " L = " + limit + ";\n";
  switch (pick(0, 9)) {
    case 0: text += "      while (c++ < L) s += c;\n"; break;
    case 1: text += "      while (++c < L) s += c;\n"; break;
    case 2: text += "      while (c-- > -L) s += c * c;\n"; break;
    case 3: text += "      do {\n        s += c;\n      } while (c++ < L);\n"; break;
    case 4: text += "      while ((c += 2) < L) s += c;\n"; break;
    case 5: text += "      while (s < 12 && c++ < L) s += c + 2;\n"; break;
    case 6: text += "      while (c++ < L || s < 4) s += 1 + (c > 0 ? c : -c);\n"; break;
    case 7: text += "      for (int q = 0; q++ < L && q < 9;) s += q;\n"; break;
    case 8:
      text += "      if (c++ < L) s += 10;\n      if (++c > 1 && c-- < L)\n"
              "        s += 100;\n      else\n        s -= 1;\n";
      break;
    default: text += "      while (--c > -L) s += 2;\n"; break;
  }
  return text + "      counts[i] = s;\n      longs[i][" + column() + "] = c;\n    }\n";
}

std::string Case::integer_arithmetic() {
  use("integer_arithmetic");
  const std::string c = column();
  return "    {\n      int64_t a = " + count() + " - 3;\n      longs[i][" + c +
         "] = a / 2 + a % 3 * 10;\n      a %= 4;\n      int b = k[i][" + column() +
         "].item<int>();\n      b /= 2;\n      counts[i] = a * 100 + b;\n    }\n";
}

std::string Case::unsigned_scalars() {
  if (!use("unsigned_arith")) return integer_arithmetic();
  std::string text = "    {\n      size_t u = static_cast<size_t>(" + count() +
                     " + 2);\n      size_t v = u - 3;\n      longs[i][" + column() +
                     "] = static_cast<int64_t>(v % 1000);\n      unsigned a = "
                     "static_cast<unsigned>(k[i][" + column() +
                     "].item<int>());\n      longs[i][" + column() +
                     "] = static_cast<int64_t>(a / 7u);\n";
  // With a size_t induction variable, `i - 1` wraps at 0 and `3 - i` past 3.
  text += "      counts[i] = static_cast<int64_t>((i - 1) % 7u) + static_cast<int64_t>((3 - i) "
          "/ 2);\n    }\n";
  return text;
}

std::string Case::control() {
  const std::string limit = std::to_string(pick(1, 6));
  switch (pick(0, 5)) {
    case 0:
      use("per_example_while");
      return "    {\n      int64_t c = " + count() + " * " + std::to_string(pick(1, 3)) +
             ";\n      while (c > 0) {\n        out[i] += x[i] * 0.25 + c;\n        --c;\n"
             "      }\n    }\n";
    case 1:
      use("per_example_do");
      return "    {\n      int64_t c = " + count() + ";\n      do {\n        ints[i] += c;\n"
             "        c -= 2;\n      } while (c > 0);\n    }\n";
    case 2:
      use("per_example_switch");
      return "    switch (" + count() + ") {\n    case -2:\n    case -1:\n      ints[i] -= 1;\n"
             "      break;\n    case 0:\n      ints[i] += 10;\n      [[fallthrough]];\n"
             "    case " + limit + ":\n      ints[i] += 100;\n      break;\n    default:\n"
             "      ints[i] *= 2;\n    }\n";
    case 3:
      use("per_example_if");
      return "    if (" + count() + " > " + std::to_string(pick(0, 4)) + " || " + count() +
             " == " + limit + ") {\n      out2[i] = " + value() + ";\n    }" +
             (chance(50) ? " else {\n      out2[i][" + column() + "] = -1.0;\n    }\n"
                         : std::string("\n"));
    case 4:
      use("break_in_plain_loop");
      return "    for (int q = 0; q < " + std::to_string(width) +
             "; ++q) {\n      if (n[i][q].item<int64_t>() > " + limit +
             ")\n        break;\n      counts[i] += q + 1;\n    }\n";
    default:
      use("continue_in_plain_loop");
      return "    for (int q = 0; q < " + std::to_string(width) +
             "; ++q) {\n      if (idx[i][q].item<int64_t>() % 2 == 0)\n        continue;\n"
             "      out[i][q] = y[i][q] * 2.0;\n    }\n";
  }
}

std::string Case::helper_call() {
  const std::string name = "helper" + std::to_string(helpers_++) + suffix();
  switch (pick(0, 7)) {
    case 0:
      use("helper_early_return");
      helpers_text_ += "static int64_t " + name +
                       "(int64_t v) {\n  if (v < 0)\n    return -v;\n  int64_t s = 0;\n"
                       "  while (v > 1) {\n    v = v % 2 == 0 ? v / 2 : 3 * v + 1;\n    ++s;\n"
                       "    if (s > 20)\n      return s;\n  }\n  return s;\n}\n\n";
      return "    counts[i] = " + name + "(" + count() + " + 3);\n";
    case 1:
      use("helper_switch");
      helpers_text_ += "static float " + name +
                       "(int64_t v) {\n  switch (v) {\n  case 0:\n    return 0.5f;\n"
                       "  case 1:\n  case 2:\n    return 1.5f;\n  default:\n    break;\n  }\n"
                       "  return -0.25f;\n}\n\n";
      return "    out[i] = x[i] * " + name + "(" + count() + ");\n";
    case 2:
      if (!use("helper_switch_returns")) return integer_arithmetic();
      helpers_text_ += "static int64_t " + name +
                       "(int64_t v) {\n  switch (v) {\n  case 0:\n    return 7;\n  case 3:\n"
                       "    return v * 5;\n  default:\n    return v - 1;\n  }\n}\n\n";
      return "    longs[i][" + column() + "] = " + name + "(" + count() + ");\n";
    case 3:
      if (!use("helper_while_true")) return integer_arithmetic();
      helpers_text_ += "static int64_t " + name +
                       "(int64_t v) {\n  while (true) {\n    if (v > 7)\n      return v;\n"
                       "    v = (v < 0 ? -v : v) * 2 + 1;\n  }\n}\n\n";
      return "    counts[i] = " + name + "(" + count() + ");\n";
    case 4:
      use("helper_tensor_early_return");
      helpers_text_ += "static Tensor " + name +
                       "(const Tensor& v, int64_t s) {\n  if (s > 2)\n    return v * 0.5;\n"
                       "  return v.abs() + 1.0;\n}\n\n";
      return "    out[i] = " + name + "(" + value() + ", " + count() + ");\n";
    case 5:
      use("helper_writes_handle");
      helpers_text_ += "static void " + name +
                       "(Tensor& slot, const Tensor& v) { slot += v * 0.25; }\n\n";
      return "    {\n      Tensor row = out[i];\n      " + name + "(row, " + value() +
             ");\n    }\n";
    case 6: {  // a kernel computes it, or it and a helper calling it with its own numbers
      use("helper_in_kernel");  // (fuse_helpers.cpp); with a per-example k, their clones
      helpers_text_ += "static Tensor " + name + "(const Tensor& v, double k) {\n" +
                       "  Tensor s = v * k - 1.0;\n  return s * s + v;\n}\n\n";
      const bool nested = chance(50);
      if (nested)
        helpers_text_ += "static Tensor " + name + "_of_two(const Tensor& a, const Tensor& b, "
                         "float k) {\n  return " + name + "(a - b, k * 2) * " + name +
                         "(b, 0.5);\n}\n\n";
      return "    out[i][" + column() + "] = " + name + (nested ? "_of_two(" + value() + ", " : "(") +
             value() + ", " + one_of({"0.5", "2", count()}) + ").sum() + 1;\n";
    }
    default:
      use("helper_reference_scalar");
      helpers_text_ += "static void " + name + "(" + scalar_ + "& v) { v = v * 2 + 1; }\n\n";
      if (scalar_ == "T")  // a template helper for a template case
        helpers_text_.insert(helpers_text_.rfind("static void " + name), "template <class T>\n");
      return "    {\n      " + scalar_ + " v = " + item("x[i][" + column() + "]") + ";\n      " +
             name + "(v);\n      out[i][" + column() + "] = v;\n    }\n";
  }
}

std::string Case::extremes() {
  const std::string bound = pick(0, 1) ? "std::fmax" : "std::fmin";
  switch (pick(0, 2)) {
    case 0:
      if (!use("fmax_nan")) return inner_loop();
      // sqrt of a negative entry is NaN: fmax and fmin return the other operand.
      return "    {\n      " + scalar_ + " e = -100;\n      for (int q = 0; q < " +
             std::to_string(width) + "; ++q)\n        e = " + bound + "(e, std::sqrt(" +
             item("x[i][q]") + "));\n      out[i][" + column() + "] = e;\n    }\n";
    case 1:
      use("std_max_scalar");
      return "    {\n      " + scalar_ + " e = " + item("x[i][0]") +
             ";\n      for (int q = 1; q < " + std::to_string(width) + "; ++q)\n        e = " +
             one_of({"std::max", "std::min"}) + "(e, " + item("x[i][q]") +
             ");\n      out[i][" + column() + "] = e;\n    }\n";
    default:
      use("fmax_finite");
      return "    out[i][" + column() + "] = " + bound + "(" + item("x[i][" + column() + "]") +
             ", " + item("y[i][" + column() + "]") + ");\n";
  }
}

std::string Case::reduction() {
  const std::vector<std::string> accumulators = {"acc", "peak", "sf", "sd", "si"};
  const std::string target = one_of(accumulators);
  if (!claim(target)) return items();
  const std::string e = value();
  if (target == "acc") {
    switch (pick(0, 4)) {
      case 0: use("acc_plus_equal"); return "    acc += " + e + ";\n";
      case 1: use("acc_minus_equal"); return "    acc -= " + e + ";\n";
      case 2: use("s_eq_s_plus_e"); rebinds_ = true; return "    acc = acc + " + e + ";\n";
      case 3: use("s_eq_e_plus_s"); rebinds_ = true; return "    acc = " + e + " + acc;\n";
      default: use("s_eq_s_minus_e"); rebinds_ = true; return "    acc = acc - " + e + ";\n";
    }
  }
  if (target == "peak") {
    use("maximum_rebinding");
    rebinds_ = true;
    return "    peak = " + one_of({"maximum", "minimum"}) + "(peak, " + e + ");\n";
  }
  if (target == "sf") {
    use("scalar_reduction");
    switch (pick(0, 2)) {
      case 0: return "    sf += x[i].abs().sum().item<float>();\n";
      case 1: return "    sf = sf + y[i].abs().sum().item<float>();\n";
      default:
        return "    sf = " + one_of({"std::max", "std::min"}) + "(sf, " +
               "x[i][" + column() + "].item<float>());\n";
    }
  }
  if (target == "sd") {
    use("scalar_reduction");
    return pick(0, 1) ? "    sd = sd + d[i].abs().sum().item<double>();\n"
                      : "    sd += d[i][" + column() + "].item<double>() * 0.5;\n";
  }
  use("integer_reduction");
  switch (pick(0, 2)) {
    case 0: return "    si += n[i].sum().item<int64_t>();\n";
    case 1: return "    si = si + k[i][" + column() + "].item<int>();\n";
    default: return "    si = std::max(si, n[i][" + column() + "].item<int64_t>() * 3);\n";
  }
}

std::string Case::nested() {
  const bool plain = chance(30);
  int start = chance(40) ? 1 : 0;
  const int store = pick(0, 4);
  const bool sub_index = store <= 2;
  std::string header = one_of({"j < x3.size(1)", "j < x3.size(1) - 1", "j <= x3.size(1) - 1",
                               "j < " + std::to_string(planes)});
  const bool partial = start > 0 || header == "j < x3.size(1) - 1";
  if (!plain && partial && sub_index && !use("nested_partial_subindex")) {
    start = 0;
    header = "j < x3.size(1)";
  }
  use(plain ? "plain_inner_loop_range" : partial ? "nested_partial" : "nested");
  const std::string c = column();
  std::string text = plain ? "" : "#pragma vmap\n";
  text += "    for (int64_t j = " + std::to_string(start) + "; " + header + "; ++j) {\n";
  switch (store) {
    case 0: text += "      o3[i][j][" + c + "] = x3[i][j].amax(0);\n"; break;
    case 1: text += "      o3[i][j].select(0, " + c + ") = x3[i][j].sum();\n"; break;
    case 2:
      use("store_through_view");
      text += "      Tensor v = o3[i][j];\n      v[" + c + "] = x3[i][j].mean();\n";
      break;
    case 3: text += "      o3[i][j] = x3[i][j] * 2.0 + m[j];\n"; break;
    default: text += "      o3[i][j] += m[j] * x[i];\n";
  }
  return text + "    }\n";
}

std::string Case::sub_index() {
  use("constant_sub_index");
  const std::string c = column();
  switch (pick(0, 3)) {
    case 0: return "    out[i][" + c + "] = " + value() + ".sum();\n";
    case 1: return "    out[i].select(0, " + c + ") = " + value() + ".amax(0);\n";
    case 2: return "    out.select(0, i)[" + c + "] = " + value() + ".mean();\n";
    default:
      use("store_through_view");
      return "    {\n      Tensor row = out[i];\n      row[" + c + "] = " + value() +
             ".amin(0);\n    }\n";
  }
}

std::string Case::dtypes() {
  const std::string c = column();
  switch (pick(0, 9)) {
    case 0: use("promotion_0d"); return "    od[i] = d[i] * x[i].sum();\n";
    case 1: use("promotion_0d"); return "    out[i] = x[i] * d[i].sum();\n";
    case 2: use("promotion_0d"); return "    ints[i] = k[i] + n[i].sum();\n";
    case 3: use("int64_int32"); return "    longs[i] = n[i] * k[i] + i;\n";
    case 4: use("bool_ops"); return "    flags[i] = (k[i] > 0) | (x[i] > 0.5);\n";
    case 5:
      use("bool_scalar");
      return "    {\n      bool z = " + item("x[i][" + c + "]") +
             " > 0.3f;\n      counts[i] = z ? 1 : 2;\n    }\n";
    case 6:
      if (!use("bool_from_scalar")) return "    flags[i] = logical_and(n[i] > 1, k[i] < 2);\n";
      return "    {\n      " + scalar_ + " v = " + item("x[i][" + c + "]") +
             ";\n      bool z = v;\n      counts[i] = z ? 3 : 4;\n    }\n";
    case 7:
      use("int32_item");
      return "    {\n      int s = k[i].sum().item<int>();\n      ints[i][" + c +
             "] = s * 2;\n    }\n";
    case 8:
      use("float64_item");
      return "    {\n      double dv = d[i].sum().item<double>();\n      od[i][" + c +
             "] = dv / 3.0;\n    }\n";
    default:
      if (use("full_like_dtype"))
        return "    ints[i] = full_like(k[i], n[i][" + c + "].item<int64_t>(), kInt32);\n";
      use("full_like_per_example");
      return "    out[i] = full_like(x[i], " + item("y[i][" + c + "]") + ");\n";
  }
}

std::string Case::items() {
  const std::string c = column();
  switch (pick(0, 6)) {
    // A lambda of the function, declared before the loop (Note [Lambdas the loop calls] in
    // transform/ast_util.h): of ops on a row, or of numbers.
    case 6: {
      use("lambda_helper");
      const std::string name = "lam" + std::to_string(++lambdas_);
      if (chance(50)) {
        prologue_ += "  const auto " + name +
                     " = [&](const Tensor& v, double s) { return mv(w, v) * s - v; };\n";
        return "    out2[i] = " + name + "(x[i], 0.5) + y[i];\n";
      }
      prologue_ += "  auto " + name + " = [](" + scalar_ + " v) { return v < 0 ? -v : v * 2; };\n";
      return "    od[i][" + c + "] = " + name + "(" + item("x[i][" + c + "]") + ");\n";
    }
    // Code only a scalar kernel runs (Note [Kernel-only code] in transform/analyse.h): bit
    // operators on a per-example int, standard functions of numbers beyond the op table's.
    case 4:
      use("kernel_only_bits");
      return "    {\n      int h = k[i][" + c + "].item<int>() - 3;\n      h ^= h << 2;\n" +
             "      ints[i][" + c + "] = (h >> 1) & 1023;\n    }\n";
    case 5:
      use("kernel_only_std");
      return "    {\n      " + scalar_ + " v = " + item("x[i][" + c + "]") +
             ";\n      counts[i] = std::lround(std::clamp(v * 10, " + scalar_ + "(-4.5), " +
             scalar_ + "(4.5))) + std::isnan(v);\n    }\n";
    case 0:
      use("data_dependent_store");
      return "    {\n      int64_t j = idx[i][" + c + "].item<int64_t>();\n      out[i][j] = x[i][(j + 1) % " +
             std::to_string(width) + "] * 2.0;\n    }\n";
    case 1:
      // `% x.size(0)` on an empty batch (fixed: a zero divisor of no dividends raises nothing).
      if (batch_ == 0 && !use("empty_batch_remainder")) return items();
      use("data_dependent_read");
      return "    out2[i] = x[idx[i][" + c + "].item<int64_t>() % x.size(0)] + y[i];\n";
    case 2:
      use("per_example_clamp");
      return "    {\n      " + scalar_ + " v = std::abs(" + item("x[i][" + c + "]") +
             ");\n      out[i] = clamp(x[i], -v, v + 0.5);\n    }\n";
    default:
      use("item_scalar");
      return "    {\n      " + scalar_ + " v = " + item("y[i][" + c + "]") +
             ";\n      out[i] = x[i] * v + std::sqrt(std::abs(v));\n    }\n";
  }
}

std::string Case::inner_loop() {
  const std::string w = std::to_string(width);
  switch (pick(0, 6)) {
    // Plain loops the tool may run as levels (Note [Plain loops as levels]): independent
    // trips, a reduction over them into a local of the example, two outputs, a read at
    // the trip's position of another dim, and an index computed from the trip.
    case 3:
      use("inner_loop_level_stores");
      return "    for (int64_t q = 0; q < " + w + "; ++q) {\n      out2[i][q] = x[i][q] * " +
             "y[i][q] + q;\n      ints[i][q] = q * 2 - " + column() + ";\n    }\n";
    case 4:
      use("inner_loop_level_reduction");
      return "    {\n      Tensor t = zeros({});\n      for (int64_t q = 0; q < " + w +
             "; ++q)\n        t += x[i][q] * y[i][q];\n      out[i][" + column() +
             "] = t;\n    }\n";
    case 5:
      use("inner_loop_level_other_dim");
      return std::string("    for (int64_t q = 0; q < 4; ++q)\n      o3[i][q] = ") +
             "x3[i].select(0, q) + x.select(1, q)[i];\n";
    case 6:
      use("inner_loop_level_computed_index");
      return "    for (int64_t q = 0; q < " + w + "; ++q)\n      out2[i][q] = x[i][(q + " +
             column() + ") % " + w + "] - q;\n";
    case 0:
      use("inner_loop_s_eq_s_plus_e");
      return "    {\n      " + scalar_ + " s = 0;\n      for (int q = 0; q < " +
             std::to_string(width) + "; ++q)\n        s = s + " + item("x[i][q]") + " * " +
             item("y[i][q]") + ";\n      out[i][" + column() + "] = s;\n    }\n";
    case 1:
      use("inner_loop_partial");
      return "    for (int q = 1; q < " + std::to_string(width - 1) +
             "; ++q)\n      out2[i][q] = x[i][q - 1] + x[i][q + 1];\n";
    default:
      use("inner_loop_tensor");
      return "    for (int q = 0; q < 3; ++q)\n      out2[i] = out2[i] * 0.5 + " + value() +
             " * q;\n";
  }
}

std::string Case::aliases() {
  switch (pick(0, 4)) {
    case 0:
      use("handle_copy_of_slot");
      return "    {\n      Tensor h = out[i];\n      h += " + value() + " * 0.5;\n    }\n";
    case 1:
      if (!claim("acc")) return items();
      use("reference_to_accumulator");
      return "    {\n      Tensor& r = acc;\n      r += " + value() + ";\n    }\n";
    case 2: {
      use("view_of_slot");
      const std::string c = std::to_string(pick(0, width - 1));
      return "    {\n      auto v = o3[i].select(1, " + c + ");\n      v.copy_(x3[i].select(1, " +
             c + ") * 2.0);\n    }\n";
    }
    case 3:
      use("const_reference_read");
      return "    {\n      const Tensor& cx = x[i];\n      out[i] = cx * cx.sum();\n    }\n";
    default:
      use("reference_to_local");
      return "    {\n      Tensor t = x[i] * 2.0;\n      Tensor& tr = t;\n      tr = tr - y[i];\n"
             "      tr *= 0.5;\n      out2[i] = t;\n    }\n";
  }
}

std::string Case::members() {
  switch (pick(0, 3)) {
    case 0:
      use("member_read");
      return "    out[i] = " + one_of({"mv(W_, x[i])", "matmul(this->W_, x[i])"}) + " * 0.5;\n";
    case 1:
      use("member_store");
      return pick(0, 1) ? "    out_[i] = x[i] * 2.0 + y[i];\n"
                        : "    this->out_[i][" + column() + "] = x[i].sum();\n";
    case 2:
      if (!claim("acc_")) return "    out_[i] = y[i].abs();\n";
      use("member_reduction");
      return pick(0, 1) ? "    acc_ += x[i];\n" : "    this->acc_ = this->acc_ + y[i].abs();\n";
    default:
      if (!claim("total_")) return "    out_[i] = x[i] - 1.0;\n";
      use("member_scalar_reduction");
      return "    total_ = total_ + x[i].abs().sum().item<float>();\n";
  }
}

std::string Case::preprocessor() {
  if (!use("preprocessor")) return control();
  return "#if defined(__clang__)\n    out[i] += 1.0;\n#else\n    out[i] += 2.0;\n#endif\n";
}

std::string Case::kernel_block(bool braced) {
  use(braced ? "kernel_block_braced" : "kernel_block");
  const std::string w = std::to_string(width);
  // j's index form: in [0, width) whatever j became.
  const std::string jj = "((j % " + w + " + " + w + ") % " + w + ")";
  std::string text = "      int64_t j = idx[i][" + column() +
                     "].item<int64_t>();\n      int64_t c = n[i][" + column() +
                     "].item<int64_t>();\n      " + scalar_ + " f = " +
                     item("x[i][" + column() + "]") + ";\n      double a = d[i][" + column() +
                     "].item<double>();\n";
  // Unsigned scalars in half the blocks: today they keep a body from being a kernel.
  unsigned_ = chance(50);
  if (unsigned_)
    text += "      size_t u = static_cast<size_t>(c + 2);\n      unsigned v = "
            "static_cast<unsigned>(k[i][" + column() + "].item<int>());\n";
  const std::string unsigned_terms =
      unsigned_ ? " + static_cast<double>(u % 1000u) + static_cast<double>(v % 1000u)" : "";
  const int statements = pick(3, 7);
  for (int s = 0; s < statements; ++s) text += kernel_statement(jj);
  // One store ends a region a scalar kernel takes today; several, one kernel with several
  // stores (or a region each).
  if (chance(40))
    text += "      od[i][" + column() + "] = f + a * 0.5 + static_cast<double>(c * 10 + " + jj +
            ")" + unsigned_terms + ";\n";
  else
    text += "      out[i][" + column() + "] = f;\n      od[i][" + column() +
            "] = a;\n      counts[i] = c * 10 + " + jj + ";\n" +
            (unsigned_ ? "      longs[i][" + column() +
                             "] = static_cast<int64_t>(u % 1000u) * 1000 + "
                             "static_cast<int64_t>(v % 1000u);\n"
                       : std::string());
  return braced ? "    {\n" + text + "    }\n" : text;
}

std::string Case::kernel_statement(const std::string& jj) {
  const std::string w = std::to_string(width);
  const std::string q0 = std::to_string(pick(0, width - 1));
  switch (pick(0, 11)) {
    case 0:
      use("kernel_computed_index");
      return "      f = f + " + item("x[i][(" + jj + " + " + q0 + ") % " + w + "]") +
             " * 0.5f;\n      a = a * 0.5 + d[i][(" + jj + " * 3 + " + q0 + ") % " + w +
             "].item<double>();\n";
    case 1:
      use("kernel_if_else");
      return "      if (c > " + std::to_string(pick(-1, 4)) + ") {\n        f = f * 2;\n"
             "        ++j;\n      } else if (j == " + q0 + ") {\n        a -= 1.0;\n"
             "      } else {\n        c = c - 1;\n      }\n";
    case 2:
      use("kernel_increment_condition");
      switch (pick(0, 2)) {
        case 0:
          return "      {\n        int64_t q = 0;\n        while (q++ < c)\n          f = f + " +
                 item("y[i][q % " + w + "]") + ";\n      }\n";
        case 1:
          return "      while (c-- > 0)\n        a = a + 0.25;\n";
        default:
          return "      {\n        int64_t q = " + q0 + ";\n        do {\n          j += 1;\n"
                 "        } while (++q < c && q < 9);\n      }\n";
      }
    case 3:
      use("kernel_switch");
      return "      switch (c) {\n      case 0:\n        f = -f;\n        break;\n"
             "      case 1:\n      case 2:\n        a = a * 2.0;\n        break;\n"
             "      case 3:\n        j = j + 1;\n        [[fallthrough]];\n      default:\n"
             "        c += 1;\n      }\n";
    case 4: {
      use("kernel_scalar_helper");
      const std::string name = "khelper" + std::to_string(helpers_++) + suffix();
      if (pick(0, 1)) {
        helpers_text_ += "static double " + name +
                         "(double value, int64_t steps) {\n  if (steps < 0)\n"
                         "    return value * 0.5;\n  double r = value;\n"
                         "  for (int64_t q = 0; q < steps % 4; ++q)\n"
                         "    r = r * 0.75 + 0.25;\n  return r;\n}\n\n";
        return "      a = " + name + "(a, c);\n";
      }
      helpers_text_ += "static int64_t " + name +
                       "(int64_t value) {\n  switch (value % 3) {\n  case 0:\n"
                       "    return value / 2;\n  case 1:\n    return value + 1;\n"
                       "  default:\n    return -value;\n  }\n}\n\n";
      return "      c = " + name + "(c);\n";
    }
    case 5:
      if (!unsigned_) return kernel_statement(jj);
      use("kernel_size_t");
      return pick(0, 1) ? "      u = u * 3 + static_cast<size_t>(" + jj +
                              ");\n      u = u - 5;\n      if (u > 7)\n        u = u / 2;\n"
                        : "      a = a + static_cast<double>(u % 17);\n      f = f + " +
                              item("y[i][u % " + w + "]") + ";\n";
    case 6:
      if (!unsigned_) return kernel_statement(jj);
      use("kernel_unsigned");
      return pick(0, 1) ? "      v = v * 2654435761u + 7u;\n"
                        : "      v = v / 3u + v % 5u;\n";
    case 7:
      use("kernel_reductions_as_assignments");
      return "      {\n        " + scalar_ + " s = 0;\n        " + scalar_ + " m = " +
             item("x[i][0]") + ";\n        double e = a;\n        for (int q = 0; q < " + w +
             "; ++q) {\n          s = s + " + item("x[i][q]") + " * " + item("y[i][q]") +
             ";\n          m = std::" + one_of({"max", "min"}) + "(m, " + item("y[i][q]") +
             ");\n          e = std::max(e, d[i][q].item<double>());\n        }\n"
             "        f = f + s + m;\n        a = e;\n      }\n";
    case 8:
      use("kernel_element_stores");
      return pick(0, 1) ? "      for (int q = 0; q < " + w + "; ++q)\n        out2[i][q] = x[i][(q + " +
                              jj + ") % " + w + "];\n"
                        : "      for (int q = 0; q < " + w + "; ++q)\n        ints[i][q] = k[i][(q * 2 + " +
                              jj + ") % " + w + "].item<int>() + q;\n";
    case 9:
      use("kernel_increment_in_and");
      return "      {\n        int64_t q = 0;\n        while (q < " + w +
             " && n[i][q].item<int64_t>() > 0 && q++ < 4)\n          c += 1;\n      }\n";
    case 10:
      use("kernel_float64_inner_loop");
      return "      for (int q = 0; q < " + w + "; ++q) {\n        if (n[i][q].item<int64_t>() % 2 == 0)\n"
             "          continue;\n        a = a + d[i][q].item<double>() * q;\n      }\n";
    default:
      use("kernel_mixed_types");
      return "      a = a + f * 0.5 + static_cast<double>(c) / 4.0;\n      f = static_cast<" +
             scalar_ + ">(a * 0.25);\n";
  }
}

std::string Case::kept_values() {
  const std::string c = column(), c2 = column();
  switch (pick(0, 4)) {
    case 0:
      use("item_kept_across_write");
      return "    {\n      " + scalar_ + " a = " + item("out2[i][" + c + "]") + ";\n      out2[i][" +
             c + "] = out2[i][" + c2 + "] * 2.0;\n      out2[i][" + c2 + "] = a + 1;\n    }\n";
    case 1:
      use("masked_index_ops");
      return "    {\n      const int64_t p = n[i][" + c + "].item<int64_t>();\n      if (p >= 0 && " +
             "p < x.size(1))\n        out2[i][" + c2 + "] = x[i].gather(0, n[i].narrow(0, " + c +
             ", 1)).sum() +\n                     x[i].index_select(0, n[i].narrow(0, " + c +
             ", 1)).sum();\n    }\n";
    case 2:
      use("masked_integer_remainder");
      return "    {\n      const int64_t q = n[i][" + c + "].item<int64_t>();\n      longs[i] = q == 0 " +
             "? n[i] : n[i].remainder(q) + n[i].floor_divide(q);\n    }\n";
    case 3:
      use("number_into_int_slot");
      return "    ints[i][" + c + "] = " + item("x[i][" + c2 + "]") + " * 100;\n";
    default:
      use("slot_handle_rebound_then_read");
      return "    {\n      Tensor r = out[i];\n      if (" + item("x[i][" + c + "]") +
             " > 0.5) r = r * 2.0 + y[i];\n      out2[i] = r - 0.25;\n    }\n";
  }
}

// An op's number argument that differs per example (issue 31's fifth hunt: LibTorch's checks
// and promotions of a Scalar were lost), and a store at a per-example negative index.
std::string Case::scalar_arguments() {
  const std::string c = column(), c2 = column();
  switch (pick(0, 7)) {
    case 0:
      use("negative_index_store");
      return "    {\n      const int64_t p = " + count() + " - 3;\n      out2[i][p] = x[i].sum();\n"
             "    }\n";
    case 1:
      use("where_of_numbers");
      return "    {\n      const double dv = " + item("y[i][" + c + "]") +
             " * 1e3;\n      od[i] = where(x[i] > 0, dv, 0.0);\n    }\n";
    case 2:
      use("per_example_clamp");
      return "    out[i] = x[i].clamp(" + item("y[i][" + c + "]") + " - 0.5, " +
             item("y[i][" + c2 + "]") + " + 0.5);\n";
    case 3:
      use("per_example_exponent");
      return "    {\n      const int64_t e = " + count() +
             ";\n      if (e >= 0) longs[i] = n[i].pow(e);\n      out[i] = x[i].abs().pow(e);\n"
             "    }\n";
    case 4:
      use("per_example_alpha");
      return "    ints[i] = add(k[i], k[i], " + count() + ");\n";
    case 5:
      use("per_example_fill_value");
      return "    out[i] = x[i].masked_fill(x[i] > 0.5, " + item("y[i][" + c + "]") + ");\n";
    case 6:
      use("per_example_lerp_weight");
      return "    out2[i] = x[i].lerp(y[i], " + item("x[i][" + c + "]") + ");\n";
    default:
      use("tensor_conditional");
      return "    out[i] = " + item("x[i][" + c + "]") + " > 0 ? x[i] : y[i] * 2.0;\n";
  }
}

std::string Case::fragment() {
  if (context_ == Context::member && chance(35)) return members();
  if (context_ == Context::function_template && chance(20) && use("template_item"))
    // Dependent on T as written (so `.template item`), or not.
    return pick(0, 1) ? "    counts[i] = (x[i] * 2.0).gt(0.5).sum().item<int64_t>();\n"
                      : "    {\n      T v = " + item("y[i][" + column() + "]") +
                            ";\n      counts[i] = (x[i] * v).gt(0.5).sum().template "
                            "item<int64_t>();\n    }\n";
  switch (pick(0, 17)) {
    case 17: return scalar_arguments();
    case 16: return kept_values();
    case 0: return increments();
    case 1: return integer_arithmetic();
    case 2: return unsigned_scalars();
    case 3: case 4: return control();
    case 5: return helper_call();
    case 6: return extremes();
    case 7: return reduction();
    case 8: return nested();
    case 9: return sub_index();
    case 10: return dtypes();
    case 11: return items();
    case 12: return inner_loop();
    case 13: return chance(90) ? aliases() : preprocessor();
    case 14:
      if (chance(50)) {
        use("global_read");
        uses_global_ = true;
        return "    out2[i] = y[i] + global" + suffix() + "[" + column() + "];\n";
      }
      [[fallthrough]];
    case 15:
      if (chance(40)) return reached_elsewhere();
      return chance(50) ? scalar_meaning() : reduction();
    default: return chance(50) ? reduction() : sub_index();
  }
}

std::string Case::scalar_meaning() {
  const std::string v = "k[i][" + column() + "].item<int>()";
  const std::string c = "longs[i][" + column() + "]";
  switch (pick(0, 6)) {
    case 5:
      use("same_width_unsigned");
      return "    {\n      int v = " + v + ";\n      unsigned u = v;\n      int s = u;\n"
             "      uint16_t w = v * 9000;\n      short t = w;\n      " + c +
             " = s;\n      counts[i] = t;\n    }\n";
    case 6: {
      use("overloaded_helper");
      const std::string name = "overloaded" + std::to_string(helpers_++) + suffix();
      helpers_text_ += "static int " + name + "(int a) { return a / 2; }\nstatic double " +
                       name + "(double a) { return a / 2; }\n\n";
      return "    {\n      int v = " + v + ";\n      " + c + " = " + name +
             "(v) * 10;\n      od[i][" + column() + "] = " + name +
             "(static_cast<double>(v));\n    }\n";
    }
    case 0:
      use("narrow_signed");
      return "    {\n      int v = " + v + ";\n      short s = v * 15000;\n      s = s + 9000;\n"
             "      " + c + " = s;\n      counts[i] = static_cast<short>(v * 12000 - 3);\n    }\n";
    case 1:
      use("guarded_division");
      return "    {\n      int v = " + v + ";\n      int r = v != 0 ? 100 / v : -1;\n"
             "      if (v != 0 && 7 % v == 0)\n        r += 1000;\n      " + c + " = r;\n    }\n";
    case 2:
      use("bool_arithmetic");
      return "    {\n      bool b = " + count() + " > 1;\n      bool e = " + v + ";\n      " + c +
             " = b + e * 2 + (b ? 3 : 4) * 10 + !e;\n    }\n";
    case 3:
      use("float_plus_double");
      return "    {\n      float f = static_cast<float>(" + count() + ") + 16777216.0f;\n      " + c +
             " = static_cast<int64_t>(f + 1.0);\n    }\n";
    default:
      use("negative_divisor");
      return "    {\n      int64_t a = " + count() + " - 3;\n      " + c +
             " = a / -4 * 100 + a % -4;\n    }\n";
  }
}

std::string Case::reached_elsewhere() {
  const std::string name = "helper" + std::to_string(helpers_++) + suffix();
  const std::string tensor = "gacc" + suffix(), number = "gbias" + suffix();
  switch (pick(0, 3)) {
    case 0:
      if (!claim("acc")) break;
      use("helper_reads_global_acc");
      reach_ |= reach_tensor;
      helpers_text_ += "static Tensor " + name + "(const Tensor& v) {\n  return v * (" +
                       tensor + ".sum() * 0.125 + 1.0);\n}\n\n";
      return "    acc += " + name + "(" + value() + ");\n";
    case 1:
      if (!claim("sd")) break;
      use("helper_reads_global_scalar");
      reach_ |= reach_scalar;
      helpers_text_ += "static double " + name + "(double v) {\n  return v * 0.5 + " +
                       number + ";\n}\n\n";
      return "    sd += " + name + "(d[i][" + column() + "].item<double>());\n";
    case 2:
      if (context_ != Context::member || !claim("sf") || !claim("total_")) break;
      use("member_scalar_read");
      reach_ |= reach_member;
      return "    sf += " + item("x[i][" + column() + "]") + " * total_;\n";
    default:
      use("helper_reads_loop_global");
      reach_ |= reach_tensor;
      helpers_text_ += "static Tensor " + name + "(const Tensor& v) {\n  return v + " +
                       tensor + " * 0.5;\n}\n\n";
      return "    " + tensor + " += " + name + "(" + value() + ");\n";
  }
  return "    out2[i] = " + value() + " * 0.5;\n";
}

}  // namespace vmap_generator::surface_detail
