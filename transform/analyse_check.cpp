//===- analyse_check.cpp - Classify values and check SPEC section 2 -------===//

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
/// that C++ converts from a signed type (`d % n` with `int d = -7` and `size_t
/// n` wraps -7 around), or null. Batched integers are signed (rules'
/// cpp_dtype), so such a result would differ; a non-negative constant converts
/// to the same value.
const Expr *signedMadeUnsigned(const BinaryOperator *Binary,
                               const ASTContext &Context) {
  QualType Computation = Binary->getType();
  if (const auto *Compound = dyn_cast<CompoundAssignOperator>(Binary))
    Computation = Compound->getComputationResultType();
  else if (Binary->isComparisonOp()) // bool: the operands' common type
    Computation = Binary->getLHS()->getType();
  if (!Computation->isUnsignedIntegerType() || Computation->isBooleanType())
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

//===-- 2. classify -------------------------------------------------------===//

LevelSet Analyser::levels(const Expr *E) {
  if (!E)
    return 0;
  auto It = Memo.find(E);
  if (It != Memo.end())
    return It->second;
  LevelSet Levels = 0;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    // `auto [values, indices] = x[i].topk(3);`: each name varies as the tuple.
    const ValueDecl *Named = Ref->getDecl();
    if (const auto *Binding = dyn_cast<BindingDecl>(Named))
      Named = Binding->getDecomposedDecl();
    if (const auto *Var = dyn_cast_or_null<VarDecl>(Named)) {
      auto Batched = Result.BatchedVars.find(Var);
      if (Batched != Result.BatchedVars.end())
        Levels = Batched->second;
    }
  } else {
    for (const Stmt *Child : E->children())
      if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
        Levels |= levels(ChildExpr);
    // Shapes and dtypes are the same for every example.
    if (isa<CXXMemberCallExpr>(E) && isMetadataCall(E))
      Levels = 0;
  }
  Memo[E] = Levels;
  return Levels;
}

LevelSet Analyser::maskLevels(const Scope &Where, const VarDecl *Local) {
  LevelSet Levels = 0;
  auto Info = Locals.find(Local);
  for (const IfStmt *If : Where.Ifs)
    if (Info == Locals.end() || !llvm::is_contained(Info->second.Ifs, If))
      Levels |= levels(If->getCond());
  // A loop or switch run per example masks what it writes of the variables
  // declared outside it, as an `if` does.
  for (const Control &C : Where.Controls)
    if (Info == Locals.end() ||
        llvm::none_of(Info->second.Controls,
                      [&](const Control &Outer) { return Outer.S == C.S; }))
      Levels |= controlLevels(C.S);
  for (const Expr *Guard : Where.Guards)
    Levels |= levels(Guard);
  return Levels;
}

void Analyser::classify() {
  bool Changed = true;
  auto Add = [&](const VarDecl *Var, LevelSet Levels) {
    if (!Levels)
      return;
    LevelSet &Slot = Result.BatchedVars[Var];
    if ((Slot | Levels) != Slot) {
      Slot |= Levels;
      Changed = true;
    }
  };
  // Each round can only add levels to a finite set: this terminates.
  while (Changed) {
    Changed = false;
    Memo.clear();
    // The variables of one declaration have one type: a vb::Value for all
    // once one of them is per example (`int64_t k = 0, n = 0;`).
    for (const auto &[S, Where] : Decls) {
      LevelSet Levels = 0;
      for (const Decl *D : S->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          Levels |= levels(Var->getInit()) | Result.BatchedVars.lookup(Var);
      for (const Decl *D : S->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          Add(Var, Levels);
    }
    for (const WriteEvent &W : Writes) {
      for (const VarDecl *Var : {W.Written.Base, W.Resolved.Base}) {
        auto Info = Locals.find(Var);
        if (Info == Locals.end() || Info->second.Depth > W.Where.Levels.size())
          continue;
        LevelSet Written = levels(W.Site) | maskLevels(W.Where, Var);
        // A slot written in a nested vmap loop (`row[j] = x[i][j];` with `row`
        // declared in the i loop) varies along the levels enclosing `row`;
        // the nested levels are its own slots.
        if (Info->second.Depth < W.Where.Levels.size()) {
          LevelSet Enclosing = 0;
          for (unsigned D = 0; D < Info->second.Depth; ++D)
            Enclosing |= LevelSet(1) << W.Where.Levels[D];
          Written &= Enclosing;
        }
        Add(Var, Written);
      }
    }
    for (const ReductionSite &R : ReductionSites)
      if (Locals.count(R.Accumulator))
        Add(R.Accumulator, levels(Result.Reductions[R.Site].Value));
  }
  Memo.clear();
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
    const auto *Param = dyn_cast<ParmVarDecl>(W.Resolved.Base);
    // `Tensor w = v; w = w * 0.5;` rebinds the local handle w: it writes no
    // elements of the caller's v (Note [Aliases in the body]).
    bool RebindsLocal = Locals.count(Var) && isTensorType(Var->getType()) &&
                        !Var->getType()->isReferenceType() &&
                        isRebinding(W, Var);
    bool SharesCallersTensor = Param && isTensorType(Param->getType()) &&
                               !isRebinding(W, Param);
    if (Result.Callee && !RebindsLocal &&
        (!Locals.count(W.Resolved.Base) || SharesCallersTensor))
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
          !readsOwnSlot(R, W, depthOf(Base)))
        return refuseAt(diag::refuse_loop_carried,
                        R.Read.Site->getSourceRange(), diag::note_own_slot,
                        {quoted(Base)});
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
  const SourceManager &SM = Context.getSourceManager();
  // Outer expressions first, so one refusal covers what lies inside it.
  llvm::sort(Batched, [&](const Expr *A, const Expr *B) {
    if (A->getBeginLoc() != B->getBeginLoc())
      return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
    return SM.isBeforeInTranslationUnit(B->getEndLoc(), A->getEndLoc());
  });
  return checkEach(Batched, [&](const Expr *E) {
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
        return refuseAt(diag::refuse_unsupported, E->getSourceRange(),
                        diag::note_unsupported,
                        {"operator '" + Binary->getOpcodeStr().str() +
                         "' on a per-example scalar"});
      }
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
      UnaryOperatorKind Op = Unary->getOpcode();
      // `++`/`--` print as what C++ means wherever they are (Printer).
      if (Op != UO_Minus && Op != UO_Plus && Op != UO_LNot &&
          !Unary->isIncrementDecrementOp())
        return refuseAt(diag::refuse_unsupported, E->getSourceRange(),
                        diag::note_unsupported,
                        {"operator '" +
                         UnaryOperator::getOpcodeStr(Op).str() +
                         "' on a per-example scalar"});
    }
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
      if (!isScalarType(Cast->getType()) && !isTensorType(Cast->getType()))
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

/// Note [Every tensor the loop reaches]
/// SPEC sections 2 and 7. A tensor the loop writes (an output, an accumulator
/// updated in place) may share elements with any tensor the loop reaches that
/// is not the body's own: a parameter, a global or static, a capture, a data
/// member, a variable of the function declared before the loop, a container of
/// tensors, and views, references and handle copies of these. The set comes
/// from the walk's record of what the loop reads and writes (Reads, Writes,
/// ReductionSites, TensorContainers, ReachedMembers), so a form the walk
/// records is checked without being listed here. Each pair is either proven
/// disjoint from the source (a fresh tensor, two disjoint windows or slots of
/// one variable, disjoint regions of one buffer), or proven to overlap other
/// than as the same view (refused at the line), or checked by the run-time
/// guard, which runs the loop as written when they overlap; the guard also
/// runs it so when a written tensor's own elements overlap (an expanded view,
/// batched.hpp's internal_overlap).
namespace {

/// One tensor the loop reaches (Note [Every tensor the loop reaches]).
struct Reached {
  std::string Name;               ///< as the guard names it before the loop
  const VarDecl *Var = nullptr;   ///< null for a data member
  const NamedDecl *Decl = nullptr; ///< for remarks
  const Expr *Site = nullptr;     ///< a read or write of it in the loop
  bool Written = false;           ///< an output or accumulator
  bool Container = false;         ///< of tensors, read whole
};

const InitListExpr *findInitList(const Stmt *S) {
  if (!S)
    return nullptr;
  if (const auto *List = dyn_cast<InitListExpr>(S))
    return List;
  for (const Stmt *Child : S->children())
    if (const InitListExpr *List = findInitList(Child))
      return List;
  return nullptr;
}

/// `from_blob(buf + 1, {3, 3})`: the bytes of the array or pointer variable
/// `buf` a tensor covers. End is exact for the default dtype (float32), else a
/// lower bound (an element is at least a byte).
struct BlobRegion {
  const VarDecl *Buffer = nullptr;
  int64_t Begin = 0, End = 0;
  bool Exact = false;
};

std::optional<BlobRegion> blobOf(const VarDecl *Var, const Stmt *Body,
                                 const ASTContext &Context) {
  const auto *Call = Var->getInit() && !isa<ParmVarDecl>(Var)
                         ? dyn_cast<CallExpr>(stripImplicit(Var->getInit()))
                         : nullptr;
  if (!Call || !Call->getDirectCallee() ||
      !isInVmapNamespace(Call->getDirectCallee()) ||
      calleeName(Call) != "from_blob" || Call->getNumArgs() < 2)
    return std::nullopt;
  auto Constant = [&](const Expr *E) -> std::optional<int64_t> {
    Expr::EvalResult Value;
    if (!E->EvaluateAsInt(Value, Context))
      return std::nullopt;
    return Value.Val.getInt().getExtValue();
  };
  const Expr *Pointer = Call->getArg(0)->IgnoreParenImpCasts();
  std::optional<int64_t> Offset = 0;
  if (const auto *Add = dyn_cast<BinaryOperator>(Pointer);
      Add && Add->getOpcode() == BO_Add) {
    Offset = Constant(Add->getRHS());
    Pointer = Add->getLHS()->IgnoreParenImpCasts();
  } else if (const auto *Address = dyn_cast<UnaryOperator>(Pointer);
             Address && Address->getOpcode() == UO_AddrOf) {
    const auto *Element =
        dyn_cast<ArraySubscriptExpr>(Address->getSubExpr()->IgnoreParens());
    if (!Element)
      return std::nullopt;
    Offset = Constant(Element->getIdx());
    Pointer = Element->getBase()->IgnoreParenImpCasts();
  }
  QualType Type = Pointer->getType();
  if (const auto *Data = dyn_cast<CXXMemberCallExpr>(Pointer);
      Data && calleeName(Data) == "data" && Data->getNumArgs() == 0)
    Pointer = Data->getImplicitObjectArgument()->IgnoreParenImpCasts();
  const VarDecl *Buffer = referencedVar(Pointer);
  QualType ElementType = Type->isPointerType() ? Type->getPointeeType()
                         : Type->isArrayType()
                             ? QualType(Type->getArrayElementTypeNoTypeQual(), 0)
                             : QualType();
  const InitListExpr *Sizes = findInitList(Call->getArg(1));
  if (!Offset || !Buffer || ElementType.isNull() ||
      ElementType->isIncompleteType() || !Sizes || isAssignedIn(Body, Buffer))
    return std::nullopt;
  int64_t Numel = 1;
  for (const Expr *Size : Sizes->inits()) {
    std::optional<int64_t> N = Constant(Size);
    if (!N || *N < 0)
      return std::nullopt;
    Numel *= *N;
  }
  bool DefaultDtype = Call->getNumArgs() < 3 ||
                      isa<CXXDefaultArgExpr>(Call->getArg(2));
  BlobRegion Region;
  Region.Buffer = Buffer;
  Region.Begin =
      *Offset * Context.getTypeSizeInChars(ElementType).getQuantity();
  Region.End = Region.Begin + Numel * (DefaultDtype ? 4 : 1);
  Region.Exact = DefaultDtype;
  return Region;
}

/// How the loop names the object a member function is called on: `this` or a
/// variable (Pointer: through `->`); empty where it cannot.
struct ObjectName {
  std::string Name;
  bool Pointer = false;
};

/// The tensors a function this file defines reaches besides its arguments,
/// and the functions it calls in turn: globals and static members, by their
/// qualified names, and members of the object it is called on, through \p
/// Object (Note [Every tensor the loop reaches]).
void forEachTensorThroughCall(
    const FunctionDecl *Callee, const ObjectName &Object,
    const ASTContext &Context,
    llvm::SmallPtrSetImpl<const FunctionDecl *> &Seen,
    llvm::function_ref<void(std::string, const ValueDecl *, bool)> Visit) {
  const FunctionDecl *Definition = nullptr;
  if (!Callee || isInVmapNamespace(Callee) || !Callee->hasBody(Definition) ||
      Context.getSourceManager().isInSystemHeader(Definition->getLocation()) ||
      !Seen.insert(Definition).second)
    return;
  PrintingPolicy Policy = Context.getPrintingPolicy();
  Policy.SuppressUnwrittenScope = true;
  // `this->cfg.scale` in the callee: `layer.cfg.scale` in the loop.
  std::function<std::optional<std::string>(const Expr *)> NameOf =
      [&](const Expr *E) -> std::optional<std::string> {
    E = E->IgnoreParenImpCasts();
    const auto *Member = dyn_cast<MemberExpr>(E);
    if (!Member || !isa<FieldDecl>(Member->getMemberDecl()))
      return std::nullopt;
    const Expr *Base = Member->getBase()->IgnoreParenImpCasts();
    std::string Field = Member->getMemberDecl()->getNameAsString();
    if (isa<CXXThisExpr>(Base))
      return Object.Name.empty()
                 ? std::nullopt
                 : std::optional(Object.Name + (Object.Pointer ? "->" : ".") +
                                 Field);
    std::optional<std::string> Outer = NameOf(Base);
    if (!Outer)
      return std::nullopt;
    return *Outer + (Member->isArrow() ? "->" : ".") + Field;
  };
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && Var->hasGlobalStorage() && !Var->isStaticLocal() &&
          (isTensorType(Var->getType()) || holdsTensors(Var->getType()))) {
        std::string Name;
        llvm::raw_string_ostream OS(Name);
        OS << "::";
        Var->printQualifiedName(OS, Policy);
        Visit(Name, Var, holdsTensors(Var->getType()));
      }
    if (const auto *Member = dyn_cast<MemberExpr>(S)) {
      QualType Type = Member->getMemberDecl()->getType();
      if (isTensorType(Type) || holdsTensors(Type))
        if (std::optional<std::string> Name = NameOf(Member))
          Visit(*Name, Member->getMemberDecl(), holdsTensors(Type));
    }
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      ObjectName Inner;
      if (const auto *Method = dyn_cast<CXXMemberCallExpr>(Call);
          Method && isa<CXXThisExpr>(
                        Method->getImplicitObjectArgument()->IgnoreParenImpCasts()))
        Inner = Object;
      forEachTensorThroughCall(Call->getDirectCallee(), Inner, Context, Seen,
                               Visit);
    }
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Definition->getBody());
}

} // namespace

Access Analyser::rootOf(const VarDecl *Var) const {
  const FunctionDecl *Function = Loops[Top].Function;
  const Stmt *Body = Function ? Function->getBody() : nullptr;
  Access Root;
  Root.Base = Var;
  // Bounded: a declaration's initialiser names only earlier variables.
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    const VarDecl *Base = Root.Base;
    if (!Base->isLocalVarDecl() || Base->isStaticLocal() || Locals.count(Base) ||
        !Base->getInit() || isAssignedIn(Body, Base) ||
        !(isTensorType(Base->getType()) || isBoundReference(Base)))
      return Root;
    std::optional<Access> Init = accessOf(Base->getInit());
    if (!Init)
      return Root;
    Init->Steps.append(Root.Steps.begin(), Root.Steps.end());
    Root = std::move(*Init);
  }
  return Root;
}

bool Analyser::checkAliasing() {
  if (Result.Callee)
    return true; // the caller's loop checks what it passes in
  const FunctionDecl *Function = Loops[Top].Function;
  const Stmt *Body = Function ? Function->getBody() : nullptr;
  // Memoised: a loop reads many tensors, each a walk over the whole body.
  llvm::DenseMap<const VarDecl *, bool> FreshVars;
  auto Fresh = [&](const VarDecl *Var) {
    auto [It, Inserted] = FreshVars.try_emplace(Var, false);
    if (Inserted)
      It->second = isFreshTensor(Var) && !isAssignedIn(Body, Var);
    return It->second;
  };

  std::vector<Reached> All;
  auto Add = [&](Reached R) {
    auto Known = llvm::find_if(All, [&](const Reached &Other) {
      return Other.Name == R.Name ||
             (isa_and_nonnull<VarDecl>(R.Decl) && Other.Decl == R.Decl);
    });
    if (Known == All.end())
      return All.push_back(std::move(R));
    if (R.Written && !Known->Written) {
      Known->Written = true;
      Known->Site = R.Site;
    }
  };
  // A static member or a namespace's variable by its qualified name, which
  // the loop's function may have written with a qualifier (`Table::weights`).
  PrintingPolicy Policy = Context.getPrintingPolicy();
  Policy.SuppressUnwrittenScope = true;
  auto OfVar = [&](const VarDecl *Var, const Expr *Site, bool Written) {
    std::string Name = Var->getNameAsString();
    if (Var->isStaticDataMember() ||
        (Var->hasGlobalStorage() && !Var->isStaticLocal() &&
         !Var->getDeclContext()->getRedeclContext()->isTranslationUnit())) {
      Name = "::";
      llvm::raw_string_ostream OS(Name);
      Var->printQualifiedName(OS, Policy);
    }
    return Reached{Name, Var, Var, Site, Written, false};
  };
  for (const WriteEvent &W : Writes)
    if (writesElements(W) && !Locals.count(W.Resolved.Base) &&
        isTensorType(W.Resolved.Base->getType()))
      Add(OfVar(W.Resolved.Base, W.Site, true));
  // `acc += e` writes acc's elements; `acc = maximum(acc, e)` makes a new
  // tensor (Reduction::Rebinds) and only reads.
  for (const ReductionSite &R : ReductionSites)
    if (!Locals.count(R.Accumulator) &&
        isTensorType(R.Accumulator->getType()))
      Add(OfVar(R.Accumulator, R.Site, !Result.Reductions[R.Site].Rebinds));
  for (const ReadEvent &R : Reads)
    if (!Locals.count(R.Resolved.Base) &&
        isTensorType(R.Resolved.Base->getType()))
      Add(OfVar(R.Resolved.Base, R.Read.Site, false));
  for (const VarDecl *Container : TensorContainers)
    if (!Locals.count(Container)) {
      Reached R = OfVar(Container, nullptr, false);
      R.Container = true;
      Add(R);
    }
  for (const ReachedMember &M : ReachedMembers)
    Add({M.Name, nullptr, M.Site->getMemberDecl(), M.Site, false, M.Container});
  // What this file's functions called in the loop reach besides their
  // arguments (which the loop's own reads and writes already are).
  for (const auto &[Call, Where] : Calls) {
    llvm::SmallPtrSet<const FunctionDecl *, 8> Seen;
    ObjectName Object;
    if (const auto *Method = dyn_cast<CXXMemberCallExpr>(Call)) {
      const Expr *Of = Method->getImplicitObjectArgument();
      if (std::optional<std::string> Name = nameBeforeLoop(Of))
        Object = {*Name, Of->getType()->isPointerType()};
    }
    forEachTensorThroughCall(
        Call->getDirectCallee(), Object, Context, Seen,
        [&](std::string Name, const ValueDecl *Decl, bool Container) {
          Add({std::move(Name), nullptr, Decl, Call, false, Container});
        });
  }

  auto Guard = [&](const Reached &Written, const Reached &Other,
                   OverlapCheck::Kind Kind) {
    Result.OverlapChecks.push_back(
        {Written.Name, Other.Name, Written.Decl->getLocation(),
         Other.Decl ? Other.Decl->getLocation() : SourceLocation(), Kind});
  };
  // Bound to the same view, a written and a read tensor are one: safe only
  // when the loop reads each example's own slot of it, as checkReads asks of
  // one variable.
  auto SameViewSafe = [&](const VarDecl *Written, const VarDecl *Read) {
    // An accumulator is read whole by every example, whether updated in
    // place or rebound (`best = maximum(best, x[i])` reads all of best).
    bool Safe = llvm::none_of(ReductionSites, [&](const ReductionSite &R) {
      return R.Accumulator == Written || R.Accumulator == Read;
    });
    for (const ReadEvent &R : Reads)
      for (const WriteEvent &W : Writes)
        if (R.Resolved.Base == Read && W.Resolved.Base == Written &&
            writesElements(W))
          Safe &= readsOwnSlot(R, W, depthOf(Read));
    return Safe;
  };
  auto Constant = [&](const Expr *E) -> std::optional<int64_t> {
    Expr::EvalResult Value;
    if (!E || !E->EvaluateAsInt(Value, Context))
      return std::nullopt;
    return Value.Val.getInt().getExtValue();
  };
  enum class Proof { Unknown, Disjoint, SameView, Overlap };
  // Two views of one variable: where their paths first part.
  auto Compare = [&](const Access &A, const Access &B) {
    std::size_t P = 0;
    while (P < A.Steps.size() && P < B.Steps.size() &&
           sameStep(A.Steps[P], B.Steps[P]))
      ++P;
    if (P == A.Steps.size() && P == B.Steps.size())
      return Proof::SameView;
    if (P == A.Steps.size() || P == B.Steps.size())
      return Proof::Overlap; // one is a view into the other
    const Step &SA = A.Steps[P], &SB = B.Steps[P];
    std::optional<int64_t> StartA = Constant(SA.Index),
                           StartB = Constant(SB.Index);
    if (SA.Key != SB.Key || !StartA || !StartB)
      return Proof::Unknown;
    if (!SA.Window)
      return Proof::Disjoint; // two slots of one dim
    std::optional<int64_t> LengthA = Constant(SA.Length),
                           LengthB = Constant(SB.Length);
    if (!LengthA || !LengthB)
      return Proof::Unknown;
    if (*StartA + *LengthA <= *StartB || *StartB + *LengthB <= *StartA)
      return Proof::Disjoint;
    // Overlapping windows; what further steps take of them may not.
    return P + 1 == A.Steps.size() && P + 1 == B.Steps.size()
               ? Proof::Overlap
               : Proof::Unknown;
  };
  auto Prove = [&](const VarDecl *A, const VarDecl *B) {
    Access RootA = rootOf(A), RootB = rootOf(B);
    if (RootA.Base == RootB.Base)
      return std::pair(Compare(RootA, RootB), RootA.Base);
    if (RootA.Steps.empty() && RootB.Steps.empty()) {
      std::optional<BlobRegion> BlobA = blobOf(RootA.Base, Body, Context),
                                BlobB = blobOf(RootB.Base, Body, Context);
      if (BlobA && BlobB && BlobA->Buffer == BlobB->Buffer) {
        if (BlobA->Begin == BlobB->Begin && BlobA->End == BlobB->End &&
            BlobA->Exact && BlobB->Exact)
          return std::pair(Proof::SameView, BlobA->Buffer);
        if (BlobA->Begin < BlobB->End && BlobB->Begin < BlobA->End)
          return std::pair(Proof::Overlap, BlobA->Buffer);
        if (BlobA->Exact && BlobB->Exact)
          return std::pair(Proof::Disjoint, BlobA->Buffer);
        return std::pair(Proof::Unknown, BlobA->Buffer);
      }
    }
    // A fresh tensor shares elements with nothing the function had before,
    // nor with what a variable never assigned was made from.
    if ((Fresh(RootA.Base) && !isAssignedIn(Body, RootB.Base)) ||
        (Fresh(RootB.Base) && !isAssignedIn(Body, RootA.Base)))
      return std::pair(Proof::Disjoint, RootA.Base);
    return std::pair(Proof::Unknown, RootA.Base);
  };

  bool Ok = true;
  for (std::size_t I = 0; I < All.size(); ++I) {
    const Reached &Written = All[I];
    if (!Written.Written)
      continue;
    bool Guarded = false;
    for (std::size_t J = 0; J < All.size(); ++J) {
      const Reached &Other = All[J];
      // Two written tensors: one check for the pair.
      if (J == I || (Other.Written && J < I))
        continue;
      OverlapCheck::Kind Kind = OverlapCheck::Kind::Any;
      if (Written.Var && Other.Var && !Other.Container) {
        auto [Proved, Of] = Prove(Written.Var, Other.Var);
        bool ReadOwnSlots =
            !Other.Written && SameViewSafe(Written.Var, Other.Var);
        if (Proved == Proof::Disjoint ||
            (Proved == Proof::SameView && ReadOwnSlots))
          continue;
        if (Proved == Proof::Overlap) {
          // `Tensor out = x.narrow(0, 1, n - 1);` with x read: out lies in x.
          Access RootW = rootOf(Written.Var), RootO = rootOf(Other.Var);
          if (!Other.Written && RootW.Base == RootO.Base &&
              RootO.Steps.size() < RootW.Steps.size())
            Ok &= refuseAt(diag::refuse_alias_shifted,
                           Other.Site->getSourceRange(), diag::note_alias,
                           {"'" + Written.Name + "'", "'" + Other.Name + "'"});
          else
            Ok &= refuseAt(diag::refuse_alias_overlap,
                           Other.Site->getSourceRange(),
                           diag::note_alias_overlap,
                           {"'" + Written.Name + "'", "'" + Other.Name + "'",
                            "'" + Of->getNameAsString() + "'",
                            Other.Written ? "writes" : "reads"});
          continue;
        }
        if (ReadOwnSlots)
          Kind = OverlapCheck::Kind::UnlessSameView;
      }
      Guard(Written, Other, Kind);
      Guarded = true;
    }
    // Checked against nothing else, a written tensor still needs the check
    // of its own elements (batched.hpp: every guard makes it too).
    if (!Guarded && !(Written.Var && Fresh(rootOf(Written.Var).Base) &&
                      rootOf(Written.Var).Steps.empty()))
      Guard(Written, Reached{}, OverlapCheck::Kind::Internal);
  }
  return Ok;
}

const VarDecl *Analyser::storageOf(const VarDecl *Var,
                                   bool ThroughCopies) const {
  // Bounded: a declaration's initialiser names only earlier variables.
  for (unsigned Step = 0; Var && Step < 64; ++Step) {
    bool Copy = ThroughCopies && isTensorType(Var->getType()) &&
                !isa<ParmVarDecl>(Var) && Var->getInit();
    if (!isBoundReference(Var) && !Copy)
      return Var;
    const VarDecl *Next = referencedVar(Var->getInit());
    if (!Next)
      return Var;
    Var = Next;
  }
  return Var;
}

bool Analyser::writesElements(const WriteEvent &W) const {
  if (!W.Written.Steps.empty())
    return true;
  return W.Resolved.Base != W.Written.Base && !isRebinding(W, W.Written.Base);
}

bool Analyser::ownsElements(const VarDecl *Var) const {
  if (Var->getInit() && !hasOwnElements(Var->getInit()))
    return false;
  return llvm::all_of(Writes, [&](const WriteEvent &W) {
    return !isRebinding(W, Var) || !W.Value || hasOwnElements(W.Value);
  });
}

void Analyser::findOutputs() {
  if (Result.Callee)
    return; // a callee writes only its own locals (checkWrites)
  const SourceManager &SM = Context.getSourceManager();
  SourceRange Loop = Loops[Top].For->getSourceRange();
  auto Outside = [&](const VarDecl *Var) {
    // A member path (Note [Members as variables]) is declared where the loop
    // first names it, and lives outside the loop all the same.
    if (llvm::is_contained(llvm::make_second_range(MemberVars), Var))
      return true;
    SourceLocation At = Var->getLocation();
    bool Inside = SM.isBeforeInTranslationUnit(Loop.getBegin(), At) &&
                  SM.isBeforeInTranslationUnit(At, Loop.getEnd());
    return !Inside && !Locals.count(Var) && !InductionLevel.count(Var) &&
           !RangeVars.count(Var);
  };
  auto OutputOf = [&](const VarDecl *Var) -> LoopOutput & {
    for (LoopOutput &Output : Result.Outputs)
      if (Output.Var == Var)
        return Output;
    Result.Outputs.push_back({Var, false, ~0u});
    return Result.Outputs.back();
  };
  // In the order the loop first writes them, for the reader of the rewrite.
  std::vector<std::pair<const Expr *, const VarDecl *>> Sites;
  for (const WriteEvent &W : Writes)
    Sites.push_back({W.Site, W.Resolved.Base});
  for (const ReductionSite &Site : ReductionSites)
    Sites.push_back({Site.Site, Site.Accumulator});
  llvm::stable_sort(Sites, [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(A.first->getBeginLoc(),
                                        B.first->getBeginLoc());
  });
  for (const auto &[Site, Var] : Sites)
    if (Outside(Var))
      OutputOf(Var);
  for (const ReductionSite &Site : ReductionSites)
    if (Outside(Site.Accumulator))
      OutputOf(Site.Accumulator).Accumulator = true;
  for (const WriteEvent &W : Writes) {
    const VarDecl *Var = W.Resolved.Base;
    if (!Outside(Var))
      continue;
    // The leading steps that index by the examples of the levels around the
    // write, outermost first.
    unsigned ExampleDims = 0;
    for (const Step &S : W.Resolved.Steps) {
      int Level = S.Key == "[]" ? inductionLevel(S.Index) : -1;
      if (ExampleDims >= W.Where.Levels.size() || Level < 0 ||
          static_cast<unsigned>(Level) != W.Where.Levels[ExampleDims])
        break;
      ++ExampleDims;
    }
    LoopOutput &Output = OutputOf(Var);
    Output.ExampleDims = std::min(Output.ExampleDims, ExampleDims);
  }
  for (LoopOutput &Output : Result.Outputs)
    if (Output.Accumulator || Output.ExampleDims == ~0u)
      Output.ExampleDims = 0;
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

void Analyser::findPromotedLocals() {
  for (const WriteEvent &W : Writes) {
    const VarDecl *Var = W.Resolved.Base;
    auto Levels = Result.BatchedVars.find(Var);
    if (Levels == Result.BatchedVars.end() || !Levels->second ||
        !isTensorType(Var->getType()) || InductionLevel.count(Var) ||
        !Var->getInit() || levels(Var->getInit()))
      continue;
    // `f = e;` rebinds the name; `f += e;` and `f.copy_(e)` give the variable
    // room for every example themselves (batched.hpp). Only writes into a
    // part of it (`f[0] = e`, through a view) need the copies made first.
    if (W.Written.Base == Var && W.Written.Steps.empty())
      continue;
    for (const auto &[S, Where] : Decls)
      if (llvm::is_contained(S->decls(), Var))
        for (unsigned Level : Where.Levels)
          Result.PromotedLocals[Var] |= LevelSet(1) << Level;
    // Rebound to a value the same for every example, it needs copies again.
    for (const WriteEvent &Rebinding : Writes)
      if (isRebinding(Rebinding, Var) && Rebinding.Value &&
          !levels(Rebinding.Value))
        Result.PromotingAssignments[Rebinding.Site] = Var;
  }
}

std::optional<LoopAnalysis> Analyser::run() {
  for (unsigned I = Top; I < Loops.size(); ++I) {
    int Parent = Loops[I].Parent;
    while (Parent > static_cast<int>(Top))
      Parent = Loops[Parent].Parent;
    if (I == Top || Parent == static_cast<int>(Top))
      LoopIndex[Loops[I].For] = I;
  }
  Result.Loop = &Loops[Top];
  Result.Context = &Context;
  if (!checkDepth(Loops[Top].For))
    return std::nullopt;
  Scope Outside;
  walkFor(Loops[Top].For, Outside); // finish() reports the checks' refusals too
  return finish();
}

std::optional<LoopAnalysis>
Analyser::runCallee(const FunctionDecl *Callee,
                    llvm::ArrayRef<bool> BatchedParams) {
  Result.Context = &Context;
  Result.Callee = Callee;
  Result.BatchedParams.assign(BatchedParams.begin(), BatchedParams.end());
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Callee->getBody());
  if (!Body || Callee->getNumParams() != BatchedParams.size())
    return std::nullopt;
  for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
    const ParmVarDecl *Param = Callee->getParamDecl(I);
    // By-value parameters are the clone's own; writes to them stay inside
    // (a by-value Tensor shares the caller's elements: only rebinding it is,
    // checkWrites).
    if (!Param->getType()->isReferenceType())
      Locals[Param] = LocalInfo{0, {}};
    if (BatchedParams[I])
      Result.BatchedVars[Param] = 1;
  }
  if (!Body->body_empty())
    FinalReturn = dyn_cast<ReturnStmt>(Body->body_back());
  if (!checkDepth(Body))
    return std::nullopt;
  Scope Outside;
  walkStmt(Body, Outside);
  return finish();
}

std::optional<LoopAnalysis> Analyser::finish() {
  classify();
  // Visit every expression once so Memo covers the whole loop.
  for (const auto &[E, Where] : Statements)
    levels(E);
  for (const auto &[S, Where] : Decls)
    for (const Decl *D : S->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D))
        levels(Var->getInit());
  for (const auto &[If, Where] : Ifs)
    levels(If->getCond());
  for (const auto &[For, Where] : PlainLoops) {
    levels(For->getCond());
    levels(For->getInc());
  }
  for (const auto &[For, Where] : RangeLoops)
    levels(For->getRangeInit());
  for (const VmapLevel &Level : Result.Levels) {
    levels(Level.Start);
    levels(Level.Bound);
  }
  checkBounds();
  checkControls();
  checkContexts();
  checkWrites();
  checkReductions();
  checkReads();
  checkAliasing();
  checkReferences();
  checkUnsignedUpdates();
  if (Refused && Result.Callee)
    return std::nullopt;
  Result.Refused = Refused;
  findPromotedLocals();
  findOutputs();
  findMaskedControls();
  // A clone whose every path returns before the end of its body ends with
  // the results the examples returned; called for no example (under a mask
  // no example is in) it has none, and only a C++ scalar has a value that
  // stands in for them (Printer::clone).
  if (const FunctionDecl *F = Result.Callee) {
    const auto *Body = cast<CompoundStmt>(F->getBody());
    QualType Type = F->getReturnType();
    if (!FinalReturn && Result.MaskedControls.count(Body) &&
        !Type->isVoidType() && !isScalarType(Type)) {
      refuseAt(diag::refuse_unsupported, SourceRange(Body->getRBracLoc()),
               diag::note_unsupported,
               {"a function returning '" + Type.getAsString() +
                "' whose every path returns before the end of its body (add a "
                "'return' at its end)"});
      return std::nullopt;
    }
  }
  for (const auto &[E, Levels] : Memo)
    if (Levels)
      Result.ExprLevels[E] = Levels;
  for (const auto &[If, Where] : Ifs)
    if (levels(If->getCond()))
      Result.MaskedIfs.insert(If);
  return std::move(Result);
}

} // namespace detail
} // namespace clang_vmap
