//===- pipeline.h - The passes of clang-vmap and what flows between them --===//
//
// CONTRACT between the driver/find/rewrite side and the analyse/batch/emit side.
// The driver (driver_job.cpp) chains: find -> analyse -> batch -> emit ->
// rewrite. Each pass lives in its own .h/.cpp pair and exposes one function.
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_PIPELINE_H
#define CLANG_VMAP_PIPELINE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceLocation.h"
#include <optional>
#include <string>
#include <vector>

namespace clang_vmap {

class Diagnostics; // diagnostics.h: our own IDs through clang's DiagnosticsEngine.

/// A pragma's `randomness(...)` clause (Note [Randomness] in vmap/batched.hpp):
/// without one, a random factory in the body is refused.
enum class Randomness { Refused, Different, Same };

/// find: one `#pragma vmap` bound to the `for` that follows it.
struct VmapLoop {
  clang::SourceLocation PragmaLoc; ///< the `#` (or `_Pragma`) of the pragma
  const clang::ForStmt *For = nullptr;
  const clang::FunctionDecl *Function = nullptr; ///< the function holding it
  int Parent = -1; ///< index of the enclosing vmap loop in the list, -1 if none
  /// The clause of the pragma; an outermost loop's covers its nest.
  Randomness Random = Randomness::Refused;
  /// A plain loop of the nest run as a level, no pragma of its own (Note
  /// [Plain loops as levels] in passes.cpp); PragmaLoc is its `for`.
  bool Promoted = false;
};

/// What a top-level vmap loop (with its nested vmap loops) became.
struct LoopOutcome {
  const VmapLoop *Loop = nullptr;
  bool Batched = false;
  unsigned NumOps = 0;                   ///< batched op calls emitted
  std::vector<std::string> FallbackOps;  ///< ops run per example (no rule)
  std::string WhyNot;                    ///< when !Batched: the refusal, one line
  clang::SourceRange WhyNotRange;        ///< where, if emit refused (macros)
  /// Replacement of the source range [Begin, End) (pragma through the loop's
  /// end) and insertions (e.g. batched clones of called functions), as text.
  clang::CharSourceRange Range;
  std::string Text;
  std::vector<std::pair<clang::SourceLocation, std::string>> Insertions;
  /// Each call of a clone inserted, by the clone's heading (insertionHeading).
  std::vector<std::pair<std::string, clang::SourceLocation>> CloneCalls;
};

/// The first line of an insertion. A clone's names the function and its line,
/// so two insertions at one place with one heading are clones of one function:
/// a class template's member, asked for by two of its specializations.
inline llvm::StringRef insertionHeading(llvm::StringRef Text) {
  return Text.ltrim().split('\n').first;
}

} // namespace clang_vmap

#endif
