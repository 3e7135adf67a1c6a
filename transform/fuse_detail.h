//===- fuse_detail.h - The AST helpers of fuse.cpp ---------------*- C++ -*-===//
//
// Internal to fuse.cpp: what the choice of kernels asks about the expressions
// and statements of a batched body (Note [Which chains are fused]).
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_FUSE_DETAIL_H
#define CLANG_VMAP_FUSE_DETAIL_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include <vmap/rules/op_table.hpp>
#include <cstddef>

namespace clang_vmap::fuse_detail {

/// The op-table entry \p Call is, or kNoOp.
std::size_t opOf(const clang::CallExpr *Call);

bool isPointwiseRule(vmap::rules::RuleId Rule);

/// The operands of a call as the user writes them: the object first.
llvm::SmallVector<const clang::Expr *, 4> operandsOf(const clang::CallExpr *Call);

/// A number, bool or string literal, or `std::nullopt`: the same for every
/// example and every element, so it stays in the kernel's text.
bool isLiteral(const clang::Expr *E);

/// Whether some of \p S comes from a macro (the printer splices file text).
bool inMacro(const clang::Stmt *S);

/// The names of the variables \p S reads.
void namesIn(const clang::Stmt *S, llvm::StringSet<> &Names);

/// Every variable's number of references under \p S.
void countAllRefs(const clang::Stmt *S,
                  llvm::DenseMap<const clang::VarDecl *, unsigned> &Counts);

/// The assignment `v = e` or `v op= e` that statement \p S is, or null.
const clang::CXXOperatorCallExpr *assignmentOf(const clang::Stmt *S);

/// The body of a plain loop as a list of statements.
llvm::SmallVector<const clang::Stmt *, 8> statementsOf(const clang::Stmt *Body);

/// A loop `for (int r = A; r < B; ...)` with integer literals A < B (or
/// `<=`, `!=`, `>`, `>=` likewise) runs its body at least once.
bool runsAtLeastOnce(const clang::ForStmt *For);

/// A C++ type a scalar kernel passes or returns: one a dtype holds as it is
/// (bool, signed integers, float, double).
bool isKernelType(clang::QualType T);

} // namespace clang_vmap::fuse_detail

#endif
