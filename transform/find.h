//===- find.h - Pass 1: every `#pragma vmap` and the loop it annotates ----===//
//
// While the file is parsed, a PragmaHandler records each `#pragma vmap` (also
// `_Pragma("vmap")`, directly or from a macro). After parsing, find() binds
// each pragma to the `for` statement whose first token follows it; a pragma
// followed by anything else is an error at the pragma.
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_FIND_H
#define CLANG_VMAP_FIND_H

#include "pipeline.h"
#include "clang/Lex/Pragma.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace clang {
class Preprocessor;
}

namespace clang_vmap {

/// One `#pragma vmap` as the preprocessor saw it.
struct VmapPragma {
  clang::PragmaIntroducerKind Kind;
  clang::SourceLocation Loc;    ///< the `#`, `_Pragma` or `__pragma`
  clang::SourceLocation EndLoc; ///< end of the directive's line (`#pragma`)
  Randomness Random = Randomness::Refused;
};

/// Registers the `vmap` pragma handler on \p PP; it appends to \p Pragmas,
/// which must outlive the parse.
void registerVmapPragma(clang::Preprocessor &PP,
                        std::vector<VmapPragma> &Pragmas, Diagnostics &Diags);

/// Note [Pragmas in skipped code]: a `#pragma vmap` in code the preprocessor
/// skips (`#ifdef NDEBUG` when the tool's flags lack -DNDEBUG) is not
/// rewritten; the rewrite turns it into an `#error`, so that if the compiler's
/// flags select that code, the build fails instead of running the loop per
/// example. Registers a callback that appends the location of each such
/// `#pragma vmap` of the file rewritten and the length of its text to
/// \p Skipped.
void registerSkippedPragmas(
    clang::Preprocessor &PP,
    std::vector<std::pair<clang::SourceLocation, unsigned>> &Skipped);

/// Note [Conditionals in a loop]: the batched code is built from the branch
/// of an `#if` that the tool's flags select, while the loop as written (the
/// overlap fallback, and the source the user's compiler reads) may select
/// another; such a loop is refused. Registers a callback that appends the
/// location of every `#if`, `#ifdef`, `#ifndef`, `#elif`, `#elifdef`,
/// `#elifndef`, `#else` and `#endif` of the main file or a header to
/// \p Directives, in source order per file.
void registerConditionals(clang::Preprocessor &PP,
                          std::vector<clang::SourceLocation> &Directives);

/// The first of \p Directives inside \p Range (from its first to its last
/// token, in one file), or an invalid location.
clang::SourceLocation
firstDirectiveIn(llvm::ArrayRef<clang::SourceLocation> Directives,
                 clang::SourceRange Range, const clang::SourceManager &SM);

/// find: the annotated loops of the file rewritten (Note [Rewriting a
/// header]), outer loops before the loops
/// nested in them (so a loop's Parent index is always smaller than its own).
std::vector<VmapLoop> find(clang::ASTContext &Context,
                           llvm::ArrayRef<VmapPragma> Pragmas,
                           Diagnostics &Diags);

/// Note [Loops in templates]: a loop in a function template (or a generic
/// lambda) is found in the template's pattern, whose expressions depend on
/// the template parameters; it is analysed in each compiled specialization of
/// the template instead. True for such a pattern: a function template's, a
/// generic lambda's, a member function's of a class template, a lambda's or
/// local class's function in one of these.
bool isTemplatePattern(const clang::FunctionDecl *Function);

/// The compiled specializations of \p Function, a template pattern (for a
/// member of a class template, its counterparts in the class's
/// specializations); empty for any other function.
llvm::SmallVector<const clang::FunctionDecl *, 4>
compiledSpecializations(const clang::FunctionDecl *Function);

/// \p Loops with the loop \p Top and the loops nested in it (all in
/// Top's function, a template pattern) replaced by their counterparts in
/// \p Specialization, one of its compiledSpecializations.
std::vector<VmapLoop> inSpecialization(llvm::ArrayRef<VmapLoop> Loops,
                                       unsigned Top,
                                       const clang::FunctionDecl *Specialization);

/// --dump-after=find: one line per loop.
void dumpLoops(llvm::ArrayRef<VmapLoop> Loops,
               const clang::SourceManager &SM, llvm::raw_ostream &OS);

} // namespace clang_vmap

#endif
