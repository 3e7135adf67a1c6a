//===- main.cpp - The clang-vmap driver -----------------------------------===//
//
// Parses the command line of SPEC section 3, runs the passes on each input
// (find -> analyse -> batch -> emit per top-level vmap loop -> rewrite) and
// writes the requested outputs. Exit status: 0 when every annotated loop was
// rewritten, 1 when a loop was refused or a source has errors, 2 for bad
// usage. This file is the run over every input; the command line, one
// input's parse and the outputs are driver_options.cpp, driver_job.cpp and
// driver_outputs.cpp (driver.h).
//
//===----------------------------------------------------------------------===//

#include "driver.h"
#include "ast_util.h"
#include "rewrite.h"
#include "clang/Basic/Stack.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include <csignal>

using namespace clang;
using namespace clang_vmap;
namespace cl = llvm::cl;

namespace {

/// Note [Deep expressions]
/// Clang parses a chain of 10,000 `+` (its parser loops over binary operators),
/// but the analysis, batch and emit passes recurse over the expression tree,
/// a few frames per node. Each file is therefore processed on a thread with a
/// 1 GiB stack (address space, used only as deep as the recursion goes), and
/// the analysis refuses a statement nested deeper than kMaxExpressionDepth
/// nodes (analyse.cpp), which that stack holds with a wide margin.
constexpr unsigned JobStackBytes = 1u << 30;

int runTool(int argc, const char **argv) {
  cl::HideUnrelatedOptions(ToolCategory);
  cl::SetVersionPrinter(printVersion);
  // Flags after `--` are the compile command for every input.
  std::string ErrorMessage;
  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      tooling::FixedCompilationDatabase::loadFromCommandLine(argc, argv,
                                                             ErrorMessage);
  if (!ErrorMessage.empty())
    return usageError(ErrorMessage);
  bool FixedFlags = Compilations != nullptr;
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "rewrites `#pragma vmap` per-example loops into batched calls\n",
          &llvm::errs()))
    return BadUsage;

  if (SourcePaths.empty())
    return usageError("no input files");
  if (!OutputPath.empty() && SourcePaths.size() > 1 && RewriteHeader.empty())
    return usageError("-o needs exactly one input file (or --rewrite-header)");
  if (!RewriteHeader.empty() && !llvm::sys::fs::exists(RewriteHeader))
    return usageError("no such header: " + RewriteHeader);
  if (!OutputPath.empty() && InPlace)
    return usageError("-o and -i cannot be used together");
  if (WriteDepfile && DepfilePath.empty()) {
    if (OutputPath.empty())
      return usageError("-MD needs -MF <file> or -o <file>");
    DepfilePath = OutputPath + ".d";
  }
  if (std::optional<int> Status = checkOutputs())
    return *Status;

  if (!Compilations && !BuildPath.empty()) {
    Compilations = tooling::CompilationDatabase::autoDetectFromDirectory(
        BuildPath, ErrorMessage);
    if (!Compilations)
      return usageError(ErrorMessage);
  }
  if (!Compilations)
    Compilations = tooling::CompilationDatabase::autoDetectFromSource(
        absolutePath(SourcePaths.front()), ErrorMessage);
  if (!Compilations) { // no flags anywhere: plain C++20
    Compilations = std::make_unique<tooling::FixedCompilationDatabase>(
        ".", std::vector<std::string>());
    FixedFlags = true;
  }

  std::vector<std::string> FallbackIncludes = fallbackIncludeDirs(argv[0]);
  bool ShowProgress =
      SourcePaths.size() > 1 && llvm::sys::Process::StandardErrIsDisplayed();
  std::vector<std::string> Elsewhere;
  for (const std::string &Header : RewrittenElsewhere)
    Elsewhere.push_back(absolutePath(Header));
  setRewrittenFile(RewriteHeader.empty() ? "" : absolutePath(RewriteHeader),
                   std::move(Elsewhere));
  std::vector<Job> Jobs;
  for (const std::string &Path : SourcePaths) {
    Job &Job = Jobs.emplace_back();
    Job.Path = Path;
    Job.AbsolutePath = absolutePath(Path);
    Job.RewrittenPath = RewriteHeader.empty() ? Path : RewriteHeader;
    Job.RewrittenAbsolutePath = absolutePath(Job.RewrittenPath);
  }
  bool AllRewritten = true;
  unsigned LoopsLeftAsWritten = 0;
  RemarkLog Log; // --remarks-file: the loops of every input, refused included
  for (auto [Index, Job] : llvm::enumerate(Jobs)) {
    if (ShowProgress)
      llvm::errs() << "[" << Index + 1 << "/" << Jobs.size() << "] "
                   << Job.Path << "\n";
    if (!llvm::sys::fs::exists(Job.Path)) {
      llvm::errs() << "clang-vmap: error: no such file: " << Job.Path << "\n";
      AllRewritten = false;
      continue;
    }
    // -i rewrites regular files only: a FIFO or device is not even read.
    llvm::SmallString<256> Target;
    llvm::sys::fs::file_status Status;
    if (InPlace && !succeeded(checkRegularFile(Job.Path, Target, Status))) {
      AllRewritten = false;
      continue;
    }
    // A fixed command names the file as given, so diagnostics do too.
    std::vector<tooling::CompileCommand> Commands =
        Compilations->getCompileCommands(FixedFlags ? Job.Path
                                                    : Job.AbsolutePath);
    if (Commands.empty()) {
      llvm::errs() << "clang-vmap: error: no compile command for " << Job.Path
                   << "\n";
      AllRewritten = false;
      continue;
    }
    // A crash in the tool fails this file (left as it was), not the run.
    // Note [Deep expressions]: the passes recurse over expressions, so the
    // job runs on a thread with a stack for what clang parses.
    bool Rewritten = false;
    llvm::CrashRecoveryContext Recovery;
    if (!Recovery.RunSafelyOnThread(
            [&] {
              clang::noteBottomOfStack(); // clang's own checks measure from here
              Rewritten = runJob(Job, Commands.front(), FallbackIncludes,
                                 RemarksFile.empty() ? nullptr : &Log);
            },
            JobStackBytes))
      llvm::errs() << "clang-vmap: error: internal error while rewriting "
                   << Job.Path << "; it is left as it was\n";
    if (!Rewritten)
      AllRewritten = false;
    else if (!Job.Result)
      continue; // --rewrite-header: a source that does not include it
    else if (RewriteHeader.empty() && !writeOutputs(*Job.Result))
      AllRewritten = false;
    // --keep-going writes what it could and still fails the run, as `make -k`
    // does: SPEC's status 0 means every annotated loop was rewritten.
    else
      LoopsLeftAsWritten += Job.LoopsLeftAsWritten;
  }
  if (!RemarksFile.empty() && !succeeded(Log.writeYaml(RemarksFile)))
    return Refused;
  // The fixes of the files rewritten and the diagnostics of all, refusals
  // included, as clang-tidy exports them.
  if (!ExportFixesPath.empty()) {
    std::vector<RewrittenFile> Rewritten;
    std::vector<tooling::Diagnostic> Diagnostics;
    for (Job &Job : Jobs) {
      if (Job.Result)
        Rewritten.push_back(*Job.Result);
      llvm::append_range(Diagnostics, Job.Diagnostics);
    }
    if (!succeeded(exportFixes(ExportFixesPath, Rewritten, Diagnostics)))
      return Refused;
  }
  if (!AllRewritten)
    return Refused;

  std::vector<RewrittenFile> Files;
  for (Job &Job : Jobs)
    if (Job.Result)
      Files.push_back(std::move(*Job.Result));
  if (!RewriteHeader.empty()) {
    std::optional<RewrittenFile> Header = mergeHeaderRewrites(Jobs, Files);
    if (!Header || !writeOutputs(*Header))
      return Refused;
    Files = {std::move(*Header)};
  }
  if (!DepfilePath.empty()) {
    std::vector<std::pair<std::string, const RewrittenFile *>> Targets;
    for (const RewrittenFile &File : Files)
      Targets.push_back({OutputPath.empty() ? File.Path : OutputPath, &File});
    if (!succeeded(writeDepfile(DepfilePath, Targets)))
      return Refused;
  }
  if (LoopsLeftAsWritten > 0) {
    // The refusals' warnings may be silenced (-Wno-vmap-refused): this line
    // still says why the status is 1.
    llvm::errs() << "clang-vmap: " << LoopsLeftAsWritten
                 << (LoopsLeftAsWritten == 1 ? " loop was" : " loops were")
                 << " left as written (--keep-going): exit status 1\n";
    return Refused;
  }
  return Success;
}

} // namespace

int main(int argc, const char **argv) {
  llvm::InitLLVM Init(argc, argv);
  llvm::CrashRecoveryContext::Enable();
  // A reader that closes standard output early (`| head`) makes writes to it
  // fail, not end the run: the other outputs (--remarks-file, -MF) are still
  // written and the status is the rewrite's. LLVM's own handler would exit 74.
  std::signal(SIGPIPE, SIG_IGN);
  int Status = runTool(argc, argv);
  llvm::outs().flush();
  llvm::outs().clear_error(); // the dropped output is not a failure
  return Status;
}
