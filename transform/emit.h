//===- emit.h - Print the batched C++ of a vmap loop --------------*- C++ -*-===//
//
// Pass 4 of clang-vmap: readable C++ with the user's names, one statement per
// original statement (each with a trailing `// line N`), fixed `_b_` names
// for generated ones, the pragma removed. Loop-invariant code is copied
// verbatim from the source.
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_EMIT_H
#define CLANG_VMAP_EMIT_H

#include "batch.h"
#include <map>

namespace clang_vmap {

/// Note [Clones in several roles]
/// The names of the batched clones of one translation unit, by role: which
/// parameters of the function are per-example.
class CloneNames {
public:
  /// The name of the clone of \p F (cloneName's) in the role \p PerExample.
  std::string name(const clang::FunctionDecl *F,
                   llvm::ArrayRef<bool> PerExample);
  /// What the clone of \p F in role \p PerExample is for, as its heading
  /// says: "" for the first role the file used, else "for calls with only
  /// 'v' per example".
  std::string roleText(const clang::FunctionDecl *F,
                       llvm::ArrayRef<bool> PerExample);

  struct Role {
    llvm::SmallVector<bool, 4> PerExample;
    std::string Name;
  };
  struct Function {
    const clang::FunctionDecl *Decl;
    std::vector<Role> Roles; ///< in the order the file met them
  };
  /// Every function cloned, by its clone's base name and its place.
  const std::map<std::pair<std::string, unsigned>, Function> &
  functions() const {
    return Functions;
  }

private:
  const Role &role(const clang::FunctionDecl *F,
                   llvm::ArrayRef<bool> PerExample);
  std::map<std::pair<std::string, unsigned>, Function> Functions;
};

/// The parameters of \p F marked in \p PerExample, quoted: "'v', 'q'".
std::string perExampleParams(const clang::FunctionDecl *F,
                             llvm::ArrayRef<bool> PerExample);

/// The replacement of the pragma and its loop. Outcome.Batched is false (with
/// WhyNot set) only if the plan holds a node the printer cannot print.
/// \p Check (--check): the loop also runs as written, on the same state, and
/// every output and accumulator of the two is compared at run time.
/// Clones are named through \p Names, which the file's loops share.
LoopOutcome emit(const BatchPlan &Plan, CloneNames &Names, bool Check = false);

} // namespace clang_vmap

#endif
