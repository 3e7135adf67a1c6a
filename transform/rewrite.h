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
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace clang_vmap {

/// rewrite: replacements of the main file (named \p MainFilePath in them) for
/// the batched loops among \p Outcomes; loops not batched are left alone.
/// Reports an error and returns nothing when two rewrites overlap or a loop
/// cannot be mapped back to the main file's text.
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

/// `diff -u` of \p Old against \p New, both named \p Path ("" if equal).
std::string unifiedDiff(llvm::StringRef Path, llvm::StringRef Old,
                        llvm::StringRef New);

/// Writes a temporary file next to \p Path and renames it over \p Path, so
/// \p Path is either intact or complete. An existing file keeps its mode.
llvm::Error writeFileAtomically(llvm::StringRef Path,
                                llvm::StringRef Contents);

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
