//===- driver_outputs.cpp - The outputs of clang-vmap ---------------------===//
//
// What the driver writes and how it checks it first: the rewritten source
// (stdout, -o, -i, --diff), a header's rewrites merged (--rewrite-header),
// the output paths checked before anything is parsed, and the driver's own
// error messages.
//
//===----------------------------------------------------------------------===//

#include "driver.h"
#include "ast_util.h"
#include "rewrite.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <set>

using namespace clang_vmap;

namespace {

/// "file:line:col" of \p Offset in \p Text, as a diagnostic starts.
std::string locationText(llvm::StringRef Path, llvm::StringRef Text,
                         unsigned Offset) {
  llvm::StringRef Before = Text.take_front(Offset);
  size_t LineStart = Before.rfind('\n');
  unsigned Column = LineStart == llvm::StringRef::npos
                        ? Offset + 1
                        : Offset - static_cast<unsigned>(LineStart);
  return (Path + ":" + llvm::Twine(Before.count('\n') + 1) + ":" +
          llvm::Twine(Column))
      .str();
}

/// Where \p Path leads: the file's identity when it exists (through symbolic
/// links and hard links), else its name in its directory's real path; for
/// comparing the paths the user gave in any spelling.
std::string fileIdentity(llvm::StringRef Path) {
  llvm::sys::fs::UniqueID ID;
  if (!llvm::sys::fs::getUniqueID(Path, ID))
    return "file " + std::to_string(ID.getDevice()) + ":" +
           std::to_string(ID.getFile());
  std::string Absolute = absolutePath(Path);
  llvm::SmallString<256> Directory;
  if (llvm::sys::fs::real_path(llvm::sys::path::parent_path(Absolute),
                               Directory))
    return "path " + Absolute;
  llvm::sys::path::append(Directory, llvm::sys::path::filename(Absolute));
  return "path " + std::string(Directory);
}

/// \p Text without the `#line` directives that name \p Path (Note [Line
/// directives]); a directive's line keeps what followed it (a comment).
std::string withoutLineDirectives(llvm::StringRef Text, llvm::StringRef Path) {
  const std::string Tail = " " + stringLiteral(absolutePath(Path));
  std::string Out;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    bool HasNewline = Line.size() < Text.size();
    Text = Rest;
    llvm::StringRef Number = Line;
    if (Number.consume_front("#line ")) {
      Number = Number.drop_while(llvm::isDigit);
      if (Number.size() < Line.size() - 6 && Number.consume_front(Tail)) {
        if (Number.trim().empty())
          continue; // the whole line was the directive
        Line = Number;
      }
    }
    Out += Line;
    if (HasNewline)
      Out += '\n';
  }
  return Out;
}

} // namespace

namespace clang_vmap {

std::string absolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

int usageError(const llvm::Twine &Message) {
  llvm::errs() << "clang-vmap: error: " << Message << "\n";
  return BadUsage;
}

bool succeeded(llvm::Error Err) {
  if (!Err)
    return true;
  llvm::errs() << "clang-vmap: error: " << llvm::toString(std::move(Err))
               << "\n";
  return false;
}

bool writeOutputs(const RewrittenFile &File) {
  bool Changed = File.Rewritten != File.Original;
  // Written over its own source (-i, or -o naming it), the rewrite is the
  // file the compiler reads: a `#line` naming that file would point its
  // messages at lines that now hold other code.
  const bool OverItsSource =
      InPlace || (!OutputPath.empty() &&
                  fileIdentity(OutputPath) == fileIdentity(File.Path));
  const std::string Rewritten =
      OverItsSource ? withoutLineDirectives(File.Rewritten, File.Path)
                    : File.Rewritten;
  if (PrintDiff)
    llvm::outs() << unifiedDiff(File.Path, File.Original, Rewritten);
  if (!OutputPath.empty())
    return succeeded(writeOutputFile(OutputPath, Rewritten));
  if (InPlace)
    return !Changed || succeeded(writeOutputFile(File.Path, Rewritten));
  if (!PrintDiff && ExportFixesPath.empty())
    llvm::outs() << Rewritten;
  return true;
}

std::optional<RewrittenFile>
mergeHeaderRewrites(llvm::ArrayRef<Job> Jobs,
                    llvm::ArrayRef<RewrittenFile> Files) {
  if (Files.empty()) {
    llvm::errs() << "clang-vmap: error: none of the sources includes "
                 << RewriteHeader << "\n";
    return std::nullopt;
  }
  llvm::DenseSet<unsigned> Batched;
  for (const Job &Job : Jobs)
    Batched.insert(Job.HeaderLoopsBatched.begin(),
                   Job.HeaderLoopsBatched.end());
  std::set<unsigned> NeverCompiled;
  for (const Job &Job : Jobs)
    for (unsigned Offset : Job.HeaderLoopsNotCompiled)
      if (!Batched.contains(Offset))
        NeverCompiled.insert(Offset);
  for (unsigned Offset : NeverCompiled)
    llvm::errs() << locationText(RewriteHeader, Files.front().Original, Offset)
                 << ": error: this loop is in a function template that none "
                    "of the sources instantiates: there is no code of it to "
                    "batch\n";
  if (!NeverCompiled.empty())
    return std::nullopt;
  llvm::Expected<RewrittenFile> Merged = mergeRewrites(Files);
  if (!succeeded(Merged.takeError()))
    return std::nullopt;
  return std::move(*Merged);
}

/// Note [Outputs checked first]: the output files of the options, checked
/// before anything is parsed or written. One that names an input, or another
/// output, is bad usage (it would overwrite the user's source or the other
/// output); -o may name the file rewritten, as -i does. One that cannot be
/// written (a missing directory, a device, a read-only file) fails the run
/// with nothing written. Returns the exit status, or nothing to go on.
std::optional<int> checkOutputs() {
  std::vector<std::pair<std::string, std::string>> Outputs; // option, path
  const std::pair<llvm::StringRef, llvm::StringRef> Named[] = {
      {"-o", OutputPath},
      {"-MF", DepfilePath},
      {"--remarks-file", RemarksFile},
      {"--export-fixes", ExportFixesPath}};
  for (auto [Option, Path] : Named)
    if (!Path.empty() && Path != "-")
      Outputs.push_back({Option.str(), Path.str()});
  std::vector<std::string> Inputs(SourcePaths.begin(), SourcePaths.end());
  if (!RewriteHeader.empty())
    Inputs.push_back(RewriteHeader);
  std::string Rewritten =
      RewriteHeader.empty()
          ? (SourcePaths.size() == 1 ? fileIdentity(SourcePaths.front()) : "")
          : fileIdentity(RewriteHeader);
  for (auto [Index, Output] : llvm::enumerate(Outputs)) {
    auto &[Option, Path] = Output;
    std::string Identity = fileIdentity(Path);
    for (const std::string &Input : Inputs)
      if (Identity == fileIdentity(Input) &&
          !(Option == "-o" && Identity == Rewritten))
        return usageError(Option + " '" + Path + "' names the input file '" +
                          Input + "', which it would overwrite");
    for (const auto &[OtherOption, OtherPath] :
         llvm::ArrayRef(Outputs).take_front(Index))
      if (Identity == fileIdentity(OtherPath))
        return usageError(Option + " '" + Path + "' and " + OtherOption +
                          " '" + OtherPath + "' name the same file");
  }
  for (const auto &[Option, Path] : Outputs)
    if (!succeeded(checkOutputFile(Path)))
      return Refused;
  return std::nullopt;
}

} // namespace clang_vmap
