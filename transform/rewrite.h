//===- rewrite.h - Pass 5: replacements and the tool's output modes -------===//
//
// rewrite() turns the batched loops of one file into clang Replacements; the
// rest of this header writes them out as SPEC section 3 asks: the rewritten
// source (stdout, -o, -i), a unified diff, clang-apply-replacements YAML and
// a make-style depfile.
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_REWRITE_H
#define CLANG_VMAP_REWRITE_H

#include "pipeline.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace clang_vmap {

/// rewrite: replacements of the file rewritten, the main file or a header
/// (Note [Rewriting a header]; named \p MainFilePath in them) for
/// the batched loops among \p Outcomes; loops not batched are left alone.
/// Reports an error and returns nothing when two rewrites overlap or a loop
/// cannot be mapped back to that file's text.
std::optional<clang::tooling::Replacements>
rewrite(clang::ASTContext &Context, llvm::ArrayRef<LoopOutcome> Outcomes,
        llvm::StringRef MainFilePath, Diagnostics &Diags);

/// --dump-after=rewrite
void dumpReplacements(const clang::tooling::Replacements &Replacements,
                      llvm::raw_ostream &OS);

/// One input file after a successful rewrite.
struct RewrittenFile {
  std::string Path;         ///< as given on the command line
  std::string AbsolutePath; ///< as named in Replacements
  std::string Original;
  std::string Rewritten;
  clang::tooling::Replacements Replacements;
  std::vector<std::string> Dependencies; ///< every file the parse read
};

/// Note [Rewriting a header]: \p Files, rewrites of one header by the
/// sources that include it, as one: each replacement once (a loop outside
/// templates is rewritten the same by each), the dependencies of all. Two
/// replacements that overlap and differ are an error.
llvm::Expected<RewrittenFile>
mergeRewrites(llvm::ArrayRef<RewrittenFile> Files);

/// `diff -u` of \p Old against \p New, both named \p Path ("" if equal).
std::string unifiedDiff(llvm::StringRef Path, llvm::StringRef Old,
                        llvm::StringRef New);

/// Refuses \p Path, an existing path, unless it is or links to a regular
/// file; that file's real path and status go to \p Target and \p Status.
llvm::Error checkRegularFile(llvm::StringRef Path,
                             llvm::SmallVectorImpl<char> &Target,
                             llvm::sys::fs::file_status &Status);

/// Refuses \p Path unless writeOutputFile would write it: an existing path
/// must be (or link to) a regular file the user may write, a new one must be
/// in a writable directory. The driver checks every output before it writes
/// any, so a run that fails on one leaves the others as they were.
llvm::Error checkOutputFile(llvm::StringRef Path);

/// Writes \p Contents to \p Path ("-": stdout) as a regular file, and only
/// over a regular file the user may write: a symbolic link's target is
/// written, a file keeps its mode, owner and hard links; anything else at
/// \p Path (a device, FIFO, socket, directory) is refused, left untouched.
/// A file is replaced by a complete temporary renamed over it, so it is either
/// intact or complete, except one with several hard links: Note [Writing over
/// a file].
llvm::Error writeOutputFile(llvm::StringRef Path, llvm::StringRef Contents);

/// The replacements of \p Files and \p Diagnostics in the YAML clang-tidy
/// exports and clang-apply-replacements applies: each file's replacements as
/// the fix of one remark `clang-vmap-rewrite` at its first change.
llvm::Error exportFixes(llvm::StringRef YamlPath,
                        llvm::ArrayRef<RewrittenFile> Files,
                        llvm::ArrayRef<clang::tooling::Diagnostic> Diagnostics);

/// A make rule `Target: dependencies...` per pair, escaped for make.
llvm::Error
writeDepfile(llvm::StringRef DepfilePath,
             llvm::ArrayRef<std::pair<std::string, const RewrittenFile *>>
                 TargetsAndFiles);

} // namespace clang_vmap

#endif
