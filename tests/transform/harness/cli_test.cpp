// The command line of clang-vmap (SPEC section 3): output modes, exit statuses, bad
// usage, depfiles, several inputs. Runs the built tool on files in a fresh directory.
#include "tool_fixture.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

namespace {

using namespace vmap_tool_test;

const char* const kNoLoops = R"(#include <vmap/vmap.hpp>
int twice(int x) { return 2 * x; }
)";

// One loop the tool batches: a per-example add.
const char* const kAddOne = R"(#include <vmap/vmap.hpp>
using namespace vmap;
void add_one(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + 1;
}
)";


const char* const kPragmaWithoutLoop = R"(#include <vmap/vmap.hpp>
void f() {
#pragma vmap
  int k = 0;
  (void)k;
}
)";

const char* const kDoesNotCompile = R"(#include <vmap/vmap.hpp>
void f() { undeclared_name(); }
)";

class CommandLine : public ToolTest {};

TEST_F(CommandLine, NoInputIsBadUsage) {
  EXPECT_EQ(run("", false).status, 2);
}

TEST_F(CommandLine, UnknownOptionIsBadUsage) {
  file("a.cpp", kNoLoops);
  EXPECT_EQ(run("--no-such-option a.cpp").status, 2);
}

TEST_F(CommandLine, OutputWithTwoInputsIsBadUsage) {
  file("a.cpp", kNoLoops);
  file("b.cpp", kNoLoops);
  tool_run result = run("a.cpp b.cpp -o out.cpp");
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("-o needs exactly one input"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.cpp"));
}

TEST_F(CommandLine, OutputAndInPlaceTogetherIsBadUsage) {
  file("a.cpp", kNoLoops);
  EXPECT_EQ(run("a.cpp -o out.cpp -i").status, 2);
}

TEST_F(CommandLine, DepfileWithoutAFileNameIsBadUsage) {
  file("a.cpp", kNoLoops);
  EXPECT_EQ(run("a.cpp -MD").status, 2);
}

TEST_F(CommandLine, MissingInputFails) {
  tool_run result = run("missing.cpp");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("missing.cpp"), std::string::npos);
}

TEST_F(CommandLine, FileWithoutLoopsIsPrintedUnchanged) {
  file("a.cpp", kNoLoops);
  tool_run result = run("a.cpp");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, kNoLoops);
}

TEST_F(CommandLine, FileWithoutLoopsNeedsNoFlags) {
  // The tool finds <vmap/vmap.hpp> by itself and defaults to C++20.
  file("a.cpp", kNoLoops);
  tool_run result = run("a.cpp", false);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, kNoLoops);
}

TEST_F(CommandLine, FlagsAfterDashesReachTheCompiler) {
  file("a.cpp", "#ifndef NEEDED\n#error NEEDED is missing\n#endif\n");
  EXPECT_EQ(run("a.cpp").status, 1);
  EXPECT_EQ(run("a.cpp -- -DNEEDED", false).status, 0);
  EXPECT_EQ(run("a.cpp --extra-arg=-DNEEDED").status, 0);
}

TEST_F(CommandLine, CompilationDatabaseFromBuildDir) {
  fs::create_directories(dir_ / "build");
  file("a.cpp", "#ifndef FROM_DB\n#error FROM_DB is missing\n#endif\n");
  write_file(dir_ / "build" / "compile_commands.json",
             "[{\"directory\": \"" + dir_.string() + "\", \"file\": \"" +
                 (dir_ / "a.cpp").string() + "\", \"command\": \"c++ -DFROM_DB -c a.cpp\"}]");
  tool_run result = run("-p build a.cpp", false);
  EXPECT_EQ(result.status, 0) << result.err;
}

TEST_F(CommandLine, MissingCompilationDatabaseIsBadUsage) {
  file("a.cpp", kNoLoops);
  EXPECT_EQ(run("-p no-such-dir a.cpp", false).status, 2);
}

TEST_F(CommandLine, PragmaWithoutLoopIsAnErrorAtThePragma) {
  fs::path input = file("a.cpp", kPragmaWithoutLoop);
  tool_run result = run("a.cpp -i");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("a.cpp:3:1: error: '#pragma vmap' must be followed by a 'for' loop"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(read_file(input), kPragmaWithoutLoop);
}

TEST_F(CommandLine, SourceErrorsFailWithoutOutput) {
  file("a.cpp", kDoesNotCompile);
  tool_run result = run("a.cpp -o out.cpp");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("undeclared_name"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "out.cpp"));
}

TEST_F(CommandLine, DumpAfterFindListsTheLoops) {
  file("a.cpp", kAddOne);
  tool_run result = run("a.cpp --dump-after=find");
  EXPECT_NE(result.err.find("vmap loop 0: pragma at a.cpp:4:1, for at a.cpp:5:3, in 'add_one'"),
            std::string::npos)
      << result.err;
}

// The fuse pass (between batch and emit) shows each kernel with its operands, in the loop
// and in the clones (halved, called in tensor code), and why a statement is not compiled.
TEST_F(CommandLine, DumpAfterFuseListsTheKernels) {
  file("a.cpp", R"(#include <vmap/vmap.hpp>
using namespace vmap;
int steps(float v) {
  int n = 0;
  while (v > 1.0f) { v /= 2.0f; ++n; }
  return n;
}
float halved(float v) { return v / 2; }
void f(const Tensor& x, Tensor& out, Tensor& half) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = steps(x[i].item<float>());
    half[i] = x[i] * halved(x[i].item<float>());
  }
}
)");
  tool_run result = run("a.cpp --dump-after=fuse");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("kernels of the vmap loop at 10:1\n"
                            "  12:14 scalar kernel: steps(x[i].item<float>())\n"
                            "    operand 'a': x[i].item<float>()\n"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("  13:5 not compiled: "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("kernels of the clone of 'halved' at 8:1\n"), std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("clone of 'steps'"), std::string::npos) << result.err;
}

TEST_F(CommandLine, RewritesToStdout) {
  file("a.cpp", kAddOne);
  tool_run result = run("a.cpp");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out.find("#pragma vmap"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("vmap::batched"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("void add_one(const Tensor& x, Tensor& out) {"), std::string::npos);
}

TEST_F(CommandLine, OutputFileHoldsWhatStdoutWould) {
  fs::path input = file("a.cpp", kAddOne);
  tool_run to_stdout = run("a.cpp");
  tool_run to_file = run("a.cpp -o out.cpp");
  ASSERT_EQ(to_file.status, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(read_file(dir_ / "out.cpp"), to_stdout.out);
  EXPECT_EQ(read_file(input), kAddOne);
}

TEST_F(CommandLine, InPlaceRewritesTheInputAndKeepsItsMode) {
  fs::path input = file("a.cpp", kAddOne);
  fs::permissions(input, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  tool_run to_stdout = run("a.cpp");
  tool_run in_place = run("a.cpp -i");
  ASSERT_EQ(in_place.status, 0) << in_place.err;
  EXPECT_EQ(read_file(input), without_line_directives(to_stdout.out));
  EXPECT_EQ(fs::status(input).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 3);
}

TEST_F(CommandLine, InPlaceRewriteNamesItsOwnLines) {
  // The rewrite is the file compiled after -i: no `#line` names the old text's lines.
  fs::path input = file("a.cpp", kAddOne);
  ASSERT_EQ(run("a.cpp -i").status, 0);
  const std::string rewritten = read_file(input);
  EXPECT_NE(rewritten.find("vmap::batched"), std::string::npos) << rewritten;
  EXPECT_EQ(rewritten.find("#line"), std::string::npos) << rewritten;
  // Written elsewhere, the directives still lead back to a.cpp.
  file("b.cpp", kAddOne);
  ASSERT_EQ(run("b.cpp -o out.cpp").status, 0);
  EXPECT_NE(read_file(dir_ / "out.cpp").find("#line"), std::string::npos);
}

TEST_F(CommandLine, RefusedFileGetsNoOutput) {
  fs::path input = file("a.cpp", kAddOneThenBreak);
  tool_run to_file = run("a.cpp -o out.cpp");
  EXPECT_EQ(to_file.status, 1);
  EXPECT_NE(to_file.err.find("error:"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "out.cpp"));
  tool_run in_place = run("a.cpp -i");
  EXPECT_EQ(in_place.status, 1);
  EXPECT_EQ(read_file(input), kAddOneThenBreak);
  tool_run to_stdout = run("a.cpp");
  EXPECT_EQ(to_stdout.status, 1);
  EXPECT_EQ(to_stdout.out, "");
}

TEST_F(CommandLine, KeepGoingLeavesRefusedLoopsAsWritten) {
  file("a.cpp", kAddOneThenBreak);
  tool_run result = run("a.cpp --keep-going");
  EXPECT_EQ(result.status, 1) << result.err;  // the output is written, the run still fails
  EXPECT_NE(result.err.find("a.cpp:10:7: warning:"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("loop left as written"), std::string::npos) << result.err;
  // The first loop is batched, the second kept with its pragma.
  EXPECT_NE(result.out.find("vmap::batched"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("#pragma vmap\n  for (int64_t i = 0; i < x.size(0); ++i) {\n"
                            "    if (i == 2)\n      break;"),
            std::string::npos)
      << result.out;
}

TEST_F(CommandLine, KeepGoingSucceedsWhenEveryLoopIsRewritten) {
  file("a.cpp", kAddOne);
  tool_run result = run("a.cpp --keep-going -o out.cpp");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(fs::exists(dir_ / "out.cpp"));
}

TEST_F(CommandLine, KeepGoingWritesTheFileAndStillFails) {
  fs::path input = file("a.cpp", kAddOneThenBreak);
  tool_run in_place = run("a.cpp --keep-going -i");
  EXPECT_EQ(in_place.status, 1) << in_place.err;
  EXPECT_NE(read_file(input).find("vmap::batched"), std::string::npos);
}

// Note [Warnings printed once]: the compiler prints the warnings of the user's code when it
// compiles the rewrite; the tool's parse prints none, its own warnings still.
TEST_F(CommandLine, TheParsePrintsNoWarningOfTheUsersCode) {
  file("a.cpp", R"(#include <vmap/vmap.hpp>
using namespace vmap;
void add_one(const Tensor& x, Tensor& out) {
#pragma vmap extra
  for (int64_t i = 0; i < x.size(0); ++i) {
    int unused = 0;
    out[i] = x[i] + 1;
  }
}
)");
  tool_run result = run("a.cpp -o out.cpp --extra-arg=-Wall");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err.find("unused"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("a.cpp:4:14: warning: extra tokens at end of '#pragma vmap'"),
            std::string::npos)
      << result.err;
}

TEST_F(CommandLine, KeepGoingWithWerrorFails) {
  file("a.cpp", kAddOneThenBreak);
  tool_run result = run("a.cpp --keep-going -o out.cpp --extra-arg=-Werror");
  EXPECT_EQ(result.status, 1);
  EXPECT_FALSE(fs::exists(dir_ / "out.cpp"));
}

TEST_F(CommandLine, KeepGoingWithSilencedRefusalsSaysWhyItFails) {
  file("a.cpp", kAddOneThenBreak);
  tool_run result = run("a.cpp --keep-going --extra-arg=-Wno-vmap-refused -o out.cpp");
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.err.find("warning:"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("1 loop was left as written (--keep-going): exit status 1"),
            std::string::npos)
      << result.err;
}

TEST_F(CommandLine, VersionNamesTheToolAndItsClang) {
  tool_run result = run("--version", false);
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.out.rfind("clang-vmap version ", 0), 0u) << result.out;
  EXPECT_NE(result.out.find("Clang 19"), std::string::npos) << result.out;
}

TEST_F(CommandLine, HelpExplainsFlagsAndExitStatuses) {
  tool_run result = run("--help", false);
  EXPECT_EQ(result.status, 0);
  for (const char* part : {"Compile flags:", "Exit status:", "  2  bad usage", "-p <build-dir>"})
    EXPECT_NE(result.out.find(part), std::string::npos) << part << "\n" << result.out;
  // The developers' pass dumps are listed by --help-hidden only.
  EXPECT_EQ(result.out.find("dump-after"), std::string::npos) << result.out;
}

TEST_F(CommandLine, StdoutClosedEarlyKeepsTheStatusAndTheOtherOutputs) {
  // Enough loops that the rewrite outgrows a pipe's buffer, so writes meet the closed end.
  std::string text = "#include <vmap/vmap.hpp>\nusing namespace vmap;\n";
  for (int k = 0; k < 400; ++k)
    text += "void f" + std::to_string(k) +
            "(const Tensor& x, Tensor& out) {\n#pragma vmap\n"
            "  for (int64_t i = 0; i < x.size(0); ++i)\n    out[i] = x[i] + 1;\n}\n";
  file("a.cpp", text);
  std::string command = "cd " + quote(dir_.string()) + " && (" + quote(CLANG_VMAP_TOOL) +
                        " a.cpp --remarks-file=r.yaml --" + include_flags() +
                        " 2>err.txt; echo $? >status.txt) | head -c 10 >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(read_file(dir_ / "status.txt"), "0\n") << read_file(dir_ / "err.txt");
  EXPECT_NE(read_file(dir_ / "r.yaml").find("--- !Passed"), std::string::npos);
}

TEST_F(CommandLine, DiffAppliesWithPatch) {
  fs::path input = file("a.cpp", kAddOne);
  tool_run rewritten = run("a.cpp");
  tool_run diff = run("a.cpp --diff");
  ASSERT_EQ(diff.status, 0) << diff.err;
  EXPECT_EQ(diff.out.rfind("--- a.cpp\n+++ a.cpp\n@@ -", 0), 0u) << diff.out;
  EXPECT_NE(diff.out.find("\n-#pragma vmap\n"), std::string::npos) << diff.out;
  EXPECT_EQ(read_file(input), kAddOne);
  write_file(dir_ / "a.diff", diff.out);
  std::string patch = "cd " + quote(dir_.string()) + " && patch -s -p0 < a.diff";
  ASSERT_EQ(std::system(patch.c_str()), 0);
  EXPECT_EQ(read_file(input), rewritten.out);
}

TEST_F(CommandLine, DiffOfAnUnchangedFileIsEmpty) {
  file("a.cpp", kNoLoops);
  tool_run diff = run("a.cpp --diff");
  EXPECT_EQ(diff.status, 0);
  EXPECT_EQ(diff.out, "");
}

TEST_F(CommandLine, ExportedFixesApplyWithClangApplyReplacements) {
  fs::path input = file("a.cpp", kAddOne);
  tool_run rewritten = run("a.cpp");
  fs::create_directories(dir_ / "fixes");
  tool_run exported = run("a.cpp --export-fixes=fixes/a.yaml");
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_EQ(exported.out, "");
  std::string yaml = read_file(dir_ / "fixes" / "a.yaml");
  EXPECT_NE(yaml.find("MainSourceFile:"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find(input.string()), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("ReplacementText:"), std::string::npos) << yaml;
  EXPECT_EQ(read_file(input), kAddOne);
  const char* apply = "/usr/lib/llvm-19/bin/clang-apply-replacements";
  if (!fs::exists(apply)) GTEST_SKIP() << "no clang-apply-replacements to apply them";
  std::string command = std::string(apply) + " " + quote((dir_ / "fixes").string());
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(read_file(input), rewritten.out);
}

TEST_F(CommandLine, RemarksSayWhatWasBatched) {
  file("a.cpp", kAddOne);
  tool_run result = run("a.cpp --remarks -o out.cpp");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("a.cpp:4:1: remark: loop batched: "), std::string::npos)
      << result.err;
}

TEST_F(CommandLine, RemarksSayWhyNot) {
  file("a.cpp", kAddOneThenBreak);
  tool_run result = run("a.cpp --remarks --keep-going -o out.cpp");
  EXPECT_NE(result.err.find("a.cpp:10:7: remark: loop not batched: "), std::string::npos)
      << result.err;
}

TEST_F(CommandLine, DepfileListsTheInputAndItsHeaders) {
  file("a.cpp", kAddOne);
  tool_run result = run("a.cpp -o out.cpp -MD -MF out.d");
  ASSERT_EQ(result.status, 0) << result.err;
  std::string depfile = read_file(dir_ / "out.d");
  EXPECT_EQ(depfile.rfind("out.cpp:", 0), 0u) << depfile;
  EXPECT_NE(depfile.find((dir_ / "a.cpp").string()), std::string::npos) << depfile;
  EXPECT_NE(depfile.find("vmap/vmap.hpp"), std::string::npos) << depfile;
}

TEST_F(CommandLine, DepfileDefaultsToTheOutputName) {
  file("a.cpp", kNoLoops);
  ASSERT_EQ(run("a.cpp -o out.cpp -MD").status, 0);
  EXPECT_TRUE(fs::exists(dir_ / "out.cpp.d"));
}

TEST_F(CommandLine, SeveralInputsInPlace) {
  fs::path first = file("a.cpp", kAddOne);
  fs::path second = file("b.cpp", kNoLoops);
  tool_run result = run("a.cpp b.cpp -i");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_NE(read_file(first).find("vmap::batched"), std::string::npos);
  EXPECT_EQ(read_file(second), kNoLoops);
}

// Issue 31: -MF and --remarks-file wrote over the input, however it is spelled. Bad usage
// (exit 2), nothing written: not the input, not -o's file.
TEST_F(CommandLine, AnOutputNamingAnInputIsBadUsage) {
  fs::create_directories(dir_ / "sub");
  fs::path input = file("a.cpp", kAddOne);
  fs::create_symlink("a.cpp", dir_ / "link.cpp");
  fs::create_hard_link(input, dir_ / "hard.cpp");
  for (const std::string& spelling :
       {std::string("a.cpp"), std::string("./a.cpp"), std::string("sub/../a.cpp"),
        input.string(), std::string("link.cpp"), std::string("hard.cpp")})
    for (const std::string& option :
         {"-MD -MF " + spelling, "--remarks-file=" + spelling, "--export-fixes=" + spelling}) {
      tool_run result = run("a.cpp -o out.cpp " + option);
      EXPECT_EQ(result.status, 2) << option << ": " << result.err;
      EXPECT_NE(result.err.find("names the input file 'a.cpp', which it would overwrite"),
                std::string::npos)
          << option << ": " << result.err;
      EXPECT_EQ(read_file(input), kAddOne) << option;
      EXPECT_FALSE(fs::exists(dir_ / "out.cpp")) << option;
    }
  // With -i the input is rewritten; its depfile must go elsewhere.
  EXPECT_EQ(run("a.cpp -i -MD -MF ./a.cpp").status, 2);
  EXPECT_EQ(read_file(input), kAddOne);
}

TEST_F(CommandLine, TwoOutputsNamingOneFileAreBadUsage) {
  file("a.cpp", kAddOne);
  tool_run result = run("a.cpp -o out.cpp -MD -MF ./out.cpp");
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("-MF './out.cpp' and -o 'out.cpp' name the same file"),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.cpp"));
  EXPECT_EQ(run("a.cpp --remarks-file=r.yaml --export-fixes=r.yaml").status, 2);
  EXPECT_FALSE(fs::exists(dir_ / "r.yaml"));
}

// -o may still name the input: that rewrites it, as -i does.
TEST_F(CommandLine, OutputNamingTheInputRewritesIt) {
  fs::path input = file("a.cpp", kAddOne);
  tool_run result = run("a.cpp -o ./a.cpp -MD -MF a.d");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_NE(read_file(input).find("vmap::batched"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir_ / "a.d"));
}

// Issue 31: an -MF or --remarks-file in a missing directory failed the run after -o's file
// was written. Every output is checked before any is written.
TEST_F(CommandLine, AnOutputThatCannotBeWrittenLeavesTheOthersAlone) {
  file("a.cpp", kAddOne);
  for (const std::string& option :
       {std::string("-MD -MF missing/a.d"), std::string("--remarks-file=missing/r.yaml"),
        std::string("--export-fixes=missing/f.yaml")}) {
    tool_run result = run("a.cpp -o out.cpp " + option);
    EXPECT_EQ(result.status, 1) << option;
    EXPECT_NE(result.err.find("is in a directory that does not exist; nothing written"),
              std::string::npos)
        << option << ": " << result.err;
    EXPECT_FALSE(fs::exists(dir_ / "out.cpp")) << option;
  }
  // An existing -o file keeps its contents; a read-only depfile fails the run up front.
  fs::path out = file("out.cpp", "old\n");
  fs::path depfile = file("a.d", "old rule\n");
  fs::permissions(depfile, fs::perms(0444));
  tool_run result = run("a.cpp -o out.cpp -MD -MF a.d --remarks-file=r.yaml");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("'a.d' is not writable; nothing written"), std::string::npos)
      << result.err;
  EXPECT_EQ(read_file(out), "old\n");
  EXPECT_EQ(read_file(depfile), "old rule\n");
  EXPECT_FALSE(fs::exists(dir_ / "r.yaml"));
}

// Issue 31: a `#pragma vmap` under `#if 0` (Note [Pragmas in skipped code]) in a file named
// by a relative path was refused in clang's words: its #error replacement named the file as
// given, the loops' replacements by its absolute path.
TEST_F(CommandLine, PragmaInSkippedCodeOfARelativePathIsRewritten) {
  const std::string source = std::string(kAddOne) + "#if 0\n#pragma vmap\n#endif\n";
  fs::create_directories(dir_ / "src");
  file("src/a.cpp", source);
  for (const std::string& path : {std::string("src/a.cpp"), std::string("./src/../src/a.cpp"),
                                  (dir_ / "src/a.cpp").string()}) {
    tool_run result = run(path);
    ASSERT_EQ(result.status, 0) << path << ": " << result.err;
    EXPECT_NE(result.out.find("vb::at(out, i) = vb::at(x, i) + 1;"), std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("#error \"clang-vmap: this '#pragma vmap' loop was not rewritten"),
              std::string::npos)
        << result.out;
  }
}

TEST_F(CommandLine, OneRefusedInputFailsTheRunButNotTheOthers) {
  fs::path good = file("a.cpp", kAddOne);
  fs::path bad = file("b.cpp", kPragmaWithoutLoop);
  tool_run result = run("a.cpp b.cpp -i");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(read_file(good).find("vmap::batched"), std::string::npos);
  EXPECT_EQ(read_file(bad), kPragmaWithoutLoop);
}

}  // namespace

// A loop whose one statement sums `terms` copies of `a[i]`: clang parses any length
// (its parser loops over binary operators); the tool's passes recurse (issue 18).
std::string deep_sum(int terms) {
  std::string sum = "a[i]";
  for (int term = 1; term < terms; ++term) sum += " + a[i]";
  return "#include <vmap/vmap.hpp>\nusing namespace vmap;\n"
         "void deep(const Tensor& a, Tensor& out) {\n#pragma vmap\n"
         "  for (int64_t i = 0; i < a.size(0); ++i)\n    out[i] = " +
         sum + ";\n}\n";
}

TEST_F(CommandLine, DeepExpressionsAreRewritten) {
  for (int terms : {2000, 10000}) {
    file("deep.cpp", deep_sum(terms));
    tool_run result = run("deep.cpp -o out.cpp");
    ASSERT_EQ(result.status, 0) << terms << " terms: " << result.err.substr(0, 2000);
    std::string rewritten = read_file(dir_ / "out.cpp");
    // One fused kernel (Note [Which chains are fused]) of the whole sum, its device text
    // first (Note [Fused kernels on a device]).
    const std::string kernel = "vb::at(out, i) = vb::fused(vb::DeviceCode{\"[](const auto& ";
    const std::size_t at = rewritten.find(kernel);
    ASSERT_NE(at, std::string::npos) << rewritten.substr(0, 2000);
    const std::size_t name_begin = at + kernel.size();
    const std::string name = rewritten.substr(name_begin, rewritten.find(')', name_begin) - name_begin);
    EXPECT_NE(rewritten.find("return " + name + " + " + name + " + " + name + " +"), std::string::npos);
  }
}

TEST_F(CommandLine, TooDeepExpressionIsRefusedAtItsLine) {
  fs::path input = file("deep.cpp", deep_sum(25000));
  tool_run result = run("deep.cpp -i");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("deep.cpp:6:21: error: expression nested more than 100000 levels deep"),
            std::string::npos)
      << result.err.substr(0, 2000);
  EXPECT_EQ(read_file(input), deep_sum(25000));
}

// A UTF-8 byte-order mark stays the file's first bytes; the added include goes after it
// (issue 18: it went before, and the rewrite did not compile). CRLF line ends too.
TEST_F(CommandLine, ByteOrderMarkAndCrlfSourcesAreRewritten) {
  const std::string bom = "\xEF\xBB\xBF";
  std::string crlf;
  for (char c : std::string(kAddOne)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  // Without <vmap/vmap.hpp> spelled, the include goes at the top: after the mark.
  std::string other_include = kAddOne;
  other_include.replace(other_include.find("vmap/vmap.hpp"), 13, "vmap/tensor.hpp");
  for (const std::string& text : {bom + other_include, bom + crlf, crlf}) {
    file("a.cpp", text);
    tool_run result = run("a.cpp -o out.cpp");
    ASSERT_EQ(result.status, 0) << result.err;
    std::string rewritten = read_file(dir_ / "out.cpp");
    EXPECT_EQ(rewritten.substr(0, 3) == bom, text.substr(0, 3) == bom) << rewritten;
    EXPECT_NE(rewritten.find("#include <vmap/batched.hpp>"), std::string::npos) << rewritten;
    EXPECT_NE(rewritten.find("vb::at(out, i) = vb::at(x, i) + 1;"), std::string::npos) << rewritten;
  }
}

// -o and -i write regular files only (issue 18: they renamed a temporary over whatever was
// at the path, devices, FIFOs and links included). README "Output files".
namespace {

class OutputFiles : public ToolTest {
 protected:
  // What `clang-vmap <path>` prints: the rewrite a write must hold (its #line names <path>).
  std::string printed(const std::string& path) {
    tool_run result = run(path);
    EXPECT_EQ(result.status, 0) << result.err;
    EXPECT_NE(result.out.find("vmap::batched"), std::string::npos) << result.out;
    return result.out;
  }
  // The run fails with the tool's error naming `path`.
  static void expect_refused(const tool_run& result, const std::string& path,
                             const std::string& why) {
    EXPECT_EQ(result.status, 1);
    EXPECT_NE(result.err.find("clang-vmap: error: '" + path + "' " + why + "; nothing written"),
              std::string::npos)
        << result.err;
    EXPECT_EQ(result.out, "");
  }
};

TEST_F(OutputFiles, InPlaceOnASymlinkRewritesItsTargetAndKeepsTheLink) {
  fs::create_directories(dir_ / "src");
  fs::path target = file("src/a.cpp", kAddOne);
  fs::create_symlink("src/a.cpp", dir_ / "link.cpp");
  std::string expected = without_line_directives(printed("link.cpp"));
  tool_run result = run("link.cpp -i");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link.cpp")));
  EXPECT_EQ(fs::read_symlink(dir_ / "link.cpp"), "src/a.cpp");
  EXPECT_EQ(read_file(target), expected);
  // No temporary left next to the link or the target.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "src"), fs::directory_iterator()), 1);
}

TEST_F(OutputFiles, OutputThroughASymlinkWritesItsTarget) {
  file("a.cpp", kAddOne);
  std::string expected = printed("a.cpp");
  fs::path target = file("old.cpp", "old\n");
  fs::create_symlink("old.cpp", dir_ / "out.cpp");
  tool_run result = run("a.cpp -o out.cpp");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "out.cpp")));
  EXPECT_EQ(read_file(target), expected);
}

TEST_F(OutputFiles, SymlinkToNothingIsRefused) {
  file("a.cpp", kAddOne);
  fs::create_symlink("missing.cpp", dir_ / "out.cpp");
  expect_refused(run("a.cpp -o out.cpp"), "out.cpp", "is a symbolic link to no file");
  EXPECT_FALSE(fs::exists(dir_ / "missing.cpp"));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "out.cpp")));
}

TEST_F(OutputFiles, InPlaceKeepsHardLinks) {
  fs::path first = file("a.cpp", kAddOne);
  fs::path second = dir_ / "b.cpp";
  fs::create_hard_link(first, second);
  for (const std::string name : {"a.cpp", "b.cpp"}) {
    write_file(dir_ / name, kAddOne);  // into the shared inode
    std::string expected = without_line_directives(printed(name));
    tool_run result = run(name + " -i");
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_TRUE(fs::equivalent(first, second));
    EXPECT_EQ(fs::hard_link_count(first), 2u);
    EXPECT_EQ(read_file(first), expected);
    EXPECT_EQ(read_file(second), expected);
  }
}

TEST_F(OutputFiles, OutputOverAHardLinkedFileWritesBothNames) {
  file("a.cpp", kAddOne);
  std::string expected = printed("a.cpp");
  fs::path out = file("out.cpp", std::string(5000, 'x'));  // longer than the rewrite
  fs::create_hard_link(out, dir_ / "other.cpp");
  tool_run result = run("a.cpp -o out.cpp");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(fs::equivalent(out, dir_ / "other.cpp"));
  EXPECT_EQ(read_file(out), expected);
  EXPECT_EQ(read_file(dir_ / "other.cpp"), expected);
}

TEST_F(OutputFiles, InPlaceAndOutputKeepTheMode) {
  for (auto mode : {fs::perms(0640), fs::perms(0755), fs::perms(0600)}) {
    fs::path input = file("a.cpp", kAddOne);
    fs::path out = file("out.cpp", "old\n");
    fs::permissions(input, mode);
    fs::permissions(out, mode);
    std::string expected = printed("a.cpp");
    tool_run to_file = run("a.cpp -o out.cpp");
    ASSERT_EQ(to_file.status, 0) << to_file.err;
    EXPECT_EQ(read_file(out), expected);
    EXPECT_EQ(fs::status(out).permissions(), mode);
    tool_run in_place = run("a.cpp -i");
    ASSERT_EQ(in_place.status, 0) << in_place.err;
    EXPECT_EQ(read_file(input), without_line_directives(expected));
    EXPECT_EQ(fs::status(input).permissions(), mode);
  }
}

TEST_F(OutputFiles, InPlaceKeepsTheOwner) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  fs::path input = file("a.cpp", kAddOne);
  ASSERT_EQ(chown(input.c_str(), 12345, 23456), 0);
  tool_run result = run("a.cpp -i");
  ASSERT_EQ(result.status, 0) << result.err;
  struct stat after {};
  ASSERT_EQ(stat(input.c_str(), &after), 0);
  EXPECT_EQ(after.st_uid, 12345u);
  EXPECT_EQ(after.st_gid, 23456u);
  EXPECT_NE(read_file(input).find("vmap::batched"), std::string::npos);
}

// As editors do, root included: a file without write permission is not rewritten.
TEST_F(OutputFiles, ReadOnlyFilesAreRefused) {
  fs::path input = file("a.cpp", kAddOne);
  fs::path out = file("out.cpp", "old\n");
  fs::permissions(input, fs::perms(0444));
  fs::permissions(out, fs::perms(0444));
  expect_refused(run("a.cpp -i"), "a.cpp", "is not writable");
  EXPECT_EQ(read_file(input), kAddOne);
  expect_refused(run("a.cpp -o out.cpp"), "out.cpp", "is not writable");
  EXPECT_EQ(read_file(out), "old\n");
  EXPECT_EQ(fs::status(out).permissions(), fs::perms(0444));
}

TEST_F(OutputFiles, NewOutputFileGetsTheUmasksMode) {
  file("a.cpp", kAddOne);
  mode_t old_mask = umask(027);  // the tool, started by system(), inherits it
  tool_run result = run("a.cpp -o out.cpp");
  umask(old_mask);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "out.cpp"));
  EXPECT_EQ(fs::status(dir_ / "out.cpp").permissions(), fs::perms(0640));
}

TEST_F(OutputFiles, DashOutputIsStdout) {
  file("a.cpp", kAddOne);
  std::string expected = printed("a.cpp");
  tool_run result = run("a.cpp -o -");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, expected);
  EXPECT_FALSE(fs::exists(dir_ / "-"));
}

TEST_F(OutputFiles, FifoIsRefusedWithoutBlocking) {
  file("a.cpp", kAddOne);
  fs::path fifo = dir_ / "pipe.cpp";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  // Held open both ways, so a tool that opened it would not block, and what it wrote
  // would be read here.
  int held = open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(held, 0);
  expect_refused(run("a.cpp -o pipe.cpp"), "pipe.cpp", "is not a regular file");
  expect_refused(run("pipe.cpp -i"), "pipe.cpp", "is not a regular file");
  char byte;
  EXPECT_EQ(read(held, &byte, 1), -1);  // nothing was written into it
  EXPECT_EQ(errno, EAGAIN);
  close(held);
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
}

TEST_F(OutputFiles, DevicesAreRefusedAndStayDevices) {
  file("a.cpp", kAddOne);
  // Copies of /dev/null and /dev/full in the test's directory first (mknod needs root), so
  // a tool that replaced devices fails here before it can replace the system's.
  for (auto [name, minor] : {std::pair{"null", 3}, std::pair{"full", 7}}) {
    fs::path device = dir_ / name;
    if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, minor)) != 0) continue;
    expect_refused(run("a.cpp -o " + std::string(name)), name, "is not a regular file");
    expect_refused(run(std::string(name) + " -i"), name, "is not a regular file");
    ASSERT_TRUE(fs::is_character_file(fs::symlink_status(device))) << device;
  }
  for (const std::string device : {"/dev/null", "/dev/full"}) {
    if (!fs::is_character_file(device)) continue;
    expect_refused(run("a.cpp -o " + device), device, "is not a regular file");
    expect_refused(run(device + " -i"), device, "is not a regular file");
    EXPECT_TRUE(fs::is_character_file(fs::symlink_status(device))) << device;
  }
}

TEST_F(OutputFiles, SocketIsRefused) {
  file("a.cpp", kAddOne);
  fs::path socket_path = dir_ / "out.cpp";
  int listening = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(listening, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.string().size(), sizeof(address.sun_path));
  std::strcpy(address.sun_path, socket_path.c_str());
  ASSERT_EQ(bind(listening, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  expect_refused(run("a.cpp -o out.cpp"), "out.cpp", "is not a regular file");
  EXPECT_TRUE(fs::is_socket(fs::symlink_status(socket_path)));
  close(listening);
}

TEST_F(OutputFiles, DirectoryIsRefused) {
  file("a.cpp", kAddOne);
  fs::create_directories(dir_ / "out.cpp");
  expect_refused(run("a.cpp -o out.cpp"), "out.cpp", "is not a regular file");
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(dir_ / "out.cpp")));
  EXPECT_TRUE(fs::is_empty(dir_ / "out.cpp"));
}

// The refusal comes before the path is looked at: a refused file writes nothing.
TEST_F(OutputFiles, RefusedFileLeavesALinkedOutputAlone) {
  file("a.cpp", kAddOneThenBreak);
  fs::path target = file("old.cpp", "old\n");
  fs::create_symlink("old.cpp", dir_ / "out.cpp");
  tool_run result = run("a.cpp -o out.cpp");
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(read_file(target), "old\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "out.cpp")));
}

}  // namespace

// --rewrite-header (Note [Rewriting a header]): a header's loops, as the sources that
// include it compile it.
namespace header_mode {
constexpr const char* kHeader = R"(#pragma once
#include <vmap/vmap.hpp>
inline void twice(const vmap::Tensor& x, vmap::Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * 2;
}
template <class T>
void shifted(const vmap::Tensor& x, vmap::Tensor& out, T by) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + by;
}
)";
constexpr const char* kUsesFloat =
    "#include \"ops.hpp\"\n"
    "void f(const vmap::Tensor& x, vmap::Tensor& y) { shifted(x, y, 1.5f); }\n";
constexpr const char* kUsesDouble =
    "#include \"ops.hpp\"\n"
    "void g(const vmap::Tensor& x, vmap::Tensor& y) { shifted(x, y, 2.5); twice(x, y); }\n";
constexpr const char* kIncludesNothing = "int h() { return 1; }\n";
}  // namespace header_mode

TEST_F(CommandLine, RewriteHeaderMergesTheSourcesThatIncludeIt) {
  using namespace header_mode;
  file("ops.hpp", kHeader);
  file("a.cpp", kUsesFloat);
  file("b.cpp", kUsesDouble);
  file("c.cpp", kIncludesNothing);
  tool_run result = run("--rewrite-header=ops.hpp -o out.hpp a.cpp b.cpp c.cpp");
  ASSERT_EQ(result.status, 0) << result.err;
  const std::string rewritten = read_file(dir_ / "out.hpp");
  EXPECT_EQ(rewritten.find("#pragma vmap"), std::string::npos) << rewritten;
  EXPECT_NE(rewritten.find("vb::at(x, i) * 2"), std::string::npos) << rewritten;
  EXPECT_NE(rewritten.find("#include <vmap/batched.hpp>"), std::string::npos) << rewritten;
  EXPECT_NE(rewritten.find("ops.hpp\""), std::string::npos) << rewritten;  // #line names it
  EXPECT_EQ(read_file(dir_ / "ops.hpp"), kHeader);  // the header itself is untouched
}

TEST_F(CommandLine, RewriteHeaderRefusesATemplateNoSourceInstantiates) {
  using namespace header_mode;
  file("ops.hpp", kHeader);
  file("b.cpp", "#include \"ops.hpp\"\n");
  tool_run result = run("--rewrite-header=ops.hpp -o out.hpp b.cpp");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("ops.hpp:10:1: error: this loop is in a function template that "
                            "none of the sources instantiates"),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.hpp"));
}

TEST_F(CommandLine, RewriteHeaderNeedsASourceThatIncludesIt) {
  using namespace header_mode;
  file("ops.hpp", kHeader);
  file("c.cpp", kIncludesNothing);
  tool_run result = run("--rewrite-header=ops.hpp -o out.hpp c.cpp");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("none of the sources includes ops.hpp"), std::string::npos)
      << result.err;
}

TEST_F(CommandLine, PragmaInAHeaderRewrittenElsewhereIsLeftToIt) {
  using namespace header_mode;
  file("ops.hpp", kHeader);
  file("b.cpp", kUsesDouble);
  tool_run warned = run("b.cpp");
  EXPECT_EQ(warned.status, 0) << warned.err;
  EXPECT_NE(warned.err.find("ops.hpp:4:1: warning: '#pragma vmap' in an included file is not "
                            "rewritten: list the header in clang_vmap_sources()"),
            std::string::npos)
      << warned.err;
  tool_run quiet = run("b.cpp --rewritten-elsewhere=ops.hpp");
  EXPECT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("warning"), std::string::npos) << quiet.err;
}
