//===- fuse.cpp - Pointwise chains emitted as compiled kernels ------------===//
//
// Note [Which chains are fused]
// A chain is a tree of calls of the op table's pointwise ops (rules
// unary_pointwise, binary_pointwise, ternary_where, clamp) that give a
// per-example Tensor; its leaves are whatever else it reads (per-example
// reads, loop-invariant tensors, numbers), which become the kernel's
// operands, except literals, which stay in the kernel (so the C++ compiler
// folds `pow(2)` into a multiply, and a mode such as gelu's "tanh" reads as
// written). A chain becomes a kernel where it
// is consumed whole:
//   - by a reduction of the whole example (`.sum()`, `mean(e)`: the reduce
//     family's reduce_all rule), the reduction running over the kernel's
//     elements without materialising them;
//   - by an accumulator `acc += e` / `acc -= e` into a Tensor;
//   - by a store `out[i] = e` of at least two ops (one op over materialised
//     tensors is already one runtime call into the destination).
// A chain whose leaves hold another kernel is left to the batched ops (one
// kernel per statement keeps the rewrite readable). A Tensor local declared
// by the statement just before, whose initialiser is a chain and which only
// this chain reads, is computed inside the kernel under its own name (so
// `Tensor d = x[i] - y[j]; out[i][j] = (d * d).sum();` is one pass).
//
//===----------------------------------------------------------------------===//

#include "fuse.h"
#include "ast_util.h"
#include "batch.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include <vmap/rules/op_table.hpp>

using namespace clang;
namespace rules = vmap::rules;

namespace clang_vmap {
namespace {

/// The op-table entry \p Call is, or kNoOp.
std::size_t opOf(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !isInVmapNamespace(Callee))
    return rules::kNoOp;
  std::string Name = calleeName(Call);
  int Arity = static_cast<int>(Call->getNumArgs());
  if (isa<CXXOperatorCallExpr>(Call))
    return rules::find_op(Name,
                          Arity == 1 ? rules::OpForm::unary_operator
                                     : rules::OpForm::binary_operator,
                          Arity);
  if (isa<CXXMemberCallExpr>(Call))
    return rules::find_op(Name, rules::OpForm::member, Arity + 1);
  return rules::find_op(Name, rules::OpForm::free_function, Arity);
}

bool isPointwiseRule(rules::RuleId Rule) {
  return Rule == rules::RuleId::unary_pointwise ||
         Rule == rules::RuleId::binary_pointwise ||
         Rule == rules::RuleId::ternary_where || Rule == rules::RuleId::clamp;
}

/// The operands of a call as the user writes them: the object first.
llvm::SmallVector<const Expr *, 4> operandsOf(const CallExpr *Call) {
  llvm::SmallVector<const Expr *, 4> Operands;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Operands.push_back(Member->getImplicitObjectArgument());
  for (const Expr *Arg : Call->arguments())
    if (!isa<CXXDefaultArgExpr>(Arg))
      Operands.push_back(Arg);
  return Operands;
}

/// A number, bool or string literal, or `std::nullopt`: the same for every
/// example and every element, so it stays in the kernel's text.
bool isLiteral(const Expr *E) {
  E = stripImplicit(E);
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    if (Unary->getOpcode() == UO_Minus || Unary->getOpcode() == UO_Plus)
      E = stripImplicit(Unary->getSubExpr());
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return Var->getQualifiedNameAsString() == "std::nullopt";
  return isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr,
             StringLiteral>(E);
}

/// Whether some of \p S comes from a macro (the printer splices file text).
bool inMacro(const Stmt *S) {
  if (!S)
    return false;
  if (S->getBeginLoc().isMacroID() || S->getEndLoc().isMacroID())
    return true;
  return llvm::any_of(S->children(), inMacro);
}

/// The names of the variables \p S reads.
void namesIn(const Stmt *S, llvm::StringSet<> &Names) {
  if (!S)
    return;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    Names.insert(Ref->getDecl()->getName());
  for (const Stmt *Child : S->children())
    namesIn(Child, Names);
}

unsigned countRefs(const Stmt *S, const VarDecl *Var) {
  if (!S)
    return 0;
  unsigned Count = 0;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    Count += Ref->getDecl() == Var;
  for (const Stmt *Child : S->children())
    Count += countRefs(Child, Var);
  return Count;
}

class Fuser {
public:
  explicit Fuser(const BatchPlan &Plan)
      : A(Plan.Analysis), Context(*A.Context),
        Body(A.Loop ? A.Loop->For->getBody() : A.Callee->getBody()) {}

  FusionPlan run() {
    scan(Body, nullptr);
    return std::move(Result);
  }

private:
  /// A call of a pointwise op giving a per-example Tensor.
  bool isNode(const Expr *E) const {
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call || !A.isBatched(Call) || !isTensorType(Call->getType()))
      return false;
    std::size_t Op = opOf(Call);
    if (Op == rules::kNoOp || !isPointwiseRule(rules::kOpTable[Op].rule) ||
        !rules::has_element_form(rules::kOpTable[Op].name))
      return false;
    // A mode such as div's rounding_mode is not an element operand.
    return llvm::all_of(operandsOf(Call), [](const Expr *Operand) {
      QualType Type = stripImplicit(Operand)->getType();
      return isTensorType(Type) || isScalarType(Type);
    });
  }

  unsigned countNodes(const Expr *E) const {
    E = stripImplicit(E);
    if (!isNode(E))
      return 0;
    unsigned Count = 1;
    for (const Expr *Operand : operandsOf(cast<CallExpr>(E)))
      Count += countNodes(Operand);
    return Count;
  }

  /// The leaves of the chain under \p E, added to \p Chain (one parameter per
  /// distinct source text).
  void collect(const Expr *E, FusedChain &Chain) {
    const Expr *Stripped = stripImplicit(E);
    if (isNode(Stripped)) {
      for (const Expr *Operand : operandsOf(cast<CallExpr>(Stripped)))
        collect(Operand, Chain);
      return;
    }
    if (isLiteral(Stripped) ||
        (Chain.Local && referencedVar(Stripped) == Chain.Local))
      return;
    // The operand as the call holds it, conversions included: they are
    // printed outside the kernel.
    std::string Text = sourceText(Context, E->getSourceRange()).str();
    auto Same = llvm::find_if(Chain.Operands, [&](const Expr *Operand) {
      return sourceText(Context, Operand->getSourceRange()) == Text;
    });
    unsigned Index = static_cast<unsigned>(Same - Chain.Operands.begin());
    if (Same == Chain.Operands.end())
      Chain.Operands.push_back(E);
    Chain.Parameters[E] = Index;
  }

  bool holdsKernel(const Stmt *S) const {
    if (!S)
      return false;
    if (const auto *E = dyn_cast<Expr>(S))
      if (Result.Chains.count(E))
        return true;
    return llvm::any_of(S->children(),
                        [&](const Stmt *Child) { return holdsKernel(Child); });
  }

  /// The local of \p Previous (a declaration) that the chain \p Root may
  /// compute itself (Note [Which chains are fused]), or null.
  const VarDecl *inlinable(const Expr *Root, const Stmt *Previous) const {
    const auto *Declaration = dyn_cast_or_null<DeclStmt>(Previous);
    if (!Declaration || !Declaration->isSingleDecl())
      return nullptr;
    const auto *Var = dyn_cast<VarDecl>(Declaration->getSingleDecl());
    if (!Var || !Var->hasInit() || Var->getType()->isReferenceType() ||
        !isTensorType(Var->getType()) || A.PromotedLocals.count(Var) ||
        !isNode(stripImplicit(Var->getInit())))
      return nullptr;
    unsigned InChain = countRefs(Root, Var);
    if (InChain == 0 || InChain != countRefs(Body, Var))
      return nullptr;
    return Var;
  }

  /// An operand that is a variable keeps its name; the others get the first
  /// letters no variable of the statement has (so `vb::at(x, b)` is never
  /// passed as a parameter `b`, nor stored into `b`).
  void name(FusedChain &Chain) {
    llvm::StringSet<> Taken, Read;
    if (Chain.Local)
      Taken.insert(Chain.Local->getName());
    Chain.Names.assign(Chain.Operands.size(), "");
    for (unsigned I = 0; I < Chain.Operands.size(); ++I)
      if (const VarDecl *Var = referencedVar(Chain.Operands[I]))
        if (Var->getName() != "vb" && Taken.insert(Var->getName()).second)
          Chain.Names[I] = Var->getNameAsString();
    namesIn(Statement, Read);
    if (Chain.Local)
      namesIn(Chain.Local->getInit(), Read);
    for (const auto &Name : Read)
      Taken.insert(Name.getKey());
    unsigned Candidate = 0; // a, ..., z, then _b_0, _b_1, ...
    for (std::string &Name : Chain.Names) {
      while (Name.empty()) {
        std::string Next = Candidate < 26
                               ? std::string(1, static_cast<char>('a' + Candidate))
                               : "_b_" + std::to_string(Candidate - 26);
        ++Candidate;
        if (Taken.insert(Next).second)
          Name = Next;
      }
    }
  }

  /// Makes the chain under \p E a kernel when it has at least \p MinOps ops.
  void consider(const Expr *E, unsigned MinOps, const Stmt *Previous) {
    const Expr *Root = stripImplicit(E);
    if (!isNode(Root) || countNodes(Root) < MinOps || Result.Chains.count(Root) ||
        inMacro(Root))
      return;
    FusedChain Chain;
    Chain.Local = inlinable(Root, Previous);
    if (Chain.Local && inMacro(Chain.Local->getInit()))
      Chain.Local = nullptr;
    if (Chain.Local)
      collect(Chain.Local->getInit(), Chain);
    collect(Root, Chain);
    if (llvm::any_of(Chain.Operands,
                     [&](const Expr *Operand) { return holdsKernel(Operand); }))
      return;
    name(Chain);
    if (Chain.Local)
      Result.InlinedLocals[cast<DeclStmt>(Previous)] = Root;
    Result.Chains[Root] = std::move(Chain);
  }

  /// Reductions of a whole example inside \p S, innermost first.
  void reductions(const Stmt *S, const Stmt *Previous) {
    if (!S || isa<LambdaExpr>(S))
      return;
    for (const Stmt *Child : S->children())
      reductions(Child, Previous);
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call || !A.isBatched(Call))
      return;
    std::size_t Op = opOf(Call);
    if (Op == rules::kNoOp ||
        rules::kOpTable[Op].family != rules::Family::reduce ||
        rules::kOpTable[Op].rule != rules::RuleId::reduce_all)
      return;
    llvm::SmallVector<const Expr *, 4> Operands = operandsOf(Call);
    if (Operands.size() == 1)
      consider(Operands.front(), 1, Previous);
  }

  /// A statement of the body; \p Previous is the statement before it in its
  /// block, if any.
  void statement(const Stmt *S, const Stmt *Previous) {
    const auto *E = dyn_cast<Expr>(S);
    if (!E)
      return;
    Statement = E;
    reductions(E, Previous);
    auto Reduction = A.Reductions.find(E);
    if (Reduction != A.Reductions.end()) {
      const clang_vmap::Reduction &R = Reduction->second;
      if ((R.Op == ReduceOp::Add || R.Op == ReduceOp::Sub) &&
          isTensorType(R.Accumulator->getType()))
        consider(R.Value, 1, Previous);
      return;
    }
    const auto *Assign = dyn_cast<CXXOperatorCallExpr>(stripImplicit(E));
    if (Assign && Assign->getOperator() == OO_Equal &&
        Assign->getNumArgs() == 2 && isTensorType(Assign->getArg(0)->getType()) &&
        !referencedVar(Assign->getArg(0)) && A.isBatched(Assign->getArg(0)))
      consider(Assign->getArg(1), 2, Previous);
  }

  void scan(const Stmt *S, const Stmt *Previous) {
    if (!S)
      return;
    if (const auto *Compound = dyn_cast<CompoundStmt>(S)) {
      const Stmt *Before = nullptr;
      for (const Stmt *Child : Compound->body()) {
        scan(Child, Before);
        Before = Child;
      }
      return;
    }
    if (isa<Expr>(S))
      return statement(S, Previous);
    if (isa<DeclStmt>(S)) { // `Tensor s = (d * d).sum();`: its initialisers
      for (const Stmt *Init : S->children())
        statement(Init, Previous);
      return;
    }
    for (const Stmt *Child : S->children())
      scan(Child, nullptr);
  }

  const LoopAnalysis &A;
  ASTContext &Context;
  const Stmt *Body;
  const Stmt *Statement = nullptr; ///< the one being looked at
  FusionPlan Result;
};

} // namespace

FusionPlan fuse(const BatchPlan &Plan) { return Fuser(Plan).run(); }

} // namespace clang_vmap
