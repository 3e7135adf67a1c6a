// vmap_generate_program --surface (issue 31): programs over the whole SPEC surface, sections
// 1-7, many independent loops to a program so that one pair of compiles tests many loops.
//
// A program is a list of cases (Case, surface_case.hpp: its assembly here, its fragment generators
// in surface_fragments.cpp). A case is one function holding a `#pragma vmap` loop (a free function,
// a member function, a lambda's body, or a function template instantiated for float and double),
// the same-file helpers it calls, and a runner that builds its own inputs (its own batch size: 0, 1
// or more; contiguous, transposed, sliced or expanded), calls it, and prints every output,
// accumulator and handle it could have written. A case draws from its own random stream (the seed
// and the case's number), so `--only=<case>` writes the same case alone: the first step of reducing
// a failing program.
//
// The loop body is 2-5 fragments, each one form of the surface: the increment forms in conditions,
// per-example while/do/switch/if, helpers with early returns, switch and while, partial ranges and
// nested vmaps with constant sub-index stores, aliasing through references, handle copies and
// views, the five dtypes and 0-d promotion, size_t and unsigned scalars, std::fmax/std::max,
// `.item()` scalars and data-dependent indices, plain inner loops, reductions written as `s = s +
// e`, members, globals, lambda captures. About a third of the cases (drawn from a stream of their
// own) are instead 1-2 blocks of C++ scalars alone (kernel_block: the bodies compiled scalar
// kernels take), sometimes followed by one fragment. The caller may bind arguments so that they
// alias (a handle copy of an accumulator, two outputs of one buffer, an accumulator that is a row
// of an input, an expanded output, an output that is a member or a global the loop reads).
//
// Every form is valid per SPEC, and the program as written is deterministic and finite: the tool
// may refuse a loop (a warning under --keep-going, the loop left as written), but a loop it
// rewrites must print what it prints as written. Values stay away from ties: conditions compare
// integers, and float scalar sums add non-negative terms.
//
// The forms behind open defects (KNOWN.md) carry a name in `known_forms`; --avoid-known
// leaves them out, so that the CI slice stays green while they are open. Delete a name there
// when its defect is fixed.
#include "surface_case.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace vmap_generator {
namespace surface_detail {

const std::set<std::string>& known_forms() {
  static const std::set<std::string> forms = {};
  return forms;
}

std::string Case::loop_header() {
  const std::string type = one_of({"int64_t", "int", "size_t", "auto"});
  const bool unsigned_index = type == "size_t";
  const int start = chance(25) ? 1 : 0;
  std::string bound;
  if (unsigned_index) {
    bound = "i < static_cast<size_t>(x.size(0))";
    if (start == 0 && chance(25)) bound = "i != static_cast<size_t>(x.size(0))";
  } else {
    bound = one_of({"i < x.size(0)", "i <= x.size(0) - 1", "i < x.size(0) - 1"});
    if (start == 0 && chance(20)) bound = "i != x.size(0)";
  }
  if (start > 0 || bound.find("- 1") != std::string::npos) use("outer_partial_range");
  return "#pragma vmap\n  for (" + type + " i = " + std::to_string(start) + "; " + bound + "; " +
         one_of({"++i", "i++", "i += 1"}) + ") {\n";
}

void Case::generate() {
  const int draw = pick(0, 99);
  context_ = draw < 40   ? Context::function
             : draw < 60 ? Context::member
             : draw < 80 ? Context::lambda
                         : Context::function_template;
  if (context_ == Context::function_template) scalar_ = "T";
  static const std::vector<int> batches = {0, 1, 1, 2, 3, 5, 5, 5, 6, 7};
  batch_ = batches[static_cast<size_t>(pick(0, static_cast<int>(batches.size()) - 1))];

  prologue_.clear();
  std::string body = loop_header();
  // A case of scalar blocks (compiled kernels), drawn from a stream of its own so that the
  // other cases keep the text they had before these forms.
  std::seed_seq kernel_seed{seed_, static_cast<uint32_t>(id_), 26u};
  std::mt19937 kernel_draw(kernel_seed);
  if (std::uniform_int_distribution<int>(1, 100)(kernel_draw) <= 35) {
    const int blocks = pick(1, 2);
    for (int b = 0; b < blocks; ++b) body += kernel_block(b > 0);
    if (chance(30)) body += fragment();
  } else {
    const int fragments = pick(2, 5);
    for (int f = 0; f < fragments; ++f) body += fragment();
  }
  body = prologue_ + body + "  }\n";

  const std::string name = "case" + std::to_string(id_);
  std::string function;
  // An `.item<...>()` in a template: the open defect behind template_item. Avoided, the case
  // becomes a function with T = float.
  if (context_ == Context::function_template && body.find(".item<") != std::string::npos &&
      !use("template_item")) {
    context_ = Context::function;
    body = "  using T = float;\n" + body;
  }
  switch (context_) {
    case Context::function:
      use("free_function");
      function = "static void " + name + "(" + parameters + ") {\n" + body + "}\n";
      break;
    case Context::function_template:
      use("function_template");
      function = "template <class T>\nstatic void " + name + "(" + parameters + ") {\n" + body +
                 "}\n";
      break;
    case Context::lambda: {
      // A copy capture copies the handles: a write through one writes the caller's tensor,
      // a rebinding (`acc = acc + e`) rebinds the lambda's copy only.
      // A rebinding through a copy is the open defect behind rebinding_handle_copy.
      const bool copies = chance(35) && (!rebinds_ || use("rebinding_handle_copy"));
      use(copies ? "lambda_copy_capture" : "lambda_reference_capture");
      function = "static void " + name + "(" + parameters + ") {\n  auto body = " +
                 (copies ? "[=, &sf, &sd, &si]() mutable" : "[&]") + " {\n" + body +
                 "  };\n  body();\n}\n";
      break;
    }
    case Context::member:
      use("member_function");
      function = "struct Case" + std::to_string(id_) +
                 " {\n  Tensor W_, out_, acc_;\n  float total_ = 0.0f;\n\n  void run(" +
                 parameters + ") {\n" + body + "  }\n};\n";
      break;
  }
  write_runner();
  std::string comment = "// case " + std::to_string(id_) + ", forms:";
  for (const std::string& form : forms_) comment += " " + form;
  if (uses_global_) helpers_text_ += "static Tensor global" + suffix() + ";\n\n";
  // Before the helpers that read them.
  if (reach_ & reach_tensor)
    helpers_text_ = "static Tensor gacc" + suffix() + ";\n\n" + helpers_text_;
  if (reach_ & reach_scalar)
    helpers_text_ = "static double gbias" + suffix() + ";\n\n" + helpers_text_;
  definitions_ = comment + "\n" + helpers_text_ + function + "\n";
}

std::string Case::call_block(const std::string& callee) {
  std::string text = "  {\n";
  std::vector<std::string> dumps = {"out", "out2", "od", "o3", "ints", "longs", "counts",
                                    "flags", "acc", "peak"};
  std::string x_argument = "x";
  const bool square = batch_ == width;
  const int alias = pick(0, 9);
  std::string out_declaration = chance(20) ? "ones({" + std::to_string(width) + ", B}).t()"
                                           : "ones({B, " + std::to_string(width) + "})";
  if (alias == 0 && use("expanded_output"))
    out_declaration = "ones({" + std::to_string(width) + "}).expand({B, " +
                      std::to_string(width) + "})";
  text += "    Tensor out = " + out_declaration + ";\n";
  if (alias == 1 && square && use("outputs_share_buffer"))
    text += "    Tensor out2 = out.t();\n";
  else
    text += "    Tensor out2 = full({B, " + std::to_string(width) + "}, 0.5);\n";
  text += "    Tensor od = zeros({B, 5}, kDouble), o3 = zeros({B, 4, 5});\n"
          "    Tensor ints = full({B, 5}, 7, kInt), longs = full({B, 5}, -1, kInt64);\n"
          "    Tensor counts = zeros({B}, kInt64), flags = zeros({B, 5}, kBool);\n";
  // A row of x needs a row: none in an empty batch.
  if (alias == 2 && batch_ > 0 && claimed_.count("acc") && use("acc_row_of_input")) {
    text += "    Tensor xs = x.clone();\n    Tensor acc = xs[0];\n";
    x_argument = "xs";
    dumps.push_back("xs");
  } else {
    text += "    Tensor acc = zeros({5});\n";
  }
  text += "    Tensor peak = full({5}, 0.25);\n    float sf = 0.0f;\n    double sd = 0.0;\n"
          "    int64_t si = 0;\n";
  if (alias <= 5 && rebinds_ && use("rebinding_handle_copy")) {
    text += "    Tensor acc_before = acc, peak_before = peak;\n";
    dumps.insert(dumps.end(), {"acc_before", "peak_before"});
  }
  std::string out_argument = "out", out2_argument = "out2";
  std::string acc_argument = "acc", sf_argument = "sf", sd_argument = "sd";
  if (reach_ & reach_tensor) {
    text += "    gacc" + suffix() + " = full({5}, 0.5);\n";
    if (chance(50) && use("acc_is_global_a_helper_reads")) acc_argument = "gacc" + suffix();
    dumps.push_back("gacc" + suffix());
  }
  if (reach_ & reach_scalar) {
    text += "    gbias" + suffix() + " = 0.25;\n";
    if (chance(50) && use("sd_is_global_a_helper_reads")) sd_argument = "gbias" + suffix();
  }
  if (uses_global_) {
    // A global the loop reads, which the caller may bind to an output as well.
    text += "    global" + suffix() + " = invariant(5, 0.5).clone();\n";
    if (alias == 4 && square && use("global_overlap")) out2_argument = "global" + suffix();
    // Or the global and out2 are from_blob tensors over one buffer, a row apart: storages
    // of their own, the same bytes.
    if (alias == 6 && use("blob_overlap")) {
      text += "    std::vector<float> blob(static_cast<size_t>(B + 6) * 5, 0.5f);\n"
              "    global" + suffix() + " = from_blob(blob.data() + 5, {5, 5});\n"
              "    global" + suffix() + ".copy_(invariant(5, 0.5));\n"
              "    Tensor blob_out2 = from_blob(blob.data(), {B, 5});\n";
      out2_argument = "blob_out2";
      dumps.push_back("blob_out2");
    }
    dumps.push_back("global" + suffix());
  }
  if (context_ == Context::member) {
    text += "    Case" + std::to_string(id_) + " object{w.clone(), zeros({B, 5}), zeros({5})};\n";
    if (alias == 3 && square && use("member_overlap")) out_argument = "object.W_";
    if ((reach_ & reach_member) && chance(50) && use("sf_is_member_the_loop_reads"))
      sf_argument = "object.total_";
    dumps.insert(dumps.end(), {"object.W_", "object.out_", "object.acc_"});
  }
  text += "    try {\n      " + callee + "(" + x_argument + ", y, d, n, k, idx, x3, w, m, " +
          out_argument + ", " + out2_argument + ", od, o3, ints, longs, counts, flags, " +
          acc_argument + ", peak, " + sf_argument + ", " + sd_argument +
          ", si);\n    } catch (const std::exception&) {\n      std::printf(\"threw\\n\");\n"
          "    }\n";
  for (const std::string& dumped : dumps)
    text += "    dump(\"" + dumped + "\", " + dumped + ");\n";
  if (out2_argument == "blob_out2")  // the buffer ends with the block
    text += "    global" + suffix() + " = Tensor();\n";
  text += "    std::printf(\"sf %.9g sd %.9g si %lld\\n\", sf, sd, static_cast<long long>(si));\n";
  if (context_ == Context::member)
    text += "    std::printf(\"total_ %.9g\\n\", object.total_);\n";
  if (reach_ & reach_scalar)
    text += "    std::printf(\"gbias %.9g\\n\", gbias" + suffix() + ");\n";
  return text + "  }\n";
}

void Case::write_runner() {
  auto layout = [&] { return std::to_string(pick(0, 9) < 5 ? 0 : pick(1, 3)); };
  auto phase = [&] { return std::to_string(pick(11, 97)) + "e-2"; };
  if (layout() != "0") use("non_contiguous_inputs");
  std::string text = "static void run_case" + std::to_string(id_) +
                     "() {\n  std::printf(\"case " + std::to_string(id_) +
                     "\\n\");\n  const int64_t B = " + std::to_string(batch_) + ";\n";
  if (batch_ <= 1) use(batch_ == 0 ? "zero_size_batch" : "size_one_batch");
  text += "  const Tensor x = floats(B, " + phase() + ", " + layout() + ");\n";
  text += "  const Tensor y = floats(B, " + phase() + ", " + layout() + ") * 0.75;\n";
  text += "  const Tensor d = floats(B, " + phase() + ", " + layout() + ").to(kDouble);\n";
  text += "  const Tensor n = integers(B, 9, 2, false, " + layout() + ");\n";
  text += "  const Tensor k = integers(B, 7, 3, true, " + layout() + ");\n";
  text += "  const Tensor idx = integers(B, 5, 0, false, " + layout() + ");\n";
  text += "  const Tensor x3 = floats3(B, " + phase() + ", " + layout() + ");\n";
  text += "  const Tensor w = invariant(5, " + phase() + ");\n";
  text += "  const Tensor m = invariant(4, " + phase() + ");\n";
  if (context_ == Context::function_template) {
    text += call_block("case" + std::to_string(id_) + "<float>");
    text += call_block("case" + std::to_string(id_) + "<double>");
  } else if (context_ == Context::member) {
    text += call_block("object.run");
  } else {
    text += call_block("case" + std::to_string(id_));
  }
  runner_ = text + "  std::fflush(stdout);\n}\n\n";
}

}  // namespace surface_detail

using surface_detail::Case;

std::string surface_program(uint32_t seed, const SurfaceOptions& options) {
  std::ostringstream definitions, runners, calls;
  int loops = 0;
  for (int c = 0; c < options.cases; ++c) {
    if ((options.only >= 0 && c != options.only) || options.skip.count(c)) continue;
    Case generated(seed, c, options.avoid_known);
    definitions << generated.definitions();
    runners << generated.runner();
    calls << "  run_case" << c << "();\n";
    const std::string& text = generated.definitions();
    for (size_t at = text.find("#pragma vmap"); at != std::string::npos;
         at = text.find("#pragma vmap", at + 1))
      ++loops;
  }
  std::ostringstream out;
  out << "// Generated by vmap_generate_program " << seed << " --surface --cases="
      << options.cases << (options.only >= 0 ? " --only=" + std::to_string(options.only) : "")
      << (options.avoid_known ? " --avoid-known" : "");
  for (int c : options.skip) out << (c == *options.skip.begin() ? " --skip=" : ",") << c;
  out << "; " << loops << " vmap loops.\n"
      << kSurfacePrelude << definitions.str() << runners.str() << "int main() {\n" << calls.str()
      << "}\n";
  return out.str();
}

}  // namespace vmap_generator
