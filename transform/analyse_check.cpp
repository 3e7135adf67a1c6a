//===- analyse_check.cpp - Step 3, check SPEC section 2 -------------------===//

#include "analyse_detail.h"
#include "ast_util.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <functional>
#include <vmap/rules/op_table.hpp>

using namespace clang;

namespace clang_vmap {
namespace detail {
namespace {

void forEachVarRef(const Stmt *S,
                   llvm::function_ref<void(const DeclRefExpr *)> Visit) {
  if (!S)
    return;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (isa<VarDecl>(Ref->getDecl()))
      Visit(Ref);
  for (const Stmt *Child : S->children())
    forEachVarRef(Child, Visit);
}

std::string quoted(const NamedDecl *D) {
  return "'" + D->getNameAsString() + "'";
}

/// Levels enclosing both scopes, from \p FromDepth on.
llvm::SmallVector<unsigned, 4> commonLevels(const Scope &A, const Scope &B,
                                            unsigned FromDepth) {
  llvm::SmallVector<unsigned, 4> Common;
  for (unsigned Depth = 0;
       Depth < A.Levels.size() && Depth < B.Levels.size() &&
       A.Levels[Depth] == B.Levels[Depth];
       ++Depth)
    if (Depth >= FromDepth)
      Common.push_back(A.Levels[Depth]);
  return Common;
}


/// The runtime's argument types (`detail::Scalar`): the op taking them decides.
bool isRuntimeType(QualType T) {
  const CXXRecordDecl *Record =
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return Record && isInVmapNamespace(Record);
}

/// The std::vector<Tensor> built from a braced list passed where the op table
/// says a tensor list goes (`stack({x[i], y}, 0)`): its elements may differ per
/// example, since the rewrite passes a std::vector<vb::Value> to vb::stack.
const CXXConstructExpr *tensorListArgument(const CallExpr *Call,
                                           unsigned Position) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !isInVmapNamespace(Callee) || isa<CXXMemberCallExpr>(Call) ||
      isa<CXXOperatorCallExpr>(Call))
    return nullptr;
  namespace rules = vmap::rules;
  std::size_t Entry = rules::find_op(calleeName(Call),
                                     rules::OpForm::free_function,
                                     static_cast<int>(Call->getNumArgs()));
  if (Entry == rules::kNoOp ||
      rules::kOpTable[Entry].param(Position) != rules::ArgKind::tensor_list)
    return nullptr;
  const auto *List =
      dyn_cast<CXXConstructExpr>(Call->getArg(Position)->IgnoreImplicit());
  if (!List || List->getNumArgs() == 0 ||
      !isa<CXXStdInitializerListExpr>(List->getArg(0)->IgnoreImplicit()))
    return nullptr;
  return List;
}



/// Note [Every refusal]
/// Like a compiler, the analyser reports every refusal in a loop, not only the
/// first: each check runs on every event (a write, a read, a reduction) and
/// reports at most one refusal for it; Analyser::refuseAt drops a refusal
/// inside code already refused, which would only repeat it.
template <typename RangeT, typename CheckT>
bool checkEach(const RangeT &Events, CheckT Check) {
  bool Ok = true;
  for (const auto &Event : Events)
    Ok &= Check(Event);
  return Ok;
}

/// The operand of a `/`, `%` or `<` (`>`, `<=`, `>=`) on unsigned integers
/// narrower than 64 bits that C++ converts from a signed type (`d % n` with
/// `int d = -7` and `uint32_t n` wraps -7 around), or null. Batched integers
/// are signed (rules' cpp_dtype), so such a result would differ; a
/// non-negative constant converts to the same value. On 64-bit ones the
/// printed unsigned forms read any operand's bits as C++ converts them.
const Expr *signedMadeUnsigned(const BinaryOperator *Binary,
                               const ASTContext &Context) {
  QualType Computation = Binary->getType();
  if (const auto *Compound = dyn_cast<CompoundAssignOperator>(Binary))
    Computation = Compound->getComputationResultType();
  else if (Binary->isComparisonOp()) // bool: the operands' common type
    Computation = Binary->getLHS()->getType();
  if (!Computation->isUnsignedIntegerType() || Computation->isBooleanType() ||
      isUnsigned64(Context, Computation))
    return nullptr;
  for (const Expr *Operand : {Binary->getLHS(), Binary->getRHS()}) {
    const Expr *Written = Operand->IgnoreParenImpCasts();
    if (!Written->getType()->isSignedIntegerType())
      continue;
    std::optional<llvm::APSInt> Constant =
        Written->getIntegerConstantExpr(Context);
    if (!Constant || Constant->isNegative())
      return Operand;
  }
  return nullptr;
}

} // namespace

/// A tensor made by a factory in its declaration: it shares storage with
/// nothing else.
bool isFreshTensor(const VarDecl *Var) {
  if (isa<ParmVarDecl>(Var) || Var->getType()->isReferenceType() ||
      !Var->getInit())
    return false;
  const auto *Call = dyn_cast<CallExpr>(stripImplicit(Var->getInit()));
  if (!Call)
    return false;
  std::string Name = calleeName(Call);
  if (isa<CXXMemberCallExpr>(Call))
    return Name == "clone";
  return vmap::rules::is_factory(Name);
}

bool isAssignedIn(const Stmt *S, const VarDecl *Var) {
  if (!S)
    return false;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(S))
    if (Operator->isAssignmentOp() && Operator->getNumArgs() > 0 &&
        referencedVar(Operator->getArg(0)) == Var)
      return true;
  if (const auto *Binary = dyn_cast<BinaryOperator>(S))
    if (Binary->isAssignmentOp() && referencedVar(Binary->getLHS()) == Var)
      return true;
  for (const Stmt *Child : S->children())
    if (isAssignedIn(Child, Var))
      return true;
  return false;
}

/// `v = e;`: a write that rebinds the variable \p Var itself.
bool isRebinding(const WriteEvent &W, const VarDecl *Var) {
  if (W.Written.Base != Var || !W.Written.Steps.empty())
    return false;
  const Expr *Site = stripImplicit(W.Site);
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Site))
    return Operator->getOperator() == OO_Equal;
  const auto *Binary = dyn_cast<BinaryOperator>(Site);
  return Binary && Binary->getOpcode() == BO_Assign;
}

//===-- 3. check ----------------------------------------------------------===//

int Analyser::inductionLevel(const Expr *Index) const {
  if (!Index)
    return -1;
  auto It = InductionLevel.find(referencedVar(Index));
  return It == InductionLevel.end() ? -1 : static_cast<int>(It->second);
}

std::string Analyser::stepKey(const Step &S) {
  if (!S.Index)
    return S.Key;
  int Level = inductionLevel(S.Index);
  if (Level >= 0)
    return S.Key + "@" + std::to_string(Level);
  Expr::EvalResult Value;
  if (S.Index->EvaluateAsInt(Value, Context))
    return S.Key + "#" + llvm::toString(Value.Val.getInt(), 10);
  return S.Key + "?" + text(S.Index);
}

bool Analyser::sameStep(const Step &A, const Step &B) {
  return stepKey(A) == stepKey(B);
}

bool Analyser::checkBounds() {
  return checkEach(Bounds, [&](const std::pair<unsigned, Scope> &Bound) {
    unsigned Index = Bound.first;
    const Scope &Where = Bound.second;
    const VmapLevel &Level = Result.Levels[Index];
    for (const Expr *E : {Level.Start, Level.Bound}) {
      std::string Part = E == Level.Start ? "start" : "bound";
      if (LevelSet Varying = levels(E)) {
        std::string Culprit = text(E);
        forEachVarRef(E, [&](const DeclRefExpr *Ref) {
          if (levels(Ref))
            Culprit = "'" + Ref->getDecl()->getNameAsString() + "'";
        });
        (void)Varying;
        return refuseAt(diag::refuse_nested_bound, E->getSourceRange(),
                        diag::note_hoist_bound, {Part, Culprit});
      }
      std::string Changing;
      forEachVarRef(E, [&](const DeclRefExpr *Ref) {
        const auto *Var = cast<VarDecl>(Ref->getDecl());
        if (Var == Level.Induction)
          Changing = quoted(Var);
        for (const WriteEvent &W : Writes)
          if (storageOf(W.Written.Base, /*ThroughCopies=*/false) ==
                  storageOf(Var, /*ThroughCopies=*/false) &&
              W.Written.Steps.empty() &&
              llvm::is_contained(W.Where.Levels, Index))
            Changing = quoted(Var);
        for (const ReductionSite &R : ReductionSites)
          if (storageOf(R.Accumulator, /*ThroughCopies=*/false) ==
                  storageOf(Var, /*ThroughCopies=*/false) &&
              llvm::is_contained(R.Where.Levels, Index))
            Changing = quoted(Var);
      });
      if (!Changing.empty())
        return refuseAt(diag::refuse_loop_not_invariant, E->getSourceRange(),
                        diag::note_hoist_bound, {Part, Changing});
    }
    for (const IfStmt *If : Where.Ifs)
      if (levels(If->getCond()))
        return refuseAt(diag::refuse_unsupported,
                        Level.For->getSourceRange(), diag::note_unsupported,
                        {"a vmap loop inside a per-example 'if'"});
    return true;
  });
}

bool Analyser::checkWrites() {
  return checkEach(Writes, [&](const WriteEvent &W) {
    const VarDecl *Var = W.Written.Base;
    unsigned Depth = W.Where.Levels.size();
    if (InductionLevel.count(Var))
      return refuseAt(diag::refuse_induction_written, W.Site->getSourceRange(),
                      diag::note_loop_form, {quoted(Var)});
    if (RangeVars.contains(W.Resolved.Base))
      return refuseAt(diag::refuse_range_variable_written,
                      W.Site->getSourceRange(), diag::note_range_variable,
                      {quoted(W.Resolved.Base)});
    if (Locals.count(Var) && isBoundReference(Var))
      return refuseAt(diag::refuse_write_through_reference,
                      W.Site->getSourceRange(), diag::note_write_referent,
                      {quoted(Var), "'" + text(Var->getInit()) + "'"});
    // The batched value of a const Tensor local cannot be written in place (the
    // rewrite would not compile), though a const Tensor handle's elements can.
    if (Locals.count(Var) && isTensorType(Var->getType()) &&
        Var->getType().getNonReferenceType().isConstQualified())
      return refuseAt(diag::refuse_unsupported, W.Site->getSourceRange(),
                      diag::note_unsupported,
                      {"an in-place write through the const Tensor " +
                       quoted(Var)});
    // Note [Handles rebound for some examples]
    // `Tensor r = out[i]; if (x[i] > 0) r = r * 2; r += 10;`: after the `if`,
    // one example's r is a view of out[i] and another's a new tensor. The
    // batched r is one value, the examples' merged (a copy), so `r += 10`
    // would reach no example's out[i]. Where r may share elements (its
    // initialiser or a rebinding's value is a view), an in-place write through
    // it after a rebinding some examples skip (a per-example `if`, loop or
    // `?:`) is refused.
    if (Locals.count(Var) && isTensorType(Var->getType()) &&
        !Var->getType()->isReferenceType() && !isRebinding(W, Var) &&
        !ownsElements(Var))
      for (const WriteEvent &Rebinding : Writes) {
        if (!isRebinding(Rebinding, Var))
          continue;
        const auto *Choice =
            Rebinding.Value
                ? dyn_cast<ConditionalOperator>(stripImplicit(Rebinding.Value))
                : nullptr;
        if (maskLevels(Rebinding.Where, Var) ||
            (Choice && levels(Choice->getCond())))
          return refuseAt(diag::refuse_write_after_partial_rebind,
                          W.Site->getSourceRange(), diag::note_partial_rebind,
                          {quoted(Var),
                           "'" + text(Rebinding.Site) + "' (line " +
                               std::to_string(Context.getSourceManager()
                                                  .getPresumedLineNumber(
                                                      Rebinding.Site->getBeginLoc())) +
                               ")"});
      }
    const auto *Param = dyn_cast<ParmVarDecl>(W.Resolved.Base);
    // `Tensor w = v; w = w * 0.5;` rebinds the local handle w: it writes no
    // elements of the caller's v (Note [Aliases in the body]).
    bool RebindsLocal = Locals.count(Var) && isTensorType(Var->getType()) &&
                        !Var->getType()->isReferenceType() &&
                        isRebinding(W, Var);
    bool SharesCallersTensor = Param && isTensorType(Param->getType()) &&
                               !isRebinding(W, Param);
    if (Result.Callee && !RebindsLocal && SharesCallersTensor)
      return refuseAt(diag::refuse_callee_parameter_written,
                      W.Site->getSourceRange(),
                      diag::note_callee_parameter_written,
                      {quoted(Param), Param->getNameAsString()});
    if (Result.Callee && !RebindsLocal && !Locals.count(W.Resolved.Base))
      return refuseAt(diag::refuse_invariant_write, W.Site->getSourceRange(),
                      diag::note_reduction, {quoted(W.Resolved.Base)});
    if (W.Written.Steps.empty()) {
      if (depthOf(Var) < Depth)
        return refuseAt(diag::refuse_invariant_write,
                        W.Site->getSourceRange(), diag::note_reduction,
                        {quoted(Var)});
      if (!writesElements(W)) {
        // In place into a Tensor whose elements may be another's.
        if (isTensorType(Var->getType()) && !isRebinding(W, Var) &&
            !isa<ParmVarDecl>(Var) && !ownsElements(Var))
          return refuseAt(diag::refuse_write_unknown_elements,
                          W.Site->getSourceRange(), diag::note_clone,
                          {quoted(Var)});
        return true;
      }
      // In place through a copy or view: a write into what it shares.
    }
    const Access &Slot = W.Resolved;
    // `Tensor w = W_; w[0] = v;`: a handle to elements the body did not make
    // (a member's, a function's result) would become a copy per example.
    if (Locals.count(Slot.Base) && isTensorType(Slot.Base->getType()) &&
        !isa<ParmVarDecl>(Slot.Base) &&
        !Slot.Base->getType()->isReferenceType() && !ownsElements(Slot.Base))
      return refuseAt(diag::refuse_write_unknown_elements,
                      W.Site->getSourceRange(), diag::note_clone,
                      {quoted(Slot.Base)});
    unsigned BaseDepth = depthOf(Slot.Base);
    if (BaseDepth >= Depth)
      return true;
    unsigned LastOwn = 0;
    for (unsigned D = BaseDepth; D < Depth; ++D) {
      unsigned Level = W.Where.Levels[D];
      auto Own = llvm::find_if(Slot.Steps, [&](const Step &S) {
        return !S.Window && inductionLevel(S.Index) == static_cast<int>(Level);
      });
      if (Own == Slot.Steps.end() && W.Written.Base != Slot.Base)
        return refuseAt(diag::refuse_write_shared_elements,
                        W.Site->getSourceRange(), diag::note_clone,
                        {quoted(Var), quoted(Slot.Base)});
      if (Own == Slot.Steps.end())
        return refuseAt(diag::refuse_store_not_own_slot,
                        W.Site->getSourceRange(), diag::note_store_own_slot,
                        {quoted(Slot.Base),
                         quoted(Result.Levels[Level].Induction)});
      LastOwn = std::max<unsigned>(LastOwn, Own - Slot.Steps.begin());
    }
    for (unsigned P = 0; P < LastOwn; ++P) {
      const Step &S = Slot.Steps[P];
      if (S.Index && inductionLevel(S.Index) < 0 && levels(S.Index))
        return refuseAt(diag::refuse_store_not_own_slot,
                        S.Index->getSourceRange(), diag::note_store_own_slot,
                        {quoted(Slot.Base),
                         quoted(Result.Levels[W.Where.Levels[BaseDepth]]
                                    .Induction)});
    }
    return true;
  });
}

bool Analyser::readsOwnSlot(const ReadEvent &R, const WriteEvent &W,
                            unsigned Depth) {
  llvm::SmallVector<unsigned, 4> Common = commonLevels(R.Where, W.Where, Depth);
  unsigned Last = 0;
  bool Same = true;
  for (unsigned Level : Common) {
    auto IsOwn = [&](const Step &S) {
      return !S.Window && inductionLevel(S.Index) == static_cast<int>(Level);
    };
    auto InWrite = llvm::find_if(W.Resolved.Steps, IsOwn);
    unsigned Position = InWrite - W.Resolved.Steps.begin();
    Last = std::max(Last, Position);
    Same = Same && Position < R.Resolved.Steps.size() &&
           IsOwn(R.Resolved.Steps[Position]);
  }
  for (unsigned P = 0; Same && !Common.empty() && P <= Last; ++P)
    Same = P < R.Resolved.Steps.size() && P < W.Resolved.Steps.size() &&
           sameStep(R.Resolved.Steps[P], W.Resolved.Steps[P]);
  return Same;
}

bool Analyser::checkReads() {
  return checkEach(Reads, [&](const ReadEvent &R) {
    const VarDecl *Base = R.Resolved.Base;
    for (const WriteEvent &W : Writes)
      if (W.Resolved.Base == Base && writesElements(W) &&
          !readsOwnSlot(R, W, depthOf(Base))) {
        if (llvm::any_of(R.Resolved.Steps,
                         [](const Step &S) { return S.Window && S.Index; }))
          return refuseAt(diag::refuse_loop_carried_window,
                          R.Read.Site->getSourceRange(),
                          diag::note_window_own_slot, {quoted(Base)});
        return refuseAt(diag::refuse_loop_carried,
                        R.Read.Site->getSourceRange(), diag::note_own_slot,
                        {quoted(Base)});
      }
    return true;
  });
}

bool Analyser::checkReductions() {
  return checkEach(ReductionSites, [&](const ReductionSite &Site) {
    const Reduction &R = Result.Reductions[Site.Site];
    const VarDecl *Acc = Site.Accumulator;
    bool ReadsItself = false;
    forEachVarRef(R.Value, [&](const DeclRefExpr *Ref) {
      ReadsItself |= Ref->getDecl() == Acc;
    });
    if (ReadsItself)
      return refuseAt(diag::refuse_accumulator_read,
                      R.Value->getSourceRange(), diag::note_accumulator,
                      {quoted(Acc)});
    auto Family = [](ReduceOp Op) {
      return Op == ReduceOp::Sub ? ReduceOp::Add : Op;
    };
    for (const ReductionSite &Other : ReductionSites)
      if (Other.Accumulator == Acc && Family(Other.Op) != Family(Site.Op))
        return refuseAt(diag::refuse_mixed_reduction,
                        Other.Site->getSourceRange(), diag::note_accumulator,
                        {quoted(Acc)});
    unsigned Depth = depthOf(Acc);
    // Note [Reductions into each example's integer]: batched, the values of
    // the inner levels are reduced first and combined once; C++ converts
    // after every step (`int c; c += 0.6f;` truncates each time, an unsigned
    // wraps), which a reduction into a C++ scalar of the loop's own scope
    // folds in order (accumulate_scalar) and one of an outer level's example
    // cannot.
    const QualType AccType = Acc->getType().getNonReferenceType();
    if (Depth > 0 && Depth < Site.Where.Levels.size() &&
        AccType->isIntegerType() &&
        (R.Value->getType()->isRealFloatingType() ||
         AccType->isUnsignedIntegerType()))
      return refuseAt(diag::refuse_reduction_outer_conversion,
                      Site.Site->getSourceRange(),
                      diag::note_reduction_outer_conversion,
                      {quoted(Acc), "'" + AccType.getAsString(
                                              Context.getPrintingPolicy()) +
                                        "'"});
    for (const ReadEvent &Read : Reads)
      if ((Read.Read.Base == Acc ||
           storageOf(Read.Resolved.Base, /*ThroughCopies=*/true) ==
               storageOf(Acc, /*ThroughCopies=*/true)) &&
          Read.Where.Levels.size() > Depth &&
          Read.Where.Levels[Depth] == Site.Where.Levels[Depth])
        return refuseAt(diag::refuse_accumulator_read,
                        Read.Read.Site->getSourceRange(),
                        diag::note_accumulator, {quoted(Acc)});
    return true;
  });
}

bool Analyser::checkContexts() {
  // A plain `for` whose condition differs per example runs under a mask
  // (analyse_control.cpp), as a `while` does.
  bool Ok = checkEach(RangeLoops, [&](const auto &Loop) {
    const Expr *Range = Loop.first->getRangeInit();
    if (levels(Range))
      return refuseAt(diag::refuse_batched_context, Range->getSourceRange(),
                      diag::note_batched_context,
                      {"the range of a plain loop"});
    return true;
  });
  for (const auto &[Var, Levels] : Result.BatchedVars)
    if (Levels && !InductionLevel.count(Var) &&
        !isTensorType(Var->getType()) && !isScalarType(Var->getType()) &&
        !isTensorTupleType(Var->getType()))
      Ok &= refuseAt(
          diag::refuse_batched_type, Var->getSourceRange(),
          diag::note_batched_context,
          {quoted(Var),
           "'" + Var->getType().getAsString(Context.getPrintingPolicy()) +
               "'"});

  // Batched expressions in positions that are not batched: sort by position
  // so the first one in the source is reported.
  std::vector<const Expr *> Batched;
  for (const auto &[E, Levels] : Memo)
    if (Levels)
      Batched.push_back(E);
  llvm::DenseSet<const Expr *> TensorLists;
  for (const auto &[Call, Where] : Calls)
    for (unsigned Position = 0; Position < Call->getNumArgs(); ++Position)
      if (const CXXConstructExpr *List = tensorListArgument(Call, Position))
        TensorLists.insert(List);
  // What an argument of a runtime op is converted to (`std::optional<Tensor>`
  // for linear's bias, `std::optional<Scalar>` for clamp's bounds) is the
  // runtime's business: the op table says which arguments may vary (batch.cpp).
  llvm::DenseSet<const Expr *> OpArguments;
  for (const auto &[Call, Where] : Calls)
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && isInVmapNamespace(Callee))
      for (const Expr *Arg : Call->arguments())
        OpArguments.insert(Arg->IgnoreImplicit());
  // The calls of `acc = std::max(acc, e)` into a C++ scalar of this function's
  // scope: vb::accumulate folds a size_t in C++'s order.
  llvm::DenseSet<const Expr *> ScalarReductions;
  for (const auto &[Site, R] : Result.Reductions)
    if (const auto *Assign = dyn_cast<BinaryOperator>(stripImplicit(Site)))
      if (const auto *Acc = dyn_cast<DeclRefExpr>(stripImplicit(R.Accumulator)))
        if (const auto *Var = dyn_cast<VarDecl>(Acc->getDecl());
            Var && depthOf(Var) == 0)
          ScalarReductions.insert(stripImplicit(Assign->getRHS()));
  const SourceManager &SM = Context.getSourceManager();
  // Outer expressions first, so one refusal covers what lies inside it.
  llvm::sort(Batched, [&](const Expr *A, const Expr *B) {
    if (A->getBeginLoc() != B->getBeginLoc())
      return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
    return SM.isBeforeInTranslationUnit(B->getEndLoc(), A->getEndLoc());
  });
  return checkEach(Batched, [&](const Expr *E) {
    // A number the batched values cannot hold as C++ computes it: `long
    // double`, `__int128`, a character, an unscoped enum (isScalarType).
    if (QualType Type = E->getType().getNonReferenceType();
        Type->isArithmeticType() && !isScalarType(Type))
      return refuseAt(diag::refuse_unsupported, E->getSourceRange(),
                      diag::note_narrow_types,
                      {"a per-example value of type '" +
                       Type.getUnqualifiedType().getAsString(
                           Context.getPrintingPolicy()) +
                       "'"});
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E)) {
      // `x[i].data_ptr<float>()[0]`: the pointer differs, not the index.
      if (levels(Subscript->getBase()))
        return refuseAt(diag::refuse_batched_context,
                        Subscript->getBase()->getSourceRange(),
                        diag::note_pointer_per_example,
                        {"a C++ pointer or array"});
      return refuseAt(diag::refuse_batched_context,
                      Subscript->getSourceRange(), diag::note_batched_context,
                      {"a C++ array or pointer index"});
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
      switch (Binary->getOpcode()) {
      case BO_Div: case BO_Rem: case BO_DivAssign: case BO_RemAssign:
      case BO_LT: case BO_GT: case BO_LE: case BO_GE:
        if (const Expr *Signed = signedMadeUnsigned(Binary, Context))
          return refuseAt(diag::refuse_unsupported, Signed->getSourceRange(),
                          diag::note_unsupported,
                          {"a signed per-example operand of an unsigned '" +
                           Binary->getOpcodeStr().str() + "'"});
        break;
      case BO_Add: case BO_Sub: case BO_Mul: case BO_EQ: case BO_NE:
      case BO_LAnd: case BO_LOr: case BO_Assign: case BO_AddAssign:
      case BO_SubAssign: case BO_MulAssign:
        break;
      default:
        // Note [Kernel-only code] in analyse.h.
        Result.KernelOnly[E] = {false, "operator '" +
                                           Binary->getOpcodeStr().str() +
                                           "' on a per-example scalar"};
        break;
      }
    }
    // std::max, std::sqrt, ... of a size_t compare or convert its int64 bits
    // (Note [Unsigned per-example integers] in batched.hpp); a reduction into
    // a C++ scalar of the function's scope folds the bits as C++'s order.
    if (const auto *Call = dyn_cast<CallExpr>(E))
      if (const FunctionDecl *Callee = Call->getDirectCallee();
          Callee && !ScalarReductions.contains(Call) &&
          (Callee->isInStdNamespace() || isCmath(Callee, Call->getNumArgs())))
        for (const Expr *Arg : Call->arguments())
          if (levels(Arg) && isUnsigned64(Context, Arg->getType()))
            return refuseAt(diag::refuse_unsupported, Arg->getSourceRange(),
                            diag::note_unsigned_call,
                            {"a per-example size_t argument of '" +
                             Callee->getNameAsString() + "'"});
    if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
      UnaryOperatorKind Op = Unary->getOpcode();
      // `++`/`--` print as what C++ means wherever they are (Printer).
      if (Op == UO_Not)
        Result.KernelOnly[E] = {false, "operator '~' on a per-example scalar"};
      else if (Op != UO_Minus && Op != UO_Plus && Op != UO_LNot &&
          !Unary->isIncrementDecrementOp())
        return refuseAt(diag::refuse_unsupported, E->getSourceRange(),
                        diag::note_unsupported,
                        {"operator '" +
                         UnaryOperator::getOpcodeStr(Op).str() +
                         "' on a per-example scalar"});
    }
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
      if (!isScalarType(Cast->getType()) && !isTensorType(Cast->getType()) &&
          !Cast->getType()->isVoidType()) // `(void)k;`: the value unused, as written
        return refuseAt(
            diag::refuse_batched_context, E->getSourceRange(),
            diag::note_batched_context,
            {"a cast to '" +
             Cast->getType().getAsString(Context.getPrintingPolicy()) + "'"});
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
      if (!TensorLists.contains(Construct) && !OpArguments.contains(Construct) &&
          !isTensorType(Construct->getType()) &&
          !isScalarType(Construct->getType()) &&
          !isRuntimeType(Construct->getType()))
        return refuseAt(
            diag::refuse_batched_context, E->getSourceRange(),
            diag::note_batched_context,
            {"an element of '" +
             Construct->getType().getAsString(Context.getPrintingPolicy()) +
             "'"});
    if (isa<MemberExpr>(E) && !isa<CXXMethodDecl>(cast<MemberExpr>(E)->getMemberDecl()))
      return refuseAt(diag::refuse_unsupported, E->getSourceRange(),
                      diag::note_unsupported,
                      {"a data member of a per-example value"});
    return true;
  }) && Ok;
}

// Note [Aliases in the body]: a non-const reference to a per-example value
// would be a reference to its batched value, which the rewrite cannot bind.
bool Analyser::checkReferences() {
  using DeclAt = std::pair<const DeclStmt *, Scope>;
  return checkEach(Decls, [&](const DeclAt &Decl) {
    for (const clang::Decl *D : Decl.first->decls()) {
      const auto *Var = dyn_cast<VarDecl>(D);
      if (!Var || !isBoundReference(Var) ||
          Var->getType().getNonReferenceType().isConstQualified())
        continue;
      const VarDecl *Referent = referencedVar(Var->getInit());
      if (Referent && Result.BatchedVars.lookup(Referent))
        return refuseAt(diag::refuse_reference_to_per_example,
                        Var->getSourceRange(), diag::note_const_reference,
                        {quoted(Var), quoted(Referent)});
    }
    return true;
  });
}

} // namespace detail
} // namespace clang_vmap
