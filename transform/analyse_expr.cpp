//===- analyse_expr.cpp - Step 1, the walk over expressions ---------------===//
//
// The walk of analyse.cpp inside expressions: the access a slot expression
// names (a variable and the path of view ops into it), every read and write,
// the expression forms allowed, and reductions into accumulators
// (`acc += e`, `acc = maximum(acc, e)`, ...), with the check of updates of
// per-example unsigned integers.
//
//===----------------------------------------------------------------------===//

#include "analyse_detail.h"
#include "ast_util.h"
#include "diagnostics.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include <vmap/rules/op_table.hpp>

using namespace clang;

namespace clang_vmap {
namespace detail {

const VarDecl *Analyser::wholeVar(const Expr *E) const {
  std::optional<Access> A = E ? accessOf(E) : std::nullopt;
  return A && A->Steps.empty() ? A->Base : nullptr;
}

std::optional<Access> Analyser::accessOf(const Expr *E) const {
  E = stripImplicit(E);
  const auto *Member = dyn_cast<MemberExpr>(E);
  if (const VarDecl *Var = Member ? memberVar(Member) : referencedVar(E)) {
    Access Result;
    Result.Base = Var;
    Result.Site = E;
    return Result;
  }
  if (const auto *Subscript = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Subscript->getOperator() != OO_Subscript ||
        Subscript->getNumArgs() != 2 || !isTensorType(Subscript->getArg(0)->getType()))
      return std::nullopt;
    std::optional<Access> Result = accessOf(Subscript->getArg(0));
    if (Result) {
      Result->Steps.push_back({"[]", Subscript->getArg(1)});
      Result->Site = E;
    }
    return Result;
  }
  const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
  if (!Call || !Call->getMethodDecl() ||
      !isTensorType(Call->getImplicitObjectArgument()->getType()))
    return std::nullopt;
  std::string Name = Call->getMethodDecl()->getNameAsString();
  if (!isViewMember(Name))
    return std::nullopt;
  std::optional<Access> Result = accessOf(Call->getImplicitObjectArgument());
  if (!Result)
    return std::nullopt;
  Step Next;
  Next.Key = Name + "(";
  for (unsigned Arg = 0; Arg < Call->getNumArgs(); ++Arg) {
    // select(d, i) and narrow(d, start, n): the position is the index.
    bool IsIndex = vmap::rules::is_index_argument_of_member(Name, Arg);
    if (IsIndex) {
      Next.Index = Call->getArg(Arg);
      Next.Window = Arg + 1 < Call->getNumArgs(); // a length follows
      if (Next.Window)
        Next.Length = Call->getArg(Arg + 1);
    } else if (!isa<CXXDefaultArgExpr>(Call->getArg(Arg)))
      Next.Key += text(Call->getArg(Arg));
    Next.Key += ",";
  }
  Next.Key += ")";
  Result->Steps.push_back(Next);
  Result->Site = E;
  return Result;
}

/// The dim a leading select step takes out: 0 for `[c]`, d for a literal
/// `select(d, c)`; std::nullopt for any other step.
static std::optional<unsigned> selectedDim(const Step &S) {
  if (!S.Index || S.Window || !S.Index->getType()->isIntegerType())
    return std::nullopt;
  if (S.Key == "[]")
    return 0;
  llvm::StringRef Key(S.Key);
  unsigned Dim = 0;
  if (!Key.consume_front("select(") || !Key.ends_with(",,)") ||
      Key.drop_back(3).getAsInteger(10, Dim))
    return std::nullopt;
  return Dim;
}

/// `x.select(1, 0)[i]` and `x[i][0]` are one element: the leading selects are
/// put in the order of the base's dims they take out, each spelt `[c]` or
/// `select(d, c)` of what the earlier ones leave, so that slots compare by
/// position (checkReads).
static void orderSelects(Access &A) {
  llvm::SmallVector<std::pair<unsigned, Step>, 4> Taken; // base dim, step
  unsigned Count = 0;
  for (; Count < A.Steps.size(); ++Count) {
    std::optional<unsigned> Dim = selectedDim(A.Steps[Count]);
    if (!Dim)
      break;
    // The base dim: the Dim-th of those not yet taken out.
    unsigned BaseDim = 0;
    for (unsigned Left = *Dim;; ++BaseDim)
      if (llvm::none_of(Taken, [&](const auto &T) { return T.first == BaseDim; }) &&
          Left-- == 0)
        break;
    Taken.push_back({BaseDim, A.Steps[Count]});
  }
  llvm::stable_sort(Taken, [](const auto &L, const auto &R) { return L.first < R.first; });
  for (unsigned K = 0; K < Taken.size(); ++K) {
    Step &S = A.Steps[K];
    S = Taken[K].second;
    unsigned Dim = Taken[K].first - K; // the earlier ones are lower dims
    S.Key = Dim == 0 ? "[]" : "select(" + std::to_string(Dim) + ",,)";
  }
}

Access Analyser::resolve(Access A) const {
  // Follow local views (`Tensor row = out[i]; row[0] = v;`) to what they view.
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    auto It = Aliases.find(A.Base);
    if (It == Aliases.end())
      break;
    Access Outer = It->second;
    Outer.Steps.append(A.Steps.begin(), A.Steps.end());
    Outer.Site = A.Site;
    A = Outer;
  }
  orderSelects(A);
  return A;
}

bool Analyser::walkAccessIndices(const Access &A, Scope &Where) {
  for (const Step &S : A.Steps)
    if (S.Index && !walkExpr(S.Index, Where))
      return false;
  return true;
}

bool Analyser::recordWrite(const Expr *Site, const Expr *Target,
                           const Expr *Value, Scope &Where) {
  std::optional<Access> A = accessOf(Target);
  if (!A && isa<MemberExpr>(stripImplicit(Target)))
    return refuseAt(diag::refuse_unsupported, Target->getSourceRange(),
                    diag::note_unsupported,
                    {"a write to '" + text(Target) +
                     "', which is not a tensor or number member of 'this' or "
                     "of a variable declared outside the loop,"});
  if (!A)
    return refuseAt(diag::refuse_unsupported, Target->getSourceRange(),
                    diag::note_unsupported,
                    {"a write to '" + text(Target) + "'"});
  Writes.push_back({Site, Value, *A, resolve(*A), Where});
  return walkAccessIndices(*A, Where);
}

bool Analyser::walkExpr(const Expr *E, Scope &Where) {
  if (!E)
    return true;
  E = E->IgnoreParens();

  // Writes: assignments, increments, in-place members.
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (Binary->isAssignmentOp())
      return recordWrite(E, Binary->getLHS(), Binary->getRHS(), Where) &&
             walkExpr(Binary->getRHS(), Where);
    if (Binary->getOpcode() == BO_Comma)
      return refuseAt(diag::refuse_unsupported, E->getSourceRange(),
                      diag::note_unsupported, {"the comma operator"});
    // C++ evaluates the right of `&&` / `||` only where the left does not
    // decide: what it writes is masked by the left, as by an `if`.
    if (Binary->isLogicalOp()) {
      Scope Guarded = Where;
      Guarded.Guards.push_back(Binary->getLHS());
      return walkExpr(Binary->getLHS(), Where) &&
             walkExpr(Binary->getRHS(), Guarded);
    }
  }
  if (const auto *Conditional = dyn_cast<ConditionalOperator>(E)) {
    Scope Guarded = Where;
    Guarded.Guards.push_back(Conditional->getCond());
    return walkExpr(Conditional->getCond(), Where) &&
           walkExpr(Conditional->getTrueExpr(), Guarded) &&
           walkExpr(Conditional->getFalseExpr(), Guarded);
  }
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    if (Unary->isIncrementDecrementOp())
      return recordWrite(E, Unary->getSubExpr(), nullptr, Where);
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Operator->isAssignmentOp() && Operator->getNumArgs() == 2)
      return recordWrite(E, Operator->getArg(0), Operator->getArg(1), Where) &&
             walkExpr(Operator->getArg(1), Where);
    if (Operator->getOperator() == OO_Subscript)
      readsContainer(Operator->getArg(0));
  }
  // A container of tensors named in the loop (`g_arr[0]`, `ws.at(k)`,
  // `ws.front()`, passed to a helper) may hold an output's storage: it is
  // checked whole (Note [Every tensor the loop reaches]).
  if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
    readsContainer(Subscript->getBase());
  if (isa<DeclRefExpr>(E))
    readsContainer(E);
  if (!readsThroughPointer(E))
    return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    if (Method && isTensorType(Member->getImplicitObjectArgument()->getType()) &&
        isInPlaceMember(Method->getNameAsString())) {
      if (!recordWrite(E, Member->getImplicitObjectArgument(), nullptr, Where))
        return false;
      for (const Expr *Arg : Member->arguments())
        if (!walkExpr(Arg, Where))
          return false;
      return true;
    }
    if (isMetadataCall(E)) {
      // `out.size(0)` reads no element of `out`.
      std::optional<Access> Object = accessOf(Member->getImplicitObjectArgument());
      if (Object) {
        if (!walkAccessIndices(*Object, Where))
          return false;
        for (const Expr *Arg : Member->arguments())
          if (!walkExpr(Arg, Where))
            return false;
        return true;
      }
    }
  }

  if (const auto *Member = dyn_cast<MemberExpr>(E))
    if (!readsMember(Member))
      return false;

  // Reads through a variable.
  if (std::optional<Access> A = accessOf(E)) {
    Reads.push_back({*A, resolve(*A), Where});
    return walkAccessIndices(*A, Where);
  }

  if (isa<LambdaExpr>(E) || isa<CXXNewExpr>(E) || isa<CXXDeleteExpr>(E) ||
      isa<StmtExpr>(E) || isa<BlockExpr>(E) || isa<CXXThrowExpr>(E) ||
      isa<CoroutineSuspendExpr>(E) || E->isTypeDependent() ||
      E->isValueDependent())
    return refuseAt(diag::refuse_unsupported, E->getSourceRange(),
                    diag::note_unsupported,
                    {describeStmt(E)});
  if (!isa<DeclRefExpr>(E) && !isAllowedExpr(E))
    return refuseAt(diag::refuse_unsupported, E->getSourceRange(),
                    diag::note_unsupported,
                    {describeStmt(E)});
  if (isa<CallExpr>(E))
    Calls.push_back({cast<CallExpr>(E), Where});
  if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(E))
    (void)Default; // a default argument is loop-invariant by construction
  for (const Stmt *Child : E->children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      if (!walkExpr(ChildExpr, Where))
        return false;
  return true;
}

bool isAllowedExpr(const Expr *E) {
  switch (E->getStmtClass()) {
  case Stmt::DeclRefExprClass:
  case Stmt::IntegerLiteralClass:
  case Stmt::FloatingLiteralClass:
  case Stmt::CXXBoolLiteralExprClass:
  case Stmt::CharacterLiteralClass:
  case Stmt::StringLiteralClass:
  case Stmt::CXXNullPtrLiteralExprClass:
  case Stmt::ParenExprClass:
  case Stmt::ImplicitCastExprClass:
  case Stmt::CStyleCastExprClass:
  case Stmt::CXXFunctionalCastExprClass:
  case Stmt::CXXStaticCastExprClass:
  case Stmt::ExprWithCleanupsClass:
  case Stmt::MaterializeTemporaryExprClass:
  case Stmt::CXXBindTemporaryExprClass:
  case Stmt::CXXConstructExprClass:
  case Stmt::CXXTemporaryObjectExprClass:
  case Stmt::CXXDefaultArgExprClass:
  case Stmt::CXXDefaultInitExprClass:
  case Stmt::InitListExprClass:
  case Stmt::CXXStdInitializerListExprClass:
  case Stmt::UnaryOperatorClass:
  case Stmt::BinaryOperatorClass:
  case Stmt::CompoundAssignOperatorClass:
  case Stmt::ConditionalOperatorClass:
  case Stmt::CallExprClass:
  case Stmt::CXXMemberCallExprClass:
  case Stmt::CXXOperatorCallExprClass:
  case Stmt::MemberExprClass:
  case Stmt::ArraySubscriptExprClass:
  case Stmt::UnaryExprOrTypeTraitExprClass:
  case Stmt::CXXThisExprClass:
  case Stmt::SubstNonTypeTemplateParmExprClass:
  case Stmt::ConstantExprClass:
  case Stmt::CXXScalarValueInitExprClass:
  case Stmt::ImplicitValueInitExprClass:
    return true;
  default:
    return false;
  }
}

/// SPEC 7's reductions written as assignments: `acc = acc + e`, `acc = e +
/// acc`, `acc = acc - e`, `acc = maximum(acc, e)` (`minimum`, the Tensor `max`
/// and `min`) and, on C++ scalars, `acc = std::max(acc, e)` (`min`, `fmax`,
/// `fmin`): the operation and `e`; std::nullopt for any other assignment \p
/// Site, and where the form is refused here.
std::optional<Analyser::AssignedReduction>
Analyser::assignedReduction(const Expr *Site, const Expr *Assigned,
                            const VarDecl *Acc) {
  const Expr *Stripped = stripImplicit(Assigned);
  auto IsAcc = [&](const Expr *E) { return wholeVar(E) == Acc; };
  // `+` and `-` of numbers, or the Tensor operators.
  const Expr *Lhs = nullptr, *Rhs = nullptr;
  std::optional<bool> Plus;
  if (const auto *Binary = dyn_cast<BinaryOperator>(Stripped)) {
    if (Binary->getOpcode() == BO_Add || Binary->getOpcode() == BO_Sub) {
      Plus = Binary->getOpcode() == BO_Add;
      Lhs = Binary->getLHS();
      Rhs = Binary->getRHS();
    }
  } else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Stripped)) {
    if (Operator->getNumArgs() == 2 && (Operator->getOperator() == OO_Plus ||
                                        Operator->getOperator() == OO_Minus)) {
      Plus = Operator->getOperator() == OO_Plus;
      Lhs = Operator->getArg(0);
      Rhs = Operator->getArg(1);
    }
  }
  if (Plus) {
    // `e + acc` is `acc + e` exactly: IEEE addition is commutative.
    if (IsAcc(Lhs))
      return AssignedReduction{*Plus ? ReduceOp::Add : ReduceOp::Sub, Rhs};
    if (*Plus && IsAcc(Rhs))
      return AssignedReduction{ReduceOp::Add, Lhs};
    return std::nullopt;
  }
  const auto *Call = dyn_cast<CallExpr>(Stripped);
  if (!Call || Call->getNumArgs() != 2 || isa<CXXMemberCallExpr>(Call) ||
      !Call->getDirectCallee())
    return std::nullopt;
  const FunctionDecl *Callee = Call->getDirectCallee();
  std::string Name = calleeName(Call);
  bool OnTensors = isTensorType(Acc->getType());
  bool Larger = Name == "maximum" || Name == "max" || Name == "fmax";
  if (!Larger && Name != "minimum" && Name != "min" && Name != "fmin")
    return std::nullopt;
  if (OnTensors ? !isInVmapNamespace(Callee)
                : !(Callee->isInStdNamespace() || isCmath(Callee, 2)))
    return std::nullopt;
  unsigned AccArg = IsAcc(Call->getArg(0)) ? 0 : IsAcc(Call->getArg(1)) ? 1 : 2;
  if (AccArg == 2)
    return std::nullopt;
  const Expr *Value = Call->getArg(1 - AccArg);
  bool Skips = Name == "fmax" || Name == "fmin";
  ReduceOp Op = Skips ? (Larger ? ReduceOp::FMax : ReduceOp::FMin)
                      : (Larger ? ReduceOp::Max : ReduceOp::Min);
  // LibTorch's maximum/minimum propagate a NaN from either side. On C++
  // floating-point numbers, std::max/min keep or drop a NaN by its position
  // and fmax/fmin pick between signed zeros by position: the examples are
  // folded in loop order with the call as written (accumulate_scalar), which
  // is the call only with the accumulator first, and only into a C++ scalar
  // of the loop's own scope (one of an outer vmap level is reduced over the
  // batch, where NaNs propagate).
  bool Floating = !OnTensors && (Acc->getType()->isRealFloatingType() ||
                                 Value->getType()->isRealFloatingType());
  std::string Quoted = "'" + Acc->getNameAsString() + "'";
  if (Floating && AccArg != 0) {
    refuseAt(diag::refuse_reduction_order, Site->getSourceRange(),
             diag::note_reduction_order, {Quoted, Name});
    return std::nullopt;
  }
  if ((Floating || Skips) && depthOf(Acc) > 0) {
    refuseAt(diag::refuse_reduction_outer, Site->getSourceRange(),
             diag::note_reduction_outer, {Quoted, Name});
    return std::nullopt;
  }
  return AssignedReduction{Op, Value};
}

bool Analyser::recordReduction(const Expr *E, Scope &Where) {
  // Candidate forms: `acc op= e` and the assignments of assignedReduction.
  const Expr *Stripped = stripImplicit(E);
  const Expr *Target = nullptr;
  const Expr *Value = nullptr;
  ReduceOp Op = ReduceOp::Add;
  auto CompoundKind = [](OverloadedOperatorKind Kind,
                         ReduceOp &Op) -> bool {
    switch (Kind) {
    case OO_PlusEqual: Op = ReduceOp::Add; return true;
    case OO_MinusEqual: Op = ReduceOp::Sub; return true;
    case OO_StarEqual: Op = ReduceOp::Mul; return true;
    default: return false;
    }
  };
  const Expr *AssignedValue = nullptr;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Stripped)) {
    if (Operator->getNumArgs() != 2)
      return false;
    if (CompoundKind(Operator->getOperator(), Op)) {
      Target = Operator->getArg(0);
      Value = Operator->getArg(1);
    } else if (Operator->getOperator() == OO_Equal) {
      Target = Operator->getArg(0);
      AssignedValue = Operator->getArg(1);
    }
  } else if (const auto *Binary = dyn_cast<BinaryOperator>(Stripped)) {
    switch (Binary->getOpcode()) {
    case BO_AddAssign: Op = ReduceOp::Add; break;
    case BO_SubAssign: Op = ReduceOp::Sub; break;
    case BO_MulAssign: Op = ReduceOp::Mul; break;
    case BO_Assign: AssignedValue = Binary->getRHS(); break;
    default: return false;
    }
    Target = Binary->getLHS();
    if (!AssignedValue)
      Value = Binary->getRHS();
  }
  const VarDecl *Acc = wholeVar(Target);
  if (!Acc || !isInvariantAt(Acc, Where))
    return false;
  if (AssignedValue) {
    std::optional<AssignedReduction> Form =
        assignedReduction(E, AssignedValue, Acc);
    if (!Form)
      return false;
    Op = Form->Op;
    Value = Form->Value;
  }
  if (!Value || !(isTensorType(Acc->getType()) || isScalarType(Acc->getType())))
    return false;
  Result.Reductions[E] =
      Reduction{Target, Value, Op,
                AssignedValue != nullptr && isTensorType(Acc->getType())};
  ReductionSites.push_back({E, Acc, Op, Where});
  AccumulatorRefs.insert(stripImplicit(Target));
  return walkExpr(Value, Where);
}

/// Note [Unsigned per-example integers] (batched.hpp): `u += e`, `u -= e`,
/// `u *= e`, `++u` and `--u` of a per-example unsigned integer would wrap
/// around in C++, not in the int64 Value that holds it (`u = u + e` is
/// printed with the wrap), and so would a `/=` or `%=` in 64-bit unsigned
/// arithmetic of anything but a size_t variable (dividesNamedSize, which is
/// printed as C++ divides). A reduction into a loop-invariant one folds in
/// int64, whose `+ - *` give C++'s bits. Likewise for a signed integer
/// narrower than int (`short`): C++ computes `s += e` in int and keeps the low
/// bits (`vb::scalar_cast<short>` does so for `s = s + e`), an int32 Value
/// keeps the whole sum.
bool Analyser::checkUnsignedUpdates() {
  llvm::DenseSet<const Expr *> Reductions;
  for (const auto &[Site, R] : Result.Reductions)
    Reductions.insert(stripImplicit(Site));
  std::vector<const Expr *> Updates;
  for (const auto &[E, Levels] : Memo) {
    if (!Levels || Reductions.contains(stripImplicit(E)))
      continue;
    const Expr *Updated = nullptr;
    if (const auto *Compound = dyn_cast<CompoundAssignOperator>(E)) {
      BinaryOperatorKind Op = Compound->getOpcode();
      if (Op == BO_AddAssign || Op == BO_SubAssign || Op == BO_MulAssign ||
          ((Op == BO_DivAssign || Op == BO_RemAssign) &&
           isUnsigned64(Context, Compound->getComputationResultType()) &&
           !dividesNamedSize(Compound, Context)))
        Updated = Compound->getLHS();
    } else if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
      if (Unary->isIncrementDecrementOp())
        Updated = Unary->getSubExpr();
    }
    QualType T = Updated ? Updated->getType() : QualType();
    if (!T.isNull() && ((T->isUnsignedIntegerType() && !T->isBooleanType()) ||
                        isNarrowSigned(Context, T)))
      Updates.push_back(E);
    else if (const auto *Compound = dyn_cast<CompoundAssignOperator>(E);
             Compound && Compound->getOpcode() == BO_DivAssign &&
             isNarrowSigned(Context, Compound->getLHS()->getType()))
      Updates.push_back(E);  // SHRT_MIN / -1 wraps
  }
  const SourceManager &SM = Context.getSourceManager();
  llvm::sort(Updates, [&](const Expr *A, const Expr *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  bool Ok = true;
  for (const Expr *E : Updates) {
    std::string Op =
        isa<UnaryOperator>(E)
            ? UnaryOperator::getOpcodeStr(cast<UnaryOperator>(E)->getOpcode())
                  .str()
            : cast<BinaryOperator>(E)->getOpcodeStr().str();
    const Expr *Updated = isa<UnaryOperator>(E)
                              ? cast<UnaryOperator>(E)->getSubExpr()
                              : cast<BinaryOperator>(E)->getLHS();
    if (isNarrowSigned(Context, Updated->getType()))
      Ok &= refuseAt(
          diag::refuse_unsupported, E->getSourceRange(),
          diag::note_narrow_signed_update,
          {"'" + Op + "' on a per-example '" +
           Updated->getType().getUnqualifiedType().getAsString(
               Context.getPrintingPolicy()) +
           "'"});
    else
      Ok &= refuseAt(diag::refuse_unsupported, E->getSourceRange(),
                     diag::note_unsigned_update,
                     {"'" + Op + "' on a per-example unsigned integer"});
  }
  return Ok;
}

} // namespace detail
} // namespace clang_vmap
