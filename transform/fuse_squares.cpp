//===- fuse_squares.cpp - Sums of squares a kernel computes whole ---------===//
//
// The consumers of a chain that are the sum of its squares: the whole
// example's 2-norm (vb::Fused::norm, Note [Which chains are fused] in
// fuse.cpp) and the dot of a value with itself (vb::Fused::dot_self).
//
// Note [Dot products of a value with itself]
// `d.dot(d)` (or `dot(d, d)`) of a per-example local d that a region computes,
//
//   Tensor d = a - b;
//   return d.dot(d).sqrt();
//
// is the sum of d's squares: the kernel is the region with d its value, and
// vb::Fused::dot_self sums its squares as `.norm()` does (no [examples, d]
// temporary; before, the batched dot read d from memory, computed in full):
//
//   return vb::fused([](const auto& a, const auto& b) {
//     auto d = a - b;
//     return d;
//   }, a, b).dot_self().sqrt();
//
// Only where both operands are one variable: two vectors could differ in
// length, and the dot's error is raised by its checks (dot_self keeps them:
// anything but a vector of floats per example takes the batched dot).
//
//===----------------------------------------------------------------------===//

#include "analyse.h"
#include "ast_util.h"
#include "fuse_detail.h"
#include <vmap/rules/op_table.hpp>

using namespace clang;
namespace rules = vmap::rules;

namespace clang_vmap::fuse_detail {

bool isTwoNorm(const CallExpr *Call, ArrayRef<const Expr *> Operands,
               ASTContext &Context) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !isInVmapNamespace(Callee) || Callee->getName() != "norm" ||
      Callee->getNumParams() != (isa<CXXMemberCallExpr>(Call) ? 1u : 2u))
    return false;
  if (Operands.size() == 1)
    return true;
  Expr::EvalResult P;
  if (!isLiteral(Operands[1]) ||
      !stripImplicit(Operands[1])->EvaluateAsRValue(P, Context))
    return false;
  return P.Val.isInt()     ? P.Val.getInt() == 2
         : P.Val.isFloat() ? P.Val.getFloat().convertToDouble() == 2
                           : false;
}

const Expr *selfDotOperand(const Expr *E, const LoopAnalysis &A) {
  const auto *Call = dyn_cast<CallExpr>(stripImplicit(E));
  std::size_t Op = Call ? opOf(Call) : rules::kNoOp;
  if (Op == rules::kNoOp || rules::kOpTable[Op].rule != rules::RuleId::dot ||
      !A.isBatched(Call))
    return nullptr;
  llvm::SmallVector<const Expr *, 4> Operands = operandsOf(Call);
  if (Operands.size() != 2)
    return nullptr;
  const VarDecl *Var = referencedVar(stripImplicit(Operands[0]));
  return Var && Var == referencedVar(stripImplicit(Operands[1]))
             ? stripImplicit(Operands[0])
             : nullptr;
}

} // namespace clang_vmap::fuse_detail
