// The tool's reports (SPEC section 6, "The tool's reports"): -W names of its warnings,
// remarks of group vmap, the optimization-record YAML, machine-readable diagnostics.
#include "tool_fixture.hpp"

#include <optional>

namespace {

using namespace vmap_tool_test;

// A batched loop whose pragma has a stray token: one -Wvmap-pragma-extra-tokens warning.
const char* const kExtraTokens = R"(#include <vmap/vmap.hpp>
using namespace vmap;
void scale(const Tensor& x, Tensor& out) {
#pragma vmap fast
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * 2;
}
)";

// A batched loop, then one refused (`break`): a -Wvmap-refused warning under --keep-going.
const char* const kBatchedThenRefused = kAddOneThenBreak;

// Two pointwise chains that become fused kernels: one written in place, one through a local.
const char* const kTwoFusedChains = R"(#include <vmap/vmap.hpp>
using namespace vmap;
void distances(const Tensor& x, const Tensor& y, Tensor& squared, Tensor& plain) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < y.size(0); ++j) {
      squared[i][j] = (x[i] - y[j]).pow(2).sum();
      Tensor d = x[i] - y[j];
      plain[i][j] = (d * d).sum().sqrt();
    }
}
)";

// A loop in a function template, compiled for three argument types.
const char* const kTemplateLoop = R"(#include <vmap/vmap.hpp>
using namespace vmap;
template <class T>
void scale(const Tensor& x, Tensor& out, T by) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * by;
}
void use(const Tensor& x, Tensor& out) {
  scale(x, out, 2.0f);
  scale(x, out, 3);
  scale(x, out, 2.0);
}
)";

// Issue 26: a statement of each kind (a kernel with its region, a local used after its kernel,
// a library call, one op, an element gather in a plain inner loop), then a plain inner loop
// accumulating C++ floats.
const char* const kStatementKinds = R"(#include <vmap/vmap.hpp>
using namespace vmap;
void kinds(const Tensor& x, const Tensor& w, const Tensor& index, Tensor& out, Tensor& y,
           Tensor& h, Tensor& e, Tensor& g) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i] * 2;
    v = v * v + 1;
    out[i] = v;
    Tensor d = x[i] - 1;
    y[i] = (d * d).sum();
    h[i] = d.matmul(w);
    e[i] = x[i].exp();
    for (int64_t k = 0; k < index.size(1) && index[i][k].item<int64_t>() >= 0; ++k)
      g[i][k] = x[i][index[i][k].item<int64_t>()];
  }
}
void sum_prod(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float s = 0;
    for (int64_t j = 0; j < x.size(0); ++j) s += x[i].item<float>() * x[j].item<float>();
    out[i] = s;
  }
}
void rescale(Tensor& g, const Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < g.size(0); ++i)
    for (int64_t k = 1; k < g.size(1); ++k)
      g[i][k] = g[i][k - 1] * x[i][k];
}
)";

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

class Reports : public ToolTest {};

TEST_F(Reports, WarningsShowTheirName) {
  file("a.cpp", kExtraTokens);
  tool_run result = run("a.cpp -o out.cpp");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("a.cpp:4:14: warning: extra tokens at end of '#pragma vmap' are "
                            "ignored [-Wvmap-pragma-extra-tokens]"),
            std::string::npos)
      << result.err;
}

TEST_F(Reports, WerrorOnANamedWarningFails) {
  file("a.cpp", kExtraTokens);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Werror=vmap-pragma-extra-tokens");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("a.cpp:4:14: error: extra tokens at end of '#pragma vmap' are "
                            "ignored [-Werror,-Wvmap-pragma-extra-tokens]"),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.cpp"));
}

TEST_F(Reports, WerrorOnTheGroupFails) {
  file("a.cpp", kExtraTokens);
  EXPECT_EQ(run("a.cpp -o out.cpp --extra-arg=-Werror=vmap").status, 1);
}

TEST_F(Reports, WerrorOnAnotherWarningDoesNotFail) {
  file("a.cpp", kExtraTokens);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Werror=vmap-fallback");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("warning: extra tokens"), std::string::npos) << result.err;
}

TEST_F(Reports, WnoSilencesANamedWarning) {
  file("a.cpp", kExtraTokens);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Wno-vmap-pragma-extra-tokens");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_TRUE(fs::exists(dir_ / "out.cpp"));
}

TEST_F(Reports, WnoErrorKeepsANamedWarningUnderWerror) {
  file("a.cpp", kExtraTokens);
  tool_run result = run(
      "a.cpp -o out.cpp --extra-arg=-Werror --extra-arg=-Wno-error=vmap-pragma-extra-tokens");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("warning: extra tokens at end of '#pragma vmap' are ignored "
                            "[-Wvmap-pragma-extra-tokens]"),
            std::string::npos)
      << result.err;
}

TEST_F(Reports, LastFlagWins) {
  file("a.cpp", kExtraTokens);
  EXPECT_EQ(run("a.cpp -o out.cpp --extra-arg=-Werror=vmap-pragma-extra-tokens "
                "--extra-arg=-Wno-vmap-pragma-extra-tokens")
                .status,
            0);
  EXPECT_EQ(run("a.cpp -o out.cpp --extra-arg=-Wno-vmap --extra-arg=-Werror=vmap").status, 1);
}

TEST_F(Reports, WSilencesEvenAPromotedWarning) {
  file("a.cpp", kExtraTokens);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Werror=vmap --extra-arg=-w");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "");
}

TEST_F(Reports, NamedWarningFlagsWorkAfterDashes) {
  file("a.cpp", kExtraTokens);
  EXPECT_EQ(run("a.cpp -o out.cpp -- -Werror=vmap-pragma-extra-tokens" + include_flags(),
                /*with_flags=*/false)
                .status,
            1);
}

TEST_F(Reports, UnknownVmapWarningNameIsReportedAsClangDoes) {
  file("a.cpp", kExtraTokens);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Wvmap-no-such-warning");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("unknown warning option '-Wvmap-no-such-warning'"),
            std::string::npos)
      << result.err;
}

TEST_F(Reports, KeepGoingRefusalsAreNamedWarnings) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --keep-going -o out.cpp");
  EXPECT_NE(result.err.find("a.cpp:10:7: warning: 'break' in the body of a vmap loop "
                            "[-Wvmap-refused]"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(fs::exists(dir_ / "out.cpp"));
  tool_run silenced = run("a.cpp --keep-going -o out2.cpp --extra-arg=-Wno-vmap-refused");
  EXPECT_EQ(silenced.status, 1);  // --keep-going still fails the run (SPEC section 3)
  EXPECT_EQ(silenced.err, "clang-vmap: 1 loop was left as written (--keep-going): exit status 1\n");
  EXPECT_TRUE(fs::exists(dir_ / "out2.cpp"));
  tool_run promoted = run("a.cpp --keep-going -o out3.cpp --extra-arg=-Werror=vmap-refused");
  EXPECT_EQ(promoted.status, 1);
  EXPECT_FALSE(fs::exists(dir_ / "out3.cpp"));
}

TEST_F(Reports, RpassVmapPrintsBatchedLoopsAsClangRemarks) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --keep-going -o out.cpp --extra-arg=-Rpass=vmap");
  EXPECT_NE(result.err.find("a.cpp:4:1: remark: loop batched: 1 batch level (i from 0 to "
                            "x.size(0)), "),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("ops (operator="), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("operator+"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(", 0 per-example fallbacks"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("[-Rpass=vmap]"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("loop not batched"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("run-time overlap check:"), std::string::npos) << result.err;
}

TEST_F(Reports, RemarksNameTheOpsOfEachFusedKernel) {
  file("a.cpp", kTwoFusedChains);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Rpass=vmap");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find(", 2 fused kernels (operator-, pow at line 7; operator-, operator* "
                            "at line 9), "),
            std::string::npos)
      << result.err;
  // What the remark names is what the rewrite runs as kernels.
  EXPECT_EQ(occurrences(read_file(dir_ / "out.cpp"), "vb::fused("), 2u);
}

TEST_F(Reports, RemarksOfALoopWithoutFusedKernelsSayNone) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --keep-going -o out.cpp --extra-arg=-Rpass=vmap");
  EXPECT_NE(result.err.find("loop batched"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("fused kernel"), std::string::npos) << result.err;
}

TEST_F(Reports, ALoopInATemplateIsReportedOnceForAllItsSpecializations) {
  file("a.cpp", kTemplateLoop);
  tool_run result = run("a.cpp -o out.cpp --remarks");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(occurrences(result.err, "remark: loop batched"), 1u) << result.err;
  EXPECT_NE(result.err.find("a.cpp:5:1: remark: loop batched in 3 specializations: 1 batch "
                            "level (i from 0 to x.size(0))"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(occurrences(result.err, "remark: run-time overlap check"), 1u) << result.err;
}

TEST_F(Reports, ALoopInATemplateCompiledOnceSaysSo) {
  std::string once = kTemplateLoop;
  once.replace(once.find("  scale(x, out, 3);\n  scale(x, out, 2.0);\n"),
               std::string("  scale(x, out, 3);\n  scale(x, out, 2.0);\n").size(), "");
  file("a.cpp", once);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Rpass=vmap");
  EXPECT_NE(result.err.find("remark: loop batched in 1 specialization: "), std::string::npos)
      << result.err;
}

TEST_F(Reports, RpassMissedVmapSaysWhyNot) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --keep-going -o out.cpp --extra-arg=-Rpass-missed=vmap");
  // At the offending line (the refusal's place), naming the loop's.
  EXPECT_NE(result.err.find("a.cpp:10:7: remark: loop not batched: 'break' in the body of a "
                            "vmap loop (the vmap loop at line 7) [-Rpass-missed=vmap]"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("loop batched"), std::string::npos) << result.err;
}

TEST_F(Reports, RpassAnalysisVmapNamesTheOverlapChecks) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --keep-going -o out.cpp --extra-arg=-Rpass-analysis=vmap");
  EXPECT_NE(result.err.find("a.cpp:4:1: remark: run-time overlap check: 'out' is written and "
                            "'x' is read"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("[-Rpass-analysis=vmap]"), std::string::npos) << result.err;
  // The guard is in the rewrite, as the remark says.
  EXPECT_NE(read_file(dir_ / "out.cpp").find("overlap(out, x)"), std::string::npos);
}

TEST_F(Reports, RemarksOfAnotherPassAreNotPrinted) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --keep-going -o out.cpp --extra-arg=-Rpass=inline "
                        "--extra-arg=-Rpass-missed=loop-vectorize");
  EXPECT_EQ(result.err.find("remark:"), std::string::npos) << result.err;
}

TEST_F(Reports, RemarksFlagAsksForAllThree) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --keep-going -o out.cpp --remarks");
  EXPECT_NE(result.err.find("[-Rpass=vmap]"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("[-Rpass-missed=vmap]"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("[-Rpass-analysis=vmap]"), std::string::npos) << result.err;
}

// Note [Lane kernels]: a scalar kernel says whether it runs over SIMD lanes of examples or
// one example at a time, and why.
TEST_F(Reports, AScalarKernelSaysWhetherItRunsOnLanes) {
  file("a.cpp", R"(#include <vmap/vmap.hpp>
using namespace vmap;
void distances(const Tensor& a, const Tensor& b, Tensor& out, double cutoff) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < b.size(0); ++j) {
      double s = 0;
      for (int64_t k = 0; k < a.size(1); ++k) {
        double d = a[i][k].item<double>() - b[j][k].item<double>();
        if (std::fabs(d) > cutoff) s += d * d;
      }
      out[i][j] = s;
    }
}
void norms(const Tensor& a, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    float s = 0;
    for (int64_t k = 0; k < a.size(1); ++k) s += a[i][k].item<float>() * a[i][k].item<float>();
    out[i] = std::sqrt(s);
  }
}
void folded(const Tensor& x, Tensor& m) {
#pragma vmap
  for (int64_t i = 0; i < m.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < m.size(1); ++j) {
      float v = x[i].item<float>();
      float w = v > 0 ? v * v : -v;
      m[i][j] = w * v + 1.0f;
    }
}
)");
  tool_run result = run("a.cpp -o out.cpp --remarks");
  EXPECT_EQ(result.status, 0) << result.err;
  for (const char* remark :
       {"a.cpp:13:7: remark: runs in a compiled kernel (lines 8-13), one example at a time: it "
        "has control flow ('if', 'while', 'break', ...) that may differ per example "
        "[-Rpass=vmap]",
        "a.cpp:21:5: remark: runs in a compiled kernel (lines 19-21), eight examples at a "
        "time on SIMD lanes [-Rpass=vmap]",
        // Per-example numbers alone: on SIMD lanes already, no lane form to miss.
        "a.cpp:31:7: remark: runs in a compiled kernel (lines 29-31) [-Rpass=vmap]"})
    EXPECT_NE(result.err.find(remark), std::string::npos) << remark << "\n" << result.err;
}

TEST_F(Reports, EachStatementSaysHowItRuns) {
  file("a.cpp", kStatementKinds);
  tool_run result = run("a.cpp -o out.cpp --remarks");
  EXPECT_EQ(result.status, 0) << result.err;
  for (const char* remark :
       {"a.cpp:9:5: remark: runs in a compiled kernel (lines 7-9) [-Rpass=vmap]",
        "a.cpp:11:5: remark: runs in a compiled kernel (line 11) [-Rpass=vmap]",
        "a.cpp:12:5: remark: runs as a batched library call 'matmul' and 2 batched ops "
        "[-Rpass-analysis=vmap]",
        "a.cpp:13:5: remark: runs batched op by op (4 ops); not compiled: ",
        // Scalar kernels: one storing elements in a plain loop, one of a C++ scalar.
        "a.cpp:14:5: remark: runs in a compiled kernel (lines 14-15) [-Rpass=vmap]",
        "a.cpp:23:5: remark: runs in a compiled kernel (lines 21-23), eight examples at a "
        "time on SIMD lanes [-Rpass=vmap]"})
    EXPECT_NE(result.err.find(remark), std::string::npos) << remark << "\n" << result.err;
  // A region's statements are the kernel's: no remark of their own.
  EXPECT_EQ(result.err.find("a.cpp:7:5: remark"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("a.cpp:8:5: remark"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("a.cpp:15:7: remark"), std::string::npos) << result.err;
  // The kernels the remarks name are the ones the rewrite runs.
  const std::string rewritten = read_file(dir_ / "out.cpp");
  EXPECT_EQ(occurrences(result.err, "remark: runs in a compiled kernel"),
            occurrences(rewritten, "vb::fused(") + occurrences(rewritten, "vb::fused_scalar("));
}

TEST_F(Reports, StatementsRunOpByOpSayWhyTheyAreNotCompiled) {
  file("a.cpp", kStatementKinds);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Rpass-analysis=vmap");
  EXPECT_EQ(result.status, 0) << result.err;
  for (const char* remark :
       {"a.cpp:10:5: remark: runs batched op by op (2 ops); not compiled: its local 'd' is used "
        "after line 11, and a kernel's locals live only inside it [-Rpass-analysis=vmap]",
        "a.cpp:13:5: remark: runs batched op by op (4 ops); not compiled: one element-wise op is "
        "already one runtime pass [-Rpass-analysis=vmap]",
        "a.cpp:30:7: remark: runs batched op by op (8 ops); not compiled: "})
    EXPECT_NE(result.err.find(remark), std::string::npos) << remark << "\n" << result.err;
  EXPECT_EQ(result.err.find("compiled kernel"), std::string::npos) << result.err;
}

TEST_F(Reports, RpassMissedVmapCountsTheOpsPerTripOfAPlainLoop) {
  file("a.cpp", kStatementKinds);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Rpass-missed=vmap");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("a.cpp:30:7: remark: 8 runtime ops per trip of the loop at line 29: "
                            "the speed of one op call each [-Rpass-missed=vmap]"),
            std::string::npos)
      << result.err;
  // Only the statements inside plain loops that run batched ops there (the plain loops of
  // the gather and of sum_prod are inside their kernels).
  EXPECT_EQ(occurrences(result.err, "per trip of the loop"), 1u) << result.err;
  EXPECT_EQ(result.err.find("runs "), std::string::npos) << result.err;
}

// `text` with each run of blanks and newlines as one space: YAML wraps long flow maps at a
// width that depends on the path.
std::string squeeze(const std::string& text) {
  std::string squeezed;
  for (char c : text) {
    bool blank = c == ' ' || c == '\n';
    if (!blank || squeezed.empty() || squeezed.back() != ' ') squeezed += blank ? ' ' : c;
  }
  return squeezed;
}

TEST_F(Reports, RemarksFileHoldsOptimizationRecords) {
  fs::path input = file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --keep-going -o out.cpp --remarks-file=a.opt.yaml");
  EXPECT_EQ(result.err.find("remark:"), std::string::npos) << result.err;
  std::string yaml = read_file(dir_ / "a.opt.yaml");
  std::string records = squeeze(yaml);
  std::string loc = "DebugLoc: { File: '" + input.string() + "', ";
  EXPECT_NE(records.find("--- !Passed Pass: vmap Name: LoopBatched " + loc +
                         "Line: 4, Column: 1 } Function: add_one Args: - String: 'loop "
                         "batched: ' - NumLevels: '1' - String: ' batch level (' - Level: 'i "
                         "from 0 to x.size(0)' " +
                         loc + "Line: 5, Column: 3 }"),
            std::string::npos)
      << yaml;
  EXPECT_NE(records.find("--- !Analysis Pass: vmap Name: OverlapCheck " + loc +
                         "Line: 4, Column: 1 } Function: add_one"),
            std::string::npos)
      << yaml;
  // At the refusal's place; the pragma is the `Loop` argument's related location.
  EXPECT_NE(records.find("--- !Missed Pass: vmap Name: LoopNotBatched " + loc +
                         "Line: 10, Column: 7 } Function: add_one Args: - String: 'loop not "
                         "batched: ' - Reason: '''break'' in the body of a vmap loop' - "
                         "String: ' (the vmap loop at ' - Loop: line 7 " +
                         loc + "Line: 7, Column: 1 } - String: ')'"),
            std::string::npos)
      << yaml;
}

TEST_F(Reports, RemarksFileNamesFusedKernelsAndSpecializations) {
  fs::path fused = file("a.cpp", kTwoFusedChains);
  file("b.cpp", kTemplateLoop);
  tool_run result = run("a.cpp b.cpp --diff --remarks-file=all.yaml");
  EXPECT_EQ(result.status, 0) << result.err;
  std::string yaml = read_file(dir_ / "all.yaml");
  std::string records = squeeze(yaml);
  EXPECT_NE(records.find("- NumFusedKernels: '2' - String: ' fused kernels' - FusedKernel: ' "
                         "(operator-, pow at line 7' DebugLoc: { File: '" +
                         fused.string() + "', Line: 7, Column: 23 }"),
            std::string::npos)
      << yaml;
  EXPECT_NE(records.find("- String: 'loop batched in ' - NumSpecializations: '3' - String: ' "
                         "specializations: '"),
            std::string::npos)
      << yaml;
  EXPECT_EQ(occurrences(records, "Name: LoopBatched"), 2u) << yaml;  // one per loop
}

TEST_F(Reports, AFunctionTheBodyCallsReportsItsStatements) {
  // A per-example number argument: the function runs as its batched clone.
  file("a.cpp", R"(#include <vmap/vmap.hpp>
using namespace vmap;
Tensor scaled(const Tensor& v, float k) {
  return v.exp() * k;
}
void use(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = scaled(x[i], x[i].sum().item<float>());
}
)");
  tool_run result = run("a.cpp -o out.cpp --remarks-file=a.opt.yaml --remarks");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("a.cpp:4:3: remark: runs batched op by op (2 ops) "
                            "[-Rpass-analysis=vmap]"),
            std::string::npos)
      << result.err;
  EXPECT_NE(squeeze(read_file(dir_ / "a.opt.yaml")).find("Line: 4, Column: 3 } Function: scaled"),
            std::string::npos);
}

TEST_F(Reports, AFunctionComputedInKernelsSaysSo) {
  file("a.cpp", R"(#include <vmap/vmap.hpp>
using namespace vmap;
Tensor scaled(const Tensor& v) {
  return v.exp() * 2;
}
void use(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = scaled(x[i]);
}
)");
  tool_run result = run("a.cpp -o out.cpp --remarks");
  EXPECT_EQ(result.status, 0) << result.err;
  for (const char* remark :
       {"a.cpp:9:5: remark: runs in a compiled kernel (line 9) [-Rpass=vmap]",
        "a.cpp:4:3: remark: runs inside the compiled kernels that call it, printed in each (no "
        "batched clone) [-Rpass=vmap]"})
    EXPECT_NE(result.err.find(remark), std::string::npos) << remark << "\n" << result.err;
  EXPECT_EQ(result.err.find("op by op"), std::string::npos) << result.err;
}

TEST_F(Reports, RemarksFileHoldsTheStatementRemarks) {
  fs::path input = file("a.cpp", kStatementKinds);
  tool_run result = run("a.cpp -o out.cpp --remarks-file=a.opt.yaml");
  EXPECT_EQ(result.status, 0) << result.err;
  std::string yaml = read_file(dir_ / "a.opt.yaml");
  std::string records = squeeze(yaml);
  std::string loc = "DebugLoc: { File: '" + input.string() + "', ";
  EXPECT_NE(records.find("--- !Passed Pass: vmap Name: CompiledKernel " + loc +
                         "Line: 9, Column: 5 } Function: kinds Args: - String: 'runs in a "
                         "compiled kernel (' - Lines: lines 7-9 - String: ')'"),
            std::string::npos)
      << yaml;
  EXPECT_NE(records.find("--- !Analysis Pass: vmap Name: OpByOp " + loc +
                         "Line: 13, Column: 5 } Function: kinds Args: - String: 'runs batched "
                         "op by op (' - NumOps: '4' - String: ' ops)' - String: '; not "
                         "compiled: ' - Reason: one element-wise op is already one runtime "
                         "pass"),
            std::string::npos)
      << yaml;
  EXPECT_NE(records.find("--- !Analysis Pass: vmap Name: LibraryCall " + loc + "Line: 12, "),
            std::string::npos)
      << yaml;
  EXPECT_NE(records.find("--- !Missed Pass: vmap Name: OpsPerTrip " + loc +
                         "Line: 30, Column: 7 } Function: rescale Args: - NumOps: '8' - String: "
                         "' runtime ops per trip of the loop at ' - Loop: line 29 " +
                         loc + "Line: 29, Column: 5 }"),
            std::string::npos)
      << yaml;
}

TEST_F(Reports, RemarksFileIsWrittenWhenALoopIsRefused) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp -o out.cpp --remarks-file=a.opt.yaml");
  EXPECT_EQ(result.status, 1);
  EXPECT_FALSE(fs::exists(dir_ / "out.cpp"));
  std::string yaml = read_file(dir_ / "a.opt.yaml");
  EXPECT_NE(yaml.find("--- !Missed"), std::string::npos) << yaml;
}

TEST_F(Reports, RemarksFileCoversEveryInput) {
  file("a.cpp", kBatchedThenRefused);
  file("b.cpp", kExtraTokens);
  run("a.cpp b.cpp --diff --keep-going --remarks-file=all.yaml");
  std::string yaml = read_file(dir_ / "all.yaml");
  EXPECT_NE(yaml.find("Function:        add_one"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("Function:        scale"), std::string::npos) << yaml;
}

// Runs python3 `script` on `input` (its stdin); the script's stdout, or nullopt without
// python3.
std::optional<std::string> python(const fs::path& dir, const std::string& script,
                                  const fs::path& input) {
  if (std::system("python3 -c '' 2>/dev/null") != 0) return std::nullopt;
  write_file(dir / "check.py", script);
  fs::path out = dir / "python.txt";
  std::string command = "python3 " + quote((dir / "check.py").string()) + " < " +
                        quote(input.string()) + " > " + quote(out.string()) + " 2>&1";
  int status = std::system(command.c_str());
  return read_file(out) + (status == 0 ? "" : "python3 failed");
}

// Prints the version and each result of the SARIF document on stdin (clang prints it on
// stderr after any text from the driver) as `level line:column message`.
const char* const kReadSarif = R"(import json, sys
text = sys.stdin.read()
document = json.loads(text[text.index('{'):text.rindex('}') + 1])
print(document['version'])
for result in document['runs'][0]['results']:
    region = result['locations'][0]['physicalLocation']['region']
    uri = result['locations'][0]['physicalLocation']['artifactLocation']['uri']
    print(result['level'], uri.rsplit('/', 1)[-1], str(region['startLine']) + ':' +
          str(region['startColumn']), result['message']['text'])
)";

TEST_F(Reports, SarifOnAValidFileIsSarif210) {
  file("a.cpp", kExtraTokens);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-fdiagnostics-format=sarif");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(fs::exists(dir_ / "out.cpp"));
  std::optional<std::string> read = python(dir_, kReadSarif, dir_ / "stderr.txt");
  if (!read) GTEST_SKIP() << "no python3 to read the SARIF document";
  EXPECT_EQ(*read,
            "2.1.0\nwarning a.cpp 4:14 extra tokens at end of '#pragma vmap' are ignored "
            "[-Wvmap-pragma-extra-tokens]\n")
      << result.err;
}

TEST_F(Reports, SarifOnARefusedFileHasTheRefusal) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-fdiagnostics-format=sarif");
  EXPECT_EQ(result.status, 1);
  EXPECT_FALSE(fs::exists(dir_ / "out.cpp"));
  std::optional<std::string> read = python(dir_, kReadSarif, dir_ / "stderr.txt");
  if (!read) GTEST_SKIP() << "no python3 to read the SARIF document";
  EXPECT_EQ(*read,
            "2.1.0\nerror a.cpp 10:7 'break' in the body of a vmap loop\n"
            "note a.cpp 10:7 a jump out of the vmap loop's body cuts across examples: every "
            "example must run the whole body; guard the rest of it with 'if', or jump inside an "
            "inner loop or a called function\n")
      << result.err;
}

TEST_F(Reports, SarifHoldsTheRefusedLoopsRemarkAtTheOffendingLine) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --keep-going -o out.cpp --extra-arg=-fdiagnostics-format=sarif "
                        "--extra-arg=-Rpass-missed=vmap");
  std::optional<std::string> read = python(dir_, kReadSarif, dir_ / "stderr.txt");
  if (!read) GTEST_SKIP() << "no python3 to read the SARIF document";
  EXPECT_NE(read->find("\nnone a.cpp 10:7 loop not batched: 'break' in the body of a vmap loop "
                       "(the vmap loop at line 7)\n"),
            std::string::npos)
      << *read;
}

TEST_F(Reports, SarifHoldsTheStatementRemarks) {
  file("a.cpp", kStatementKinds);
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-fdiagnostics-format=sarif "
                        "--extra-arg=-Rpass-missed=vmap");
  EXPECT_EQ(result.status, 0) << result.err;
  std::optional<std::string> read = python(dir_, kReadSarif, dir_ / "stderr.txt");
  if (!read) GTEST_SKIP() << "no python3 to read the SARIF document";
  EXPECT_EQ(*read,
            "2.1.0\nnone a.cpp 30:7 8 runtime ops per trip of the loop at line 29: the speed "
            "of one op call each\n")
      << result.err;
}

TEST_F(Reports, SarifAfterDashesWorksToo) {
  file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp -o out.cpp -- -fdiagnostics-format=sarif" + include_flags(),
                        /*with_flags=*/false);
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("\"version\":\"2.1.0\""), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("internal error"), std::string::npos) << result.err;
}

TEST_F(Reports, ExportedFixesCarryTheDiagnosticsOfARefusedFile) {
  fs::path input = file("a.cpp", kBatchedThenRefused);
  tool_run result = run("a.cpp --export-fixes=a.fixes.yaml");
  EXPECT_EQ(result.status, 1);
  std::string yaml = read_file(dir_ / "a.fixes.yaml");
  std::string records = squeeze(yaml);
  EXPECT_NE(records.find("Diagnostics: - DiagnosticName: clang-diagnostic-error "
                         "DiagnosticMessage: Message: '''break'' in the body of a vmap loop' "
                         "FilePath: '" +
                         input.string() + "' FileOffset: "),
            std::string::npos)
      << yaml;
  EXPECT_NE(records.find("Notes: - Message: 'a jump out of the vmap loop''s body cuts across "
                         "examples: every example must run the whole body; guard the rest "
                         "of it with ''if'', or jump inside an inner loop or a called function'"),
            std::string::npos)
      << yaml;
  EXPECT_NE(records.find("Level: Error"), std::string::npos) << yaml;
  EXPECT_EQ(read_file(input), kBatchedThenRefused);  // nothing to apply
  EXPECT_EQ(records.find("ReplacementText"), std::string::npos) << yaml;
}

TEST_F(Reports, ExportedFixesCarryTheRewriteAndTheWarnings) {
  fs::path input = file("a.cpp", kExtraTokens);
  tool_run result = run("a.cpp --export-fixes=a.fixes.yaml");
  EXPECT_EQ(result.status, 0) << result.err;
  std::string records = squeeze(read_file(dir_ / "a.fixes.yaml"));
  EXPECT_NE(records.find("- DiagnosticName: clang-vmap-rewrite DiagnosticMessage: Message: "
                         "rewritten by clang-vmap FilePath: '" +
                         input.string() + "'"),
            std::string::npos)
      << records;
  EXPECT_NE(records.find("ReplacementText: "), std::string::npos) << records;
  EXPECT_NE(records.find("- DiagnosticName: clang-diagnostic-vmap-pragma-extra-tokens "
                         "DiagnosticMessage: Message: 'extra tokens at end of ''#pragma vmap'' "
                         "are ignored [-Wvmap-pragma-extra-tokens]'"),
            std::string::npos)
      << records;
  EXPECT_NE(records.find("Level: Warning"), std::string::npos) << records;
}

}  // namespace
