//===- fuse_lanes.cpp - The lane forms of scalar kernels ------------------===//
//
// Which scalar kernels (fuse_scalar.cpp) also run over SIMD lanes of examples,
// and what of their text differs per lane (Note [Lane kernels] in
// rules/include/vmap/fused_scalar.hpp).
//
// A kernel has a lane form where every example takes the same path through
// it: its value is a C++ scalar (no stores, no element returned), it reads
// elements (a kernel of per-example numbers alone already runs on SIMD lanes,
// Note [Scalar kernels over rows of examples]), and its statements are
// blocks, declarations of arithmetic locals, expression statements and plain
// `for` loops whose init, condition and step read only what is the same for
// every example (numbers, literals, such locals). Its
// expressions are built-in arithmetic, comparison, bitwise and assignment
// operators (not `&&`, `||`, `?:` or `,`, which choose what runs), the
// <cmath> functions of the op table, element reads (`x[i][k].item<float>()`)
// and parameters, and casts to C++ numbers. A local
// differs per example where anything written into it does (its initialiser,
// an assignment), to a fixed point; a per-example operand and an element
// operand differ per example. A parameter the region declares (`float c =
// e;`) of a number the same for every example may not take a value that
// differs. The printer declares each local that differs `vb::Varying<T>`, and
// spells each <cmath> call on such values `vb::name`, and each cast of one
// `vb::lane_cast<T>(v)`.
//
//===----------------------------------------------------------------------===//

#include "analyse.h"
#include "ast_util.h"
#include "fuse_detail.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace clang_vmap::fuse_detail {
namespace {

class LaneForm {
public:
  LaneForm(FusedChain &Chain, const LoopAnalysis &A, const ASTContext &Context)
      : Chain(Chain), A(A), Context(Context) {}

  /// Why the kernel has no lane form, in a C++ user's words (--remarks).
  std::string WhyNot;

  bool build(const Expr *Root) {
    // A kernel of per-example numbers alone already runs on SIMD lanes, its
    // numbers contiguous (Note [Scalar kernels over rows of examples]): no
    // lane form, and no reason against one.
    if (!llvm::is_contained(Chain.ElementReads, true))
      return false;
    for (const Stmt *S : Chain.Region)
      if (!statement(S))
        return false;
    if (!expression(Root))
      return false;
    // The locals that differ per example, to a fixed point.
    for (unsigned I = 0; I < Chain.Operands.size(); ++I)
      if (Chain.Locals[I] && operandVaries(I))
        Chain.VaryingLocals.insert(Chain.Locals[I]);
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (const auto &[Local, Value] : Writes)
        if (!Chain.VaryingLocals.count(Local) && varies(Value))
          Changed = Chain.VaryingLocals.insert(Local).second;
    }
    // A number parameter stays a number; loops run the same on every lane.
    for (unsigned I = 0; I < Chain.Operands.size(); ++I)
      if (Chain.Locals[I] && !operandVaries(I) &&
          Chain.VaryingLocals.count(Chain.Locals[I]))
        return whyNot("'" + Chain.Locals[I]->getNameAsString() +
                      "' starts the same for every example and then differs");
    if (llvm::any_of(Uniform, [&](const Expr *E) { return varies(E); }))
      return whyNot("a loop's bounds or step read a per-example value");
    for (const DeclStmt *D : Declarations)
      if (llvm::any_of(D->decls(),
                       [&](const Decl *V) {
                         return Chain.VaryingLocals.count(cast<VarDecl>(V));
                       }) &&
          !llvm::all_of(D->decls(), [&](const Decl *V) {
            return Chain.VaryingLocals.count(cast<VarDecl>(V));
          }))
        return whyNot("one declaration declares a local the same for every "
                      "example and one that differs");
    for (const ExplicitCastExpr *Cast : Casts)
      if (varies(Cast->getSubExpr()))
        Chain.LaneCasts.insert(Cast);
    // A lane calls std::name on its lanes' types: the function the code
    // calls only where that takes the arguments as they are (`sqrt(f)` of a
    // float, unqualified, is C's double sqrt; std::sqrt(float) rounds to
    // float).
    for (const auto &[Call, Arguments] : Calls) {
      if (llvm::none_of(Arguments, [&](const Expr *E) { return varies(E); }))
        continue;
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Context.getSourceManager().isInSystemHeader(Callee->getLocation()) ||
          Callee->getNumParams() != Arguments.size())
        return whyNot("it calls a '" + Callee->getNameAsString() +
                      "' that is not the C++ library's");
      for (unsigned I = 0; I < Arguments.size(); ++I)
        if (!Context.hasSameUnqualifiedType(
                Callee->getParamDecl(I)->getType().getNonReferenceType(),
                Arguments[I]->IgnoreImpCasts()->getType()))
          return whyNot("it converts an argument of '" +
                        Callee->getNameAsString() + "' to another type");
      Chain.LaneCalls.insert(Call);
    }
    for (unsigned I = 0; I < Chain.Operands.size(); ++I)
      Chain.VaryingOperands.push_back(operandVaries(I));
    for (const Stmt *S : Chain.Region)
      hoistViews(S);
    return true;
  }

private:
  // Note [Views hoisted out of lane loops]
  // In the lane form, `x[i][k].item<float>()` inside `for (k ...)` selects
  // x[i] on every iteration: a check that the lanes' indices are one, or in
  // range, each time, which costs more than the arithmetic. Each loop's
  // element views that read nothing the loop writes (its counter, a local it
  // assigns or declares) are selected once before it instead, the outermost
  // loop they are the same in (`{ const auto _b_view0 = x[i]; for ...
  // _b_view0[k] ... }`). Selecting an element view has no effect but an
  // error, and in the lane form an error is a lane's miss: the block runs
  // again one example at a time, the code as written (Note [Lane kernels] in
  // rules/include/vmap/fused_scalar.hpp). So a view selected earlier than
  // written, or where the loop runs no iteration, changes no value.
  void hoistViews(const Stmt *S) {
    if (!S)
      return;
    if (const auto *Loop = dyn_cast<ForStmt>(S)) {
      llvm::DenseSet<const VarDecl *> Written;
      writtenIn(Loop, Written);
      hoistFrom(Loop->getBody(), Loop, Written);
    }
    for (const Stmt *Child : S->children())
      if (!Hoisted.count(Child))
        hoistViews(Child);
  }

  void hoistFrom(const Stmt *S, const ForStmt *Loop,
                 const llvm::DenseSet<const VarDecl *> &Written) {
    if (!S || Hoisted.count(S))
      return;
    if (const auto *View = dyn_cast<CXXOperatorCallExpr>(S);
        View && View->getOperator() == OO_Subscript &&
        isTensorType(View->getArg(0)->getType()) &&
        !Chain.Parameters.count(View) && sameEveryIteration(View, Written)) {
      Chain.LaneHoists.emplace_back(Loop, View);
      Hoisted.insert(View);
      return;
    }
    for (const Stmt *Child : S->children())
      hoistFrom(Child, Loop, Written);
  }

  /// The locals \p S declares or writes.
  static void writtenIn(const Stmt *S, llvm::DenseSet<const VarDecl *> &Written) {
    if (!S)
      return;
    const Expr *Target = nullptr;
    if (const auto *D = dyn_cast<DeclStmt>(S))
      for (const Decl *V : D->decls())
        if (const auto *Var = dyn_cast<VarDecl>(V))
          Written.insert(Var);
    if (const auto *Binary = dyn_cast<BinaryOperator>(S);
        Binary && Binary->isAssignmentOp())
      Target = Binary->getLHS();
    if (const auto *Unary = dyn_cast<UnaryOperator>(S);
        Unary && Unary->isIncrementDecrementOp())
      Target = Unary->getSubExpr();
    if (const auto *Ref =
            Target ? dyn_cast<DeclRefExpr>(Target->IgnoreParens()) : nullptr)
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        Written.insert(Var);
    for (const Stmt *Child : S->children())
      writtenIn(Child, Written);
  }

  /// Whether \p S reads nothing in \p Written and writes nothing.
  bool sameEveryIteration(const Stmt *S,
                          const llvm::DenseSet<const VarDecl *> &Written) const {
    if (const auto *E = dyn_cast<Expr>(S); E && Chain.Parameters.count(E)) {
      const VarDecl *Local = Chain.Locals[Chain.Parameters.find(E)->second];
      return !Local || !Written.count(Local);
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        return !Written.count(Var);
    if (const auto *Binary = dyn_cast<BinaryOperator>(S);
        Binary && Binary->isAssignmentOp())
      return false;
    if (const auto *Unary = dyn_cast<UnaryOperator>(S);
        Unary && Unary->isIncrementDecrementOp())
      return false;
    return llvm::all_of(S->children(), [&](const Stmt *Child) {
      return !Child || sameEveryIteration(Child, Written);
    });
  }

  bool whyNot(std::string Reason) {
    if (WhyNot.empty())
      WhyNot = std::move(Reason);
    return false;
  }

  bool operandVaries(unsigned I) const {
    return Chain.ElementReads[I] || A.isBatched(Chain.Operands[I]);
  }

  bool varies(const Expr *E) const {
    if (auto It = Chain.Parameters.find(E); It != Chain.Parameters.end())
      return operandVaries(It->second);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        return Chain.VaryingLocals.count(Var);
    return llvm::any_of(E->children(), [&](const Stmt *Child) {
      return Child && varies(cast<Expr>(Child));
    });
  }

  bool statement(const Stmt *S) {
    if (isa<NullStmt>(S))
      return true;
    if (const auto *Block = dyn_cast<CompoundStmt>(S))
      return llvm::all_of(Block->body(), [&](const Stmt *Child) {
        return statement(Child);
      });
    if (const auto *D = dyn_cast<DeclStmt>(S)) {
      Declarations.push_back(D);
      for (const Decl *Child : D->decls()) {
        const auto *Var = dyn_cast<VarDecl>(Child);
        if (!Var || !Var->getType()->isArithmeticType() ||
            !Var->hasLocalStorage() || !Var->getTypeSourceInfo())
          return whyNot("it declares a local that is no C++ number");
        if (const Expr *Init = Var->getInit()) {
          if (!expression(Init))
            return false;
          Writes.emplace_back(Var, Init);
        }
      }
      return true;
    }
    if (const auto *For = dyn_cast<ForStmt>(S)) {
      if (For->getConditionVariable() || !For->getCond())
        return whyNot("a loop has no condition, or declares in it");
      if (const Stmt *Init = For->getInit()) {
        if (!statement(Init))
          return false;
        if (const auto *E = dyn_cast<Expr>(Init))
          Uniform.push_back(E);
        else if (const auto *D = dyn_cast<DeclStmt>(Init))
          for (const Decl *V : D->decls())
            Uniform.push_back(cast<VarDecl>(V)->getInit());
      }
      Uniform.push_back(For->getCond());
      if (For->getInc())
        Uniform.push_back(For->getInc());
      return expression(For->getCond()) &&
             (!For->getInc() || expression(For->getInc())) &&
             statement(For->getBody());
    }
    if (const auto *E = dyn_cast<Expr>(S))
      return expression(E);
    return whyNot("it has control flow ('if', 'while', 'break', ...) that "
                  "may differ per example");
  }

  bool expression(const Expr *E) {
    if (!E)
      return true;
    // Temporaries and cleanups are no code of the kernel's.
    while (!Chain.Parameters.count(E) &&
           isa<ExprWithCleanups, MaterializeTemporaryExpr, CXXBindTemporaryExpr>(E))
      E = cast<Expr>(*E->child_begin());
    if (Chain.Parameters.count(E))
      return true;
    if (isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr,
            CharacterLiteral>(E))
      return true;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return isa<VarDecl, EnumConstantDecl>(Ref->getDecl());
    if (isa<ParenExpr, ImplicitCastExpr>(E))
      return expression(cast<Expr>(*E->child_begin()));
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E)) {
      // Of a value that differs per lane, `vb::lane_cast<T>(v)`.
      const auto *Functional = dyn_cast<CXXFunctionalCastExpr>(Cast);
      if (!(isa<CXXStaticCastExpr, CStyleCastExpr>(Cast) ||
            (Functional && Functional->getLParenLoc().isValid())) ||
          !Cast->getType()->isArithmeticType() ||
          !Cast->getTypeInfoAsWritten())
        return whyNot("it has a cast other than to a C++ number");
      Casts.push_back(Cast);
      return expression(Cast->getSubExpr());
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
      if (Binary->isLogicalOp() || Binary->isCommaOp())
        return whyNot("'&&', '||' and ',' choose per example what runs");
      if (Binary->isAssignmentOp()) {
        const auto *Ref =
            dyn_cast<DeclRefExpr>(Binary->getLHS()->IgnoreParens());
        const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
        if (!Var)
          return whyNot("it assigns what is not a local");
        Writes.emplace_back(Var, Binary->getRHS());
      }
      return expression(Binary->getLHS()) && expression(Binary->getRHS());
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
      switch (Unary->getOpcode()) {
      case UO_Minus: case UO_Plus: case UO_Not: case UO_LNot:
      case UO_PreInc: case UO_PreDec: case UO_PostInc: case UO_PostDec:
        return expression(Unary->getSubExpr());
      default:
        return whyNot("it takes an address or reads through a pointer");
      }
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      // An element read, `e.item<float>()`.
      const CXXMethodDecl *Method = Member->getMethodDecl();
      return Method && Method->getName() == "item" && Member->getNumArgs() == 0 &&
             Member->getType()->isArithmeticType() &&
             expression(Member->getImplicitObjectArgument());
    }
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
      // An element subscript, `e[k]`.
      return Operator->getOperator() == OO_Subscript &&
             Operator->getNumArgs() == 2 &&
             isTensorType(Operator->getArg(0)->getType()) &&
             expression(Operator->getArg(0)) && expression(Operator->getArg(1));
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      const auto *Name = dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreImpCasts());
      if (!Callee || !Name || Name->hasExplicitTemplateArgs() ||
          !isCmath(Callee, Call->getNumArgs()))
        return whyNot("it calls a function other than the <cmath> ones");
      llvm::SmallVector<const Expr *, 2> Arguments(Call->arguments());
      Calls.emplace_back(Call, Arguments);
      return llvm::all_of(Arguments,
                          [&](const Expr *A) { return expression(A); });
    }
    if (isa<ConditionalOperator>(E))
      return whyNot("'?:' chooses per example what runs");
    return whyNot("it has an expression of a kind the lanes do not run");
  }

  FusedChain &Chain;
  const LoopAnalysis &A;
  const ASTContext &Context;
  std::vector<std::pair<const VarDecl *, const Expr *>> Writes;
  std::vector<const Expr *> Uniform;
  std::vector<const DeclStmt *> Declarations;
  std::vector<const ExplicitCastExpr *> Casts;
  std::vector<std::pair<const CallExpr *, llvm::SmallVector<const Expr *, 2>>>
      Calls;
  llvm::DenseSet<const Stmt *> Hoisted;
};

} // namespace

void planLanes(FusedChain &Chain, const Expr *Root, const LoopAnalysis &A,
               const ASTContext &Context) {
  FusedChain Planned = Chain;
  LaneForm Form(Planned, A, Context);
  if (Form.build(Root)) {
    Planned.Lanes = true;
    Chain = std::move(Planned);
  } else {
    Chain.NoLanes = std::move(Form.WhyNot);
  }
}

} // namespace clang_vmap::fuse_detail
