//===- fuse.h - Pointwise chains emitted as compiled kernels ------*- C++ -*-===//
//
// Part of pass 3 (batch): finds the per-example chains of pointwise ops that
// the printer emits as one compiled kernel, `vb::fused(lambda, operands...)`
// (Note [Compiled fusion] in rules/include/vmap/fused.hpp).
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_FUSE_H
#define CLANG_VMAP_FUSE_H

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include <string>
#include <vector>

namespace clang_vmap {

struct BatchPlan;

/// One kernel: the chain's outermost op, consumed by a store, a reduction of
/// the whole example, or an accumulator.
struct FusedChain {
  /// The kernel's operands, in parameter order, with the parameter names.
  std::vector<const clang::Expr *> Operands;
  std::vector<std::string> Names;
  /// Every occurrence of an operand in the chain (one operand may occur
  /// several times: `d * d`), and its parameter.
  llvm::DenseMap<const clang::Expr *, unsigned> Parameters;
  /// A Tensor local whose initialiser (a chain) the kernel computes first,
  /// under the local's own name: the statement before is its declaration,
  /// and nothing else reads it.
  const clang::VarDecl *Local = nullptr;
};

/// The kernels of a batched body (keyed by the chain's outermost op), and the
/// declarations of the locals they compute (printed as a comment).
struct FusionPlan {
  llvm::DenseMap<const clang::Expr *, FusedChain> Chains;
  llvm::DenseMap<const clang::DeclStmt *, const clang::Expr *> InlinedLocals;
};

/// Finds the kernels of \p Plan's body.
FusionPlan fuse(const BatchPlan &Plan);

} // namespace clang_vmap

#endif
