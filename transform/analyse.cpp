//===- analyse.cpp - Which values of a vmap loop vary per example ---------===//
//
// Three steps over the loop nest (run() takes them in order):
//  1. walk: check the statement forms, record locals, every read and write of
//     a variable or tensor slot, reductions, plain loops and `if`s (the
//     statements here, the expressions in analyse_expr.cpp);
//  2. classify: a fixpoint over the locals (a local assigned a batched value,
//     or assigned under a per-example `if`, is batched; analyse_classify.cpp);
//  3. check: canonical bounds, stores into the example's own slot,
//     loop-carried dependences, accumulators, per-example values in places
//     that must be the same for every example (analyse_check.cpp), possible
//     aliasing (analyse_alias.cpp).
//
//===----------------------------------------------------------------------===//

#include "analyse.h"
#include "analyse_detail.h"
#include "ast_util.h"
#include "diagnostics.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include <vmap/rules/op_table.hpp>

using namespace clang;

namespace clang_vmap {

LevelSet LoopAnalysis::levelsOf(const Expr *E) const {
  auto It = ExprLevels.find(E);
  return It == ExprLevels.end() ? 0 : It->second;
}

const VmapLevel *LoopAnalysis::levelOf(const ForStmt *For) const {
  for (const VmapLevel &Level : Levels)
    if (Level.For == For)
      return &Level;
  return nullptr;
}

namespace detail {

bool Analyser::refuseAt(diag::Kind Kind, SourceRange Range, diag::Kind Note,
                        llvm::ArrayRef<std::string> Args) {
  // One refusal per piece of code: what lies inside code already refused
  // would only repeat it (Note [Every refusal]).
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Begin = SM.getExpansionLoc(Range.getBegin());
  for (SourceRange Earlier : RefusedRanges)
    if (SM.isPointWithin(Begin, SM.getExpansionLoc(Earlier.getBegin()),
                         SM.getExpansionLoc(Earlier.getEnd())))
      return false;
  RefusedRanges.push_back(Range);
  Refused = true;
  {
    DiagnosticBuilder Builder = Diags.report(Kind, Range.getBegin());
    Builder << Range;
    for (const std::string &Arg : Args)
      Builder << Arg;
  }
  Diags.report(Note, Range.getBegin());
  return false;
}

std::string Analyser::text(const Expr *E) const {
  return sourceText(Context, E->getSourceRange()).str();
}

//===-- 1. walk -----------------------------------------------------------===//

/// Note [Deep expressions] (main.cpp): the deepest statement the passes
/// recurse over, in AST nodes (a `+` of two tensors is about five).
constexpr unsigned kMaxExpressionDepth = 100000;

bool Analyser::checkDepth(const Stmt *Root) {
  // Iterative, so that measuring the depth cannot exhaust the stack itself.
  llvm::SmallVector<std::pair<const Stmt *, unsigned>, 64> Pending;
  Pending.push_back({Root, 1});
  while (!Pending.empty()) {
    auto [S, Depth] = Pending.pop_back_val();
    if (Depth > kMaxExpressionDepth)
      return refuseAt(diag::refuse_too_deep, S->getSourceRange(),
                      diag::note_too_deep,
                      {std::to_string(kMaxExpressionDepth)});
    for (const Stmt *Child : S->children())
      if (Child)
        Pending.push_back({Child, Depth + 1});
  }
  return true;
}

/// A batched value holds one dim per enclosing vmap level besides the
/// example's own, and the runtime's tensors have at most 16 dims: at most 8
/// levels leaves 8 for the example (beyond SPEC, which sets no limit).
constexpr unsigned kMaxVmapLevels = 8;

bool Analyser::canonicalLoop(const ForStmt *For, unsigned Depth) {
  if (Depth >= kMaxVmapLevels)
    return refuseAt(diag::refuse_too_many_levels, For->getSourceRange(),
                    diag::note_too_many_levels,
                    {std::to_string(Depth + 1),
                     std::to_string(kMaxVmapLevels)});
  VmapLevel Level;
  Level.For = For;
  Level.Depth = Depth;
  Level.Promoted = Loops[LoopIndex.lookup(For)].Promoted;
  const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
  const VarDecl *Var =
      Init && Init->isSingleDecl() ? dyn_cast<VarDecl>(Init->getSingleDecl())
                                   : nullptr;
  if (!Var || !Var->getInit() || !Var->getType()->isIntegerType() ||
      Var->getType()->isBooleanType() ||
      Var->getType()->isAnyCharacterType() || For->getConditionVariable())
    return refuseAt(diag::refuse_loop_init,
                    For->getInit() ? For->getInit()->getSourceRange()
                                   : SourceRange(For->getForLoc()),
                    diag::note_loop_form);
  Level.Induction = Var;
  Level.Start = Var->getInit();

  std::string Name = Var->getNameAsString();
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      For->getCond() ? For->getCond()->IgnoreParens() : nullptr);
  auto RefusedCond = [&] {
    SourceRange Range = For->getCond() ? For->getCond()->getSourceRange()
                                       : SourceRange(For->getForLoc());
    return refuseAt(diag::refuse_loop_cond, Range, diag::note_loop_form,
                    {"'" + Name + "'"});
  };
  if (!Cond)
    return RefusedCond();
  BinaryOperatorKind Op = Cond->getOpcode();
  if (referencedVar(Cond->getLHS()) == Var &&
      (Op == BO_LT || Op == BO_LE || Op == BO_NE)) {
    Level.Bound = Cond->getRHS();
    Level.Inclusive = Op == BO_LE;
  } else if (referencedVar(Cond->getRHS()) == Var &&
             (Op == BO_GT || Op == BO_GE || Op == BO_NE)) {
    Level.Bound = Cond->getLHS();
    Level.Inclusive = Op == BO_GE;
  } else {
    return RefusedCond();
  }

  const Expr *Inc = For->getInc() ? For->getInc()->IgnoreParens() : nullptr;
  bool StepsByOne = false;
  if (const auto *Unary = dyn_cast_or_null<UnaryOperator>(Inc))
    StepsByOne = Unary->isIncrementOp() &&
                 referencedVar(Unary->getSubExpr()) == Var;
  if (const auto *Compound = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
    Expr::EvalResult Step;
    StepsByOne = Compound->getOpcode() == BO_AddAssign &&
                 referencedVar(Compound->getLHS()) == Var &&
                 Compound->getRHS()->EvaluateAsInt(Step, Context) &&
                 Step.Val.getInt() == 1;
  }
  if (!StepsByOne)
    return refuseAt(diag::refuse_loop_inc,
                    Inc ? Inc->getSourceRange() : SourceRange(For->getForLoc()),
                    diag::note_loop_form, {"'" + Name + "'"});

  unsigned Index = Result.Levels.size();
  Result.Levels.push_back(Level);
  InductionLevel[Var] = Index;
  Locals[Var] = LocalInfo{Depth + 1, {}};
  Result.BatchedVars[Var] = LevelSet(1) << Index;
  return true;
}

bool Analyser::walkStmt(const Stmt *S, Scope &Where) {
  if (!S)
    return true;
  switch (S->getStmtClass()) {
  case Stmt::CompoundStmtClass: {
    // Every statement is checked, so every refusal is reported.
    bool Ok = true;
    for (const Stmt *Child : cast<CompoundStmt>(S)->body())
      Ok &= walkStmt(Child, Where);
    return Ok;
  }
  case Stmt::NullStmtClass:
    return true;
  case Stmt::AttributedStmtClass: // `[[fallthrough]];`, `[[likely]]`
    return walkStmt(cast<AttributedStmt>(S)->getSubStmt(), Where);
  case Stmt::DeclStmtClass:
    return walkDecl(cast<DeclStmt>(S), Where);
  case Stmt::IfStmtClass:
    return walkIf(cast<IfStmt>(S), Where);
  case Stmt::ForStmtClass:
    return walkFor(cast<ForStmt>(S), Where);
  case Stmt::CXXForRangeStmtClass:
    return walkRangeFor(cast<CXXForRangeStmt>(S), Where);
  case Stmt::WhileStmtClass:
  case Stmt::DoStmtClass:
  case Stmt::SwitchStmtClass:
    return walkLoopOrSwitch(S, Where);
  case Stmt::BreakStmtClass:
  case Stmt::ContinueStmtClass:
  case Stmt::ReturnStmtClass:
    return walkJump(S, Where);
  case Stmt::CaseStmtClass:
  case Stmt::DefaultStmtClass: // a label of the switch's own block is walked there
    return refuseAt(diag::refuse_unsupported, S->getSourceRange(),
                    diag::note_unsupported,
                    {"a 'case' label inside a nested statement of its 'switch'"});
  case Stmt::GotoStmtClass:
  case Stmt::IndirectGotoStmtClass:
    return refuseAt(diag::refuse_jump, S->getSourceRange(),
                    diag::note_no_jumps, {"goto"});
  case Stmt::CoreturnStmtClass:
    return refuseAt(diag::refuse_jump, S->getSourceRange(),
                    diag::note_no_jumps, {"co_return"});
  default:
    break;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (isa<CXXThrowExpr>(stripImplicit(E)))
      return refuseAt(diag::refuse_jump, S->getSourceRange(),
                      diag::note_no_jumps, {"throw"});
    Statements.push_back({E, Where});
    bool Ok = recordReduction(E, Where);
    if (Result.Reductions.count(E))
      return Ok;
    return walkExpr(E, Where);
  }
  return refuseAt(diag::refuse_unsupported, S->getSourceRange(),
                  diag::note_unsupported,
                  {describeStmt(S)});
}

bool Analyser::walkDecl(const DeclStmt *S, Scope &Where) {
  Decls.push_back({S, Where});
  for (const Decl *D : S->decls()) {
    const auto *Var = dyn_cast<VarDecl>(D);
    if (!Var || !Var->isLocalVarDecl() || Var->isStaticLocal())
      return refuseAt(diag::refuse_unsupported, D->getSourceRange(),
                      diag::note_unsupported,
                      {Var ? "a static local" : "this declaration"});
    // A batched local is a vb::Value, which has no volatile operations.
    if (Var->getType().isVolatileQualified())
      return refuseAt(diag::refuse_unsupported, D->getSourceRange(),
                      diag::note_unsupported, {"a volatile local"});
    Locals[Var] = LocalInfo{static_cast<unsigned>(Where.Levels.size()),
                            Where.Ifs, Where.Controls};
    if (const Expr *Init = Var->getInit()) {
      // A Tensor made from a variable or a view of one shares its elements,
      // and so does a reference (Note [Aliases in the body]).
      std::optional<Access> Alias;
      if (isTensorType(Var->getType()) || isBoundReference(Var))
        Alias = accessOf(Init);
      if (Alias) {
        // Only the handle is taken here: the elements are read or written
        // through the alias, where the accesses resolve to them.
        Aliases[Var] = *Alias;
        if (!walkAccessIndices(*Alias, Where))
          return false;
      } else if (!walkExpr(Init, Where)) {
        return false;
      }
    }
  }
  return true;
}

bool Analyser::walkIf(const IfStmt *If, Scope &Where) {
  if (If->getInit() || If->getConditionVariable() || If->isConsteval())
    return refuseAt(diag::refuse_unsupported, If->getSourceRange(),
                    diag::note_unsupported,
                    {"an 'if' with an initialiser or declaration"});
  Ifs.push_back({If, Where});
  if (!walkExpr(If->getCond(), Where))
    return false;
  Scope Inner = Where;
  Inner.Ifs.push_back(If);
  bool Ok = walkStmt(If->getThen(), Inner);
  Ok &= walkStmt(If->getElse(), Inner);
  return Ok;
}

bool Analyser::walkFor(const ForStmt *For, Scope &Where) {
  auto Nested = LoopIndex.find(For);
  Scope Inner = Where;
  if (Nested != LoopIndex.end()) {
    if (!canonicalLoop(For, Where.Levels.size()))
      return false;
    unsigned Level = Result.Levels.size() - 1;
    Bounds.push_back({Level, Where});
    if (!walkExpr(Result.Levels[Level].Start, Where) ||
        !walkExpr(Result.Levels[Level].Bound, Where))
      return false;
    Inner.Levels.push_back(Level);
    Inner.Controls.push_back({For, static_cast<unsigned>(Inner.Ifs.size())});
    return walkStmt(For->getBody(), Inner);
  }
  if (For->getConditionVariable())
    return refuseAt(diag::refuse_unsupported, For->getSourceRange(),
                    diag::note_unsupported,
                    {"a declaration in a loop condition"});
  PlainLoops.push_back({For, Where});
  Inner.Controls.push_back({For, static_cast<unsigned>(Inner.Ifs.size())});
  if (!walkStmt(For->getInit(), Inner))
    return false;
  if (For->getCond() && !walkExpr(For->getCond(), Inner))
    return false;
  if (For->getInc() && !walkExpr(For->getInc(), Inner))
    return false;
  return walkStmt(For->getBody(), Inner);
}

// A range-based `for` is a plain loop over a loop-invariant range (checked in
// checkContexts): it stays a loop, its body batched. Its variable is bound by
// the loop alone, so writes to it are refused as to an induction variable (they
// would write through to the range, or need a batched variable in its place).
bool Analyser::walkRangeFor(const CXXForRangeStmt *For, Scope &Where) {
  if (For->getInit())
    return refuseAt(diag::refuse_unsupported, For->getSourceRange(),
                    diag::note_unsupported,
                    {"a range-based 'for' with an initialiser"});
  RangeLoops.push_back({For, Where});
  if (!walkExpr(For->getRangeInit(), Where))
    return false;
  const VarDecl *Var = For->getLoopVariable();
  Locals[Var] = LocalInfo{static_cast<unsigned>(Where.Levels.size()), Where.Ifs,
                          Where.Controls};
  RangeVars.insert(Var);
  readsContainer(For->getRangeInit());
  Scope Inner = Where;
  Inner.Controls.push_back({For, static_cast<unsigned>(Inner.Ifs.size())});
  return walkStmt(For->getBody(), Inner);
}

bool Analyser::isInvariantAt(const VarDecl *Var, const Scope &Where) const {
  auto It = Locals.find(Var);
  unsigned Depth = It == Locals.end() ? 0 : It->second.Depth;
  return Depth < Where.Levels.size();
}

unsigned Analyser::depthOf(const VarDecl *Var) const {
  auto It = Locals.find(Var);
  return It == Locals.end() ? 0 : It->second.Depth;
}

/// Note [Aliases in the body]
/// A name declared in the body can reach storage it did not make: a reference
/// (`int64_t &c = count;`, `Tensor &t = acc;`) is another name for what it is
/// bound to, and a copy of a Tensor (`Tensor t = acc;`, `Tensor row = out[i];`)
/// is a handle to the same elements (LibTorch semantics). Both are recorded in
/// Aliases, so reads and writes through them resolve to the variable they
/// reach. Writes through a reference are refused (checkWrites), so are
/// non-const references to per-example values (checkReferences); an in-place
/// write through a Tensor copy is checked as a write into what it shares, and
/// refused where what it shares is unknown (a user function's result, `to`).
bool isBoundReference(const VarDecl *Var) {
  if (!Var->getType()->isReferenceType() || !Var->getInit() ||
      isa<ParmVarDecl>(Var))
    return false;
  // Bound to a temporary, a reference keeps it alive: a local copy.
  const Expr *Init = Var->getInit();
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Init))
    Init = Cleanups->getSubExpr();
  return !isa<MaterializeTemporaryExpr>(Init->IgnoreParens());
}

bool isViewMember(llvm::StringRef Name) {
  return vmap::rules::is_view_member(Name);
}

bool isInPlaceMember(llvm::StringRef Name) {
  return vmap::rules::writes_object(Name);
}

//===-- the steps in order ------------------------------------------------===//

std::optional<LoopAnalysis> Analyser::run() {
  for (unsigned I = Top; I < Loops.size(); ++I) {
    int Parent = Loops[I].Parent;
    while (Parent > static_cast<int>(Top))
      Parent = Loops[Parent].Parent;
    if (I == Top || Parent == static_cast<int>(Top))
      LoopIndex[Loops[I].For] = I;
  }
  Result.Loop = &Loops[Top];
  Result.Random = Loops[Top].Random;
  Result.Context = &Context;
  if (!checkDepth(Loops[Top].For))
    return std::nullopt;
  Scope Outside;
  walkFor(Loops[Top].For, Outside); // finish() reports the checks' refusals too
  return finish();
}

std::optional<LoopAnalysis>
Analyser::runCallee(const FunctionDecl *Callee,
                    llvm::ArrayRef<bool> BatchedParams, Randomness Random) {
  Result.Context = &Context;
  Result.Callee = Callee;
  Result.Random = Random;
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
  if (Result.Random == Randomness::Different)
    for (const auto &[Call, Where] : Calls) {
      if (!isRandomDraw(Call))
        continue;
      LevelSet Around = Result.Callee ? 1 : 0; // a clone's: its caller's
      for (unsigned Level : Where.Levels)
        Around |= LevelSet(1) << Level;
      RandomDraws[Call] = Around;
    }
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

std::optional<LoopAnalysis> analyseCallee(ASTContext &Context,
                                          const FunctionDecl *Callee,
                                          llvm::ArrayRef<bool> BatchedParams,
                                          Randomness Random,
                                          Diagnostics &Diags) {
  detail::Analyser A(Context, {}, 0, Diags);
  return A.runCallee(Callee, BatchedParams, Random);
}

std::optional<LoopAnalysis> analyse(ASTContext &Context,
                                    llvm::ArrayRef<VmapLoop> Loops,
                                    unsigned Top, Diagnostics &Diags) {
  detail::Analyser A(Context, Loops, Top, Diags);
  return A.run();
}

} // namespace clang_vmap
