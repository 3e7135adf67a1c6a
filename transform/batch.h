//===- batch.h - Lower each call of a vmap loop to a batched call -*- C++ -*-===//
//
// Pass 3 of clang-vmap: one op-table lookup per call with a batched argument.
// Ops with a rule become `vb::` calls (or stay as written where ADL on
// vb::Value finds them: operators, members of batched objects); ops with no
// rule that may run per example fall back to vb::per_example (with a warning);
// anything else (I/O, random factories, unknown side effects) is refused.
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_BATCH_H
#define CLANG_VMAP_BATCH_H

#include "analyse.h"
#include "fuse.h"
#include <memory>
#include <string>

namespace clang_vmap {

enum class Lowering {
  AsWritten,     ///< unchanged: operators, members of batched objects
  Qualified,     ///< `f(a, b)` -> `vb::f(a', b')`
  MemberAsFree,  ///< `x.m(a)` with x invariant -> `vb::m(x, a')`
  At,            ///< `x[i]` with a batched index -> `vb::at(x', i')`
  PerExample,    ///< no rule: `vb::per_example("f", ...)`
  Clone,         ///< a function of this file: `_b_f(a', b)`
  UserRule,      ///< VMAP_BATCHED(f, fb): `vb::unstacked<R>("fb", fb(vb::stacked(a')))`
};

struct BatchPlan {
  LoopAnalysis Analysis;
  /// Every call, member call and overloaded operator of the loop with a
  /// lowering other than AsWritten.
  llvm::DenseMap<const clang::Expr *, Lowering> Calls;
  unsigned NumOps = 0; ///< batched op calls
  std::vector<std::string> FallbackOps;
  /// The batched clones of the functions of this file the body calls.
  std::vector<std::unique_ptr<BatchPlan>> Clones;
  /// The clone each call lowered to Lowering::Clone calls (its role: which
  /// parameters are per-example, Note [Clones in several roles]).
  llvm::DenseMap<const clang::CallExpr *, const BatchPlan *> CloneOf;
  /// The batched function of each call lowered to Lowering::UserRule.
  llvm::DenseMap<const clang::CallExpr *, const clang::FunctionDecl *>
      UserRules;
  /// The chains emitted as compiled kernels: the fuse pass's (fuse.h).
  FusionPlan Fusion;
  /// A clone whose every call a kernel computes element by element: not
  /// printed (Note [Helpers in kernels] in fuse_helpers.cpp).
  bool OnlyInKernels = false;
};

/// Note [User batching rules] (vmap/vmap.hpp): the batched function that
/// `VMAP_BATCHED(F, batched)` names for \p F, or null.
const clang::FunctionDecl *userBatchingRule(const clang::FunctionDecl *F);

/// Looks up every call of \p Analysis in the op table. Reports refusals and
/// fallback warnings through \p Diags; std::nullopt if refused (here, or by
/// the analysis).
std::optional<BatchPlan> batch(LoopAnalysis Analysis, Diagnostics &Diags);

} // namespace clang_vmap

#endif
