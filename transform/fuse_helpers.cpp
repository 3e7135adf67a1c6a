//===- fuse_helpers.cpp - The file's own functions inside kernels ---------===//
//
// Note [Helpers in kernels]
// A function of this file that a chain calls,
//
//   Tensor squared(const Tensor& v) { return v * v; }
//
// is a node of the chain as the ops in it are, where its body is one
// `return e;` with e a chain of its parameters and literals, every parameter
// a Tensor (by value or const reference) that e reads (so that each operand
// reaches the value, as Note [Fused regions] in fuse.cpp asks), and the call
// passes every argument (a default one has no text at the call). A C++ number
// parameter is not taken: a kernel passes a per-example number as an
// element, which `double s` could not hold. The kernel then computes the
// function element by element, its body printed inside the kernel as an
// immediately invoked lambda of the same parameters,
//
//   vb::at(out, i) = vb::fused([](auto value) {
//     for (int round = 0; round < 5; ++round) {
//       value = [](const auto& v) { return v * v; }(value);
//     }
//     return value;
//   }, vb::at(x, i));
//
// where a batched clone's call would write the function's value to memory
// and the caller read it back: a pass more per call, and a kernel ended at
// every helper. A function the body of such a one calls is taken the same
// way. A clone whose every call a kernel holds is not printed
// (BatchPlan::OnlyInKernels); it stays in the plan, so that its body is
// still checked as a clone's (a preprocessor conditional in it is refused).
// A kernel holding a call of the user's function has no device program (its
// text names the function: Note [Fused kernels on a device] in
// rules/include/vmap/fused.hpp).
//
//===----------------------------------------------------------------------===//

#include "ast_util.h"
#include "batch.h"
#include "fuse.h"
#include "fuse_detail.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>
#include <optional>

using namespace clang;
namespace clang_vmap {

using namespace fuse_detail;

namespace {

/// Deeper than this, a chain of helpers calling helpers is taken as
/// recursion and left to the batched clones.
constexpr unsigned MaxHelperDepth = 8;

std::optional<unsigned> inlines(const CallExpr *Call, const BatchPlan &Plan,
                                unsigned Depth);

/// Whether \p E, in \p Clone's function \p F, is a chain of F's parameters
/// and literals; the parameters it reads go into \p Read, its ops are added
/// to \p Ops.
bool isChainOfParameters(const Expr *E, const FunctionDecl *F,
                         const BatchPlan &Clone,
                         llvm::SmallPtrSetImpl<const ParmVarDecl *> &Read,
                         unsigned Depth, unsigned &Ops) {
  E = stripImplicit(E);
  if (isLiteral(E))
    return true;
  if (const auto *Parameter =
          dyn_cast_or_null<ParmVarDecl>(referencedVar(E))) {
    if (!llvm::is_contained(F->parameters(), Parameter))
      return false;
    Read.insert(Parameter);
    return true;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return false;
  if (isElementOp(Call, Clone.Analysis))
    ++Ops;
  else if (std::optional<unsigned> Inner =
               Clone.Analysis.isBatched(Call)
                   ? inlines(Call, Clone, Depth + 1)
                   : std::nullopt)
    Ops += *Inner;
  else
    return false;
  return llvm::all_of(operandsOf(Call), [&](const Expr *Operand) {
    return isChainOfParameters(Operand, F, Clone, Read, Depth, Ops);
  });
}

/// The number of ops of the function \p Call calls, where a kernel computes
/// it element by element, else std::nullopt.
std::optional<unsigned> inlines(const CallExpr *Call, const BatchPlan &Plan,
                                unsigned Depth) {
  const BatchPlan *Clone = Plan.CloneOf.lookup(Call);
  if (!Clone || Depth > MaxHelperDepth || !Clone->Analysis.Callee)
    return std::nullopt;
  const FunctionDecl *Definition = nullptr;
  if (!Clone->Analysis.Callee->getBody(Definition) || !Definition ||
      isa<CXXMethodDecl>(Definition) || Definition->isTemplated() ||
      Definition->isTemplateInstantiation() ||
      !isTensorType(Definition->getReturnType()) ||
      Definition->getReturnType()->isReferenceType())
    return std::nullopt;
  if (llvm::any_of(Call->arguments(), [](const Expr *Arg) {
        return isa<CXXDefaultArgExpr>(Arg);
      }))
    return std::nullopt;
  for (const ParmVarDecl *Parameter : Definition->parameters()) {
    QualType Type = Parameter->getType();
    if (!isTensorType(Type.getNonReferenceType()) ||
        (Type->isReferenceType() &&
         !Type.getNonReferenceType().isConstQualified()))
      return std::nullopt;
  }
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Definition->getBody());
  const auto *Return =
      Body && Body->size() == 1 ? dyn_cast<ReturnStmt>(Body->body_front())
                                : nullptr;
  if (!Return || !Return->getRetValue() ||
      !isa<CallExpr>(stripImplicit(Return->getRetValue())))
    return std::nullopt;
  llvm::SmallPtrSet<const ParmVarDecl *, 4> Read;
  unsigned Ops = 0;
  if (!isChainOfParameters(Return->getRetValue(), Definition, *Clone, Read,
                           Depth, Ops) ||
      Read.size() != Definition->getNumParams())
    return std::nullopt;
  return Ops;
}

} // namespace

bool inlinesIntoKernels(const CallExpr *Call, const BatchPlan &Plan) {
  return inlines(Call, Plan, 0).has_value();
}

unsigned fuse_detail::helperOps(const CallExpr *Call, const BatchPlan &Plan) {
  return inlines(Call, Plan, 0).value_or(0);
}

void collectKernelCalls(const Stmt *S, const FusedChain &Chain,
                        std::vector<const CallExpr *> &Calls) {
  if (!S)
    return;
  if (const auto *E = dyn_cast<Expr>(S); E && Chain.Parameters.count(E))
    return;
  // A region's `v = ...` rebinds a local: not an op of the kernel.
  const auto *Assignment = dyn_cast<CXXOperatorCallExpr>(S);
  if (const auto *Call = dyn_cast<CallExpr>(S);
      Call && !(Assignment && Assignment->getOperator() == OO_Equal))
    Calls.push_back(Call);
  for (const Stmt *Child : S->children())
    collectKernelCalls(Child, Chain, Calls);
}

llvm::DenseSet<const CallExpr *> callsInKernels(const FusionPlan &Fusion) {
  std::vector<const CallExpr *> InKernels;
  for (const auto &[Root, Chain] : Fusion.Chains) {
    for (const Stmt *S : Chain.Region)
      collectKernelCalls(S, Chain, InKernels);
    collectKernelCalls(Root, Chain, InKernels);
  }
  for (const auto &[Last, Chain] : Fusion.StatementKernels)
    for (const Stmt *S : Chain.Region)
      collectKernelCalls(S, Chain, InKernels);
  return llvm::DenseSet<const CallExpr *>(InKernels.begin(), InKernels.end());
}

void fuse_detail::settleClones(BatchPlan &Plan) {
  // A scalar kernel runs the function as written (Note [Fused control flow]
  // in fuse_scalar.cpp): those calls have no clone.
  llvm::DenseSet<const Stmt *> InScalarKernels;
  std::function<void(const Stmt *)> Collect = [&](const Stmt *S) {
    if (S && InScalarKernels.insert(S).second)
      llvm::for_each(S->children(), Collect);
  };
  for (const auto &[Root, Chain] : Plan.Fusion.Chains)
    if (Chain.Scalar) {
      Collect(Root);
      llvm::for_each(Chain.Region, Collect);
    }
  for (const auto &[Last, Chain] : Plan.Fusion.StatementKernels) {
    if (Chain.Slot) // its calls are operands, computed outside the kernel
      continue;
    Collect(Last);
    llvm::for_each(Chain.Region, Collect);
  }
  llvm::DenseSet<const CallExpr *> InKernels = callsInKernels(Plan.Fusion);
  llvm::SmallVector<const CallExpr *, 4> Held;
  llvm::DenseSet<const BatchPlan *> Used, Inlined;
  for (const auto &[Call, Clone] : Plan.CloneOf)
    if (InScalarKernels.count(Call))
      Held.push_back(Call);
    else if (InKernels.count(Call))
      Inlined.insert(Clone);
    else
      Used.insert(Clone);
  for (const CallExpr *Call : Held)
    Plan.CloneOf.erase(Call);
  llvm::erase_if(Plan.Clones, [&](const std::unique_ptr<BatchPlan> &Clone) {
    return !Used.count(Clone.get()) && !Inlined.count(Clone.get());
  });
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones)
    Clone->OnlyInKernels = !Used.count(Clone.get());
}

} // namespace clang_vmap
