//===- driver.h - What the driver's files share -----------------*- C++ -*-===//
//
// The driver (main.cpp) is four files: the command line (driver_options.cpp),
// one input's parse and passes (driver_job.cpp), the outputs it writes
// (driver_outputs.cpp) and the run over every input (main.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_DRIVER_H
#define CLANG_VMAP_DRIVER_H

#include "passes.h"
#include "remarks.h"
#include "rewrite.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace clang_vmap {

enum ExitStatus { Success = 0, Refused = 1, BadUsage = 2 };

//===-- the command line (driver_options.cpp) -----------------------------===//

extern llvm::cl::OptionCategory ToolCategory;
extern llvm::cl::list<std::string> SourcePaths;
extern llvm::cl::opt<std::string> BuildPath;
extern llvm::cl::list<std::string> ExtraArgs;
extern llvm::cl::list<std::string> ExtraArgsBefore;
extern llvm::cl::opt<std::string> OutputPath;
extern llvm::cl::opt<bool> InPlace;
extern llvm::cl::opt<bool> PrintDiff;
extern llvm::cl::opt<std::string> ExportFixesPath;
extern llvm::cl::opt<bool> Remarks;
extern llvm::cl::opt<std::string> RemarksFile;
extern llvm::cl::opt<bool> WriteDepfile;
extern llvm::cl::opt<std::string> DepfilePath;
extern llvm::cl::opt<std::string> RewriteHeader;
extern llvm::cl::list<std::string> RewrittenElsewhere;
extern llvm::cl::opt<bool> KeepGoing;
extern llvm::cl::opt<bool> CheckMode;
extern llvm::cl::opt<Pass> DumpAfter;

void printVersion(llvm::raw_ostream &OS);

//===-- one input (driver_job.cpp) ----------------------------------------===//

/// One input file and, once it is rewritten, the result.
struct Job {
  std::string Path;         ///< as given
  std::string AbsolutePath;
  /// The file rewritten: the source, or the header of --rewrite-header (as
  /// given, and as named in replacements).
  std::string RewrittenPath;
  std::string RewrittenAbsolutePath;
  std::optional<RewrittenFile> Result;
  unsigned LoopsLeftAsWritten = 0; ///< refused under --keep-going
  /// The compile command's -W flags of the tool's own warnings.
  std::vector<std::string> WarningFlags;
  std::vector<clang::tooling::Diagnostic> Diagnostics; ///< for --export-fixes
  /// --rewrite-header: whether the source includes the header, and the
  /// header's loops (their pragmas' offsets) this source batched, or left
  /// to the others as templates it never instantiates.
  bool IncludesHeader = true;
  std::vector<unsigned> HeaderLoopsBatched;
  std::vector<unsigned> HeaderLoopsNotCompiled;
};

/// Include directories holding <vmap/vmap.hpp>, searched after the user's
/// own: the installed tree next to the tool, else the source tree it was
/// built from.
std::vector<std::string> fallbackIncludeDirs(const char *Argv0);

/// Parses the job's file with its compile command; fills Job.Result when the
/// file was rewritten (possibly to itself). False when it was not.
bool runJob(Job &Job, const clang::tooling::CompileCommand &Command,
            llvm::ArrayRef<std::string> FallbackIncludes, RemarkLog *Log);

//===-- the outputs (driver_outputs.cpp) ----------------------------------===//

std::string absolutePath(llvm::StringRef Path);

/// Prints \p Message as a usage error; returns BadUsage.
int usageError(const llvm::Twine &Message);

/// Prints \p Err, if any; true when there was none.
bool succeeded(llvm::Error Err);

/// Writes what the options ask for one rewritten file; false on failure.
bool writeOutputs(const RewrittenFile &File);

/// Note [Rewriting a header]: the header's rewrites by the sources that
/// include it (\p Files, from \p Jobs), as one file. A loop in a template
/// is batched by the sources that instantiate it; one that none does is
/// refused, as in a source.
std::optional<RewrittenFile>
mergeHeaderRewrites(llvm::ArrayRef<Job> Jobs,
                    llvm::ArrayRef<RewrittenFile> Files);

/// Note [Outputs checked first]: checks the output files of the options
/// before anything is parsed or written. Returns the exit status, or nothing
/// to go on.
std::optional<int> checkOutputs();

} // namespace clang_vmap

#endif
