//===- fuse_helpers.cpp - The file's own functions inside kernels ---------===//
//
// Note [Helpers in kernels]
// A function of this file that a chain calls,
//
//   Tensor squared(const Tensor& v) { return v * v; }
//
// is a node of the chain as the ops in it are, where its body is
// declarations of Tensor locals initialised by chains (`Tensor d = a - b;`,
// never assigned again) and then `return e;`, each a chain of the
// function's parameters, its locals before it and literals; where every
// Tensor parameter (by value or const reference) and every local is read (so
// that each operand reaches the value, as Note [Fused regions] in fuse.cpp
// asks); where any other parameter is a C++ number that the call passes the
// same for every example (the clone's role: a per-example number reaches the
// kernel as an element, which `double s` cannot hold), read as arithmetic of
// numbers (`factor * 0.5`); and where the call passes every argument (a
// default one has no text at the call). The kernel then computes the function
// element by element, its body printed inside the kernel as an immediately
// invoked lambda of the same parameters, a number one of its declared type
// (converting the argument as the call does),
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
// way, and so is a function template's specialization whose body names no
// template parameter (its parameters typed as the specialization has them:
// `float factor`); the ops of all of them count as the chain's (a store of a
// helper of one op is one pass, as that op written in place).
// A clone whose every call a kernel holds is not printed
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
#include "clang/Basic/CharInfo.h"
#include "clang/Lex/Lexer.h"
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

/// The body of a function a kernel may compute (Note [Helpers in kernels]):
/// what its statements read, and its ops.
class HelperBody {
public:
  HelperBody(const FunctionDecl *F, const BatchPlan &Clone, unsigned Depth)
      : F(F), Clone(Clone), Depth(Depth) {}

  /// The function's ops, where it is one a kernel computes.
  std::optional<unsigned> ops() {
    for (const ParmVarDecl *Parameter : F->parameters()) {
      QualType Type = Parameter->getType();
      if (Type->isReferenceType() &&
          !Type.getNonReferenceType().isConstQualified())
        return std::nullopt;
      if (isTensorType(Type.getNonReferenceType()))
        ++TensorParameters;
      // A number the call passes the same for every example: a C++ number
      // in the kernel too, which the parameter converts as the call does.
      else if (!isScalarType(Type.getNonReferenceType()) ||
               Clone.Analysis.BatchedParams[Parameter->getFunctionScopeIndex()])
        return std::nullopt;
    }
    const auto *Body = dyn_cast_or_null<CompoundStmt>(F->getBody());
    if (!Body || Body->body_empty())
      return std::nullopt;
    for (const Stmt *S : Body->body()) {
      if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
        if (S != Body->body_back() || !Return->getRetValue() ||
            !isa<CallExpr>(stripImplicit(Return->getRetValue())) ||
            !chain(Return->getRetValue()))
          return std::nullopt;
        continue;
      }
      // `Tensor d = a - b;`, a local of the kernel.
      const auto *Declaration = dyn_cast<DeclStmt>(S);
      const auto *Local = Declaration && Declaration->isSingleDecl()
                              ? dyn_cast<VarDecl>(Declaration->getSingleDecl())
                              : nullptr;
      if (!Local || !Local->getInit() || Local->getType()->isReferenceType() ||
          !isTensorType(Local->getType()) || !chain(Local->getInit()))
        return std::nullopt;
      Locals.insert(Local);
    }
    // Each operand reaches the value (Note [Fused regions] in fuse.cpp).
    if (!isa<ReturnStmt>(Body->body_back()) ||
        ReadParameters.size() != TensorParameters ||
        ReadLocals.size() != Locals.size())
      return std::nullopt;
    return Ops;
  }

private:
  /// Whether \p E is a chain of the function's parameters, its locals before
  /// \p E and literals.
  bool chain(const Expr *E) {
    E = stripImplicit(E);
    if (isLiteral(E))
      return true;
    if (const VarDecl *Var = referencedVar(E)) {
      if (Locals.count(Var)) {
        ReadLocals.insert(Var);
        return true;
      }
      const auto *Parameter = dyn_cast<ParmVarDecl>(Var);
      if (!Parameter || !llvm::is_contained(F->parameters(), Parameter))
        return false;
      if (isTensorType(Parameter->getType().getNonReferenceType()))
        ReadParameters.insert(Parameter);
      return true;
    }
    if (isScalarType(E->getType()))
      return number(E);
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
    return llvm::all_of(operandsOf(Call),
                        [&](const Expr *Operand) { return chain(Operand); });
  }

  /// Whether \p E is C++ arithmetic of the function's number parameters and
  /// literals (`factor * 0.5`), which the kernel computes as written.
  bool number(const Expr *E) const {
    E = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<CastExpr>(E))
      return isScalarType(Cast->getType()) && number(Cast->getSubExpr());
    if (isLiteral(E))
      return true;
    if (const auto *Parameter =
            dyn_cast_or_null<ParmVarDecl>(referencedVar(E)))
      return llvm::is_contained(F->parameters(), Parameter) &&
             isScalarType(Parameter->getType().getNonReferenceType());
    if (const auto *Binary = dyn_cast<BinaryOperator>(E))
      return !Binary->isAssignmentOp() && !Binary->isCommaOp() &&
             number(Binary->getLHS()) && number(Binary->getRHS());
    if (const auto *Unary = dyn_cast<UnaryOperator>(E))
      return (Unary->getOpcode() == UO_Minus ||
              Unary->getOpcode() == UO_Plus) &&
             number(Unary->getSubExpr());
    return false;
  }

  const FunctionDecl *F;
  const BatchPlan &Clone;
  unsigned Depth;
  unsigned TensorParameters = 0, Ops = 0;
  llvm::SmallPtrSet<const VarDecl *, 4> Locals, ReadLocals;
  llvm::SmallPtrSet<const ParmVarDecl *, 4> ReadParameters;
};

/// Whether \p F, a specialization of a function template, names one of the
/// template's parameters in its body (`static_cast<T>(k)`): the kernel prints
/// the body's text, where no `T` is declared. Its parameters' types are
/// printed as the specialization has them.
bool namesTemplateParameter(const FunctionDecl *F) {
  const FunctionTemplateDecl *Template = F->getPrimaryTemplate();
  if (!Template)
    return F->isTemplateInstantiation();
  const SourceManager &SM = F->getASTContext().getSourceManager();
  const LangOptions &Options = F->getASTContext().getLangOpts();
  CharSourceRange Range =
      CharSourceRange::getTokenRange(F->getBody()->getSourceRange());
  StringRef Text = Lexer::getSourceText(Range, SM, Options);
  if (Text.empty())
    return true;
  for (const NamedDecl *Parameter : *Template->getTemplateParameters()) {
    StringRef Name = Parameter->getName();
    for (std::size_t At = Text.find(Name); At != StringRef::npos;
         At = Text.find(Name, At + 1)) {
      bool Before = At > 0 && isAsciiIdentifierContinue(Text[At - 1]);
      bool After = At + Name.size() < Text.size() &&
                   isAsciiIdentifierContinue(Text[At + Name.size()]);
      if (!Before && !After)
        return true;
    }
  }
  return false;
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
      (isa<CXXMethodDecl>(Definition) && !lambdaVariable(Definition)) ||
      Definition->isTemplated() ||
      namesTemplateParameter(Definition) ||
      !isTensorType(Definition->getReturnType()) ||
      Definition->getReturnType()->isReferenceType())
    return std::nullopt;
  if (llvm::any_of(Call->arguments(), [](const Expr *Arg) {
        return isa<CXXDefaultArgExpr>(Arg);
      }))
    return std::nullopt;
  return HelperBody(Definition, *Clone, Depth).ops();
}

} // namespace

std::optional<unsigned> fuse_detail::helperOps(const CallExpr *Call,
                                               const BatchPlan &Plan) {
  return inlines(Call, Plan, 0);
}

/// Records \p Call, a call of \p Plan that a kernel computes element by
/// element, and the calls its function's body makes, down the nest (each a
/// helper too, or the body would not have been taken), into \p Into.
static void recordHelper(const CallExpr *Call, const BatchPlan &Plan,
                         llvm::DenseSet<const CallExpr *> &Into) {
  if (!Into.insert(Call).second)
    return;
  const BatchPlan &Clone = *Plan.CloneOf.lookup(Call);
  for (const auto &[Inner, Callee] : Clone.CloneOf)
    recordHelper(Inner, Clone, Into);
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

llvm::DenseSet<const Stmt *> inScalarKernels(const FusionPlan &Fusion,
                                             bool Operands) {
  llvm::DenseSet<const Stmt *> InScalarKernels;
  const FusedChain *Kernel = nullptr;
  std::function<void(const Stmt *)> Collect = [&](const Stmt *S) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    if (!Operands && E && Kernel->Parameters.count(E))
      return;
    if (S && InScalarKernels.insert(S).second)
      llvm::for_each(S->children(), Collect);
  };
  for (const auto &[Root, Chain] : Fusion.Chains)
    if (Chain.Scalar) {
      Kernel = &Chain;
      Collect(Root);
      llvm::for_each(Chain.Region, Collect);
    }
  for (const auto &[Last, Chain] : Fusion.StatementKernels) {
    if (Chain.Slot) // its calls are operands, computed outside the kernel
      continue;
    Kernel = &Chain;
    Collect(Last);
    llvm::for_each(Chain.Region, Collect);
  }
  return InScalarKernels;
}

void fuse_detail::settleClones(BatchPlan &Plan) {
  // A scalar kernel runs the function as written (Note [Fused control flow]
  // in fuse_scalar.cpp): those calls have no clone.
  llvm::DenseSet<const Stmt *> InScalarKernels =
      inScalarKernels(Plan.Fusion, /*Operands=*/true);
  llvm::DenseSet<const CallExpr *> InKernels = callsInKernels(Plan.Fusion);
  llvm::SmallVector<const CallExpr *, 4> Held;
  llvm::DenseSet<const BatchPlan *> Used, Inlined;
  for (const auto &[Call, Clone] : Plan.CloneOf)
    if (InScalarKernels.count(Call)) {
      Held.push_back(Call);
    } else if (InKernels.count(Call)) {
      // In a kernel a call of the file's function is one it computes.
      Inlined.insert(Clone);
      recordHelper(Call, Plan, Plan.Fusion.HelpersInKernels);
    } else {
      Used.insert(Clone);
    }
  for (const CallExpr *Call : Held)
    Plan.CloneOf.erase(Call);
  llvm::erase_if(Plan.Clones, [&](const std::unique_ptr<BatchPlan> &Clone) {
    return !Used.count(Clone.get()) && !Inlined.count(Clone.get());
  });
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones)
    Clone->OnlyInKernels = !Used.count(Clone.get());
}

} // namespace clang_vmap
