//===- passes.cpp - The passes over one vmap loop -------------------------===//
//
// analyse -> batch -> fuse -> emit over one top-level loop, in each compiled
// specialization of a template, with --dump-after's printers (dump.cpp)
// between them. The driver (driver_job.cpp) calls runLoopPasses per loop.
//
//===----------------------------------------------------------------------===//

#include "passes.h"
#include "analyse.h"
#include "batch.h"
#include "diagnostics.h"
#include "dump.h"
#include "emit.h"
#include "find.h"
#include "fuse.h"
#include "fuse_detail.h"
#include "remarks.h"
#include "ast_util.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <vmap/rules/op_table.hpp>
#include <functional>

using namespace clang;

namespace clang_vmap {
namespace {

LoopOutcome runInSpecializations(ASTContext &Context,
                                 llvm::ArrayRef<VmapLoop> Loops, unsigned Top,
                                 llvm::ArrayRef<SourceLocation> Conditionals,
                                 Diagnostics &Diags, LoopRemarks &Remarks,
                                 CloneNames &Names,
                                 const PassOptions &Options);

/// Note [Conditionals in a loop]: refuses \p Plan when a function it batches
/// a clone of (its callees' too) holds a preprocessor conditional.
bool refuseConditionalsInClones(const BatchPlan &Plan,
                                llvm::ArrayRef<SourceLocation> Conditionals,
                                const SourceManager &SM, Diagnostics &Diags) {
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones) {
    const FunctionDecl *Callee = Clone->Analysis.Callee;
    SourceLocation Directive =
        firstDirectiveIn(Conditionals, Callee->getSourceRange(), SM);
    if (Directive.isValid()) {
      Diags.report(clang_vmap::diag::refuse_conditional_in_loop, Directive)
          << 1 << Callee;
      Diags.report(clang_vmap::diag::note_conditional_in_loop, Directive)
          << 1 << Callee;
      return true;
    }
    if (refuseConditionalsInClones(*Clone, Conditionals, SM, Diags))
      return true;
  }
  return false;
}

// Note [Plain loops as levels]
// A plain loop in a vmap nest (`for (j ...) out[i][j] = e;` under `#pragma
// vmap` on i) runs its body once per trip, each trip's ops over the examples
// of the levels around it: the fixed cost of an op call per trip, and no
// kernel spans the trips. Where its trips are independent the loop is the
// same computation as a level: the tool tries it as one, without a pragma,
// and keeps the level when
//   - the analysis accepts it as it would an annotated loop: the checks that
//     refuse an annotated loop whose examples depend on each other (a slot of
//     another trip read, a store not indexed by the trip, a write to a local
//     of the body around it that is no reduction, a jump out, a bound that
//     depends on an outer example) prove the trips independent; a reduction
//     over the trips (`s += e`, `s = s + e`) is one over the level,
//     reassociated as SPEC section 1 allows; and
//   - no temporary grows with the level (levelsMakingTemporaries): as a
//     level, an op's value is every trip's at once, where the loop as written
//     held one trip's (a [10000, 256] product per trip of a 256-trip loop:
//     2.6 GB at once). An op along the level is fine in a compiled kernel, as
//     a view, a store or an in-place update, as the value stored into a slot
//     indexed along the level or a pointwise part of it (no larger than the
//     output),
//     or as one element per example along levels that stores index.
// A loop that fails either stays a loop (its remark OpsPerTrip says what a
// trip costs). Each loop is tried in turn, outer ones first, beside those
// kept before it (one analysis of the nest a loop). Only loops reached from a level's body through blocks
// are tried (not one under an `if` or inside another statement), with a `<`,
// `<=`, `>` or `>=` condition, and holding no annotated loop.

/// Whether \p S holds one of \p Annotated.
bool holdsAnnotated(const Stmt *S,
                    const llvm::DenseSet<const ForStmt *> &Annotated) {
  if (!S)
    return false;
  if (const auto *For = dyn_cast<ForStmt>(S); For && Annotated.count(For))
    return true;
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return holdsAnnotated(Child, Annotated);
  });
}

/// Whether \p For's condition compares with `<`, `<=`, `>` or `>=`.
bool hasOrderedBound(const ForStmt *For) {
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      For->getCond() ? For->getCond()->IgnoreParens() : nullptr);
  return Cond && Cond->isRelationalOp();
}

/// \p Loops with the plain loops of loop \p Top's nest that may run as
/// levels appended (Note [Plain loops as levels]).
std::vector<VmapLoop> withPlainLoopsAsLevels(llvm::ArrayRef<VmapLoop> Loops,
                                             unsigned Top) {
  std::vector<VmapLoop> Result(Loops.begin(), Loops.end());
  llvm::DenseSet<const ForStmt *> Annotated;
  for (const VmapLoop &Loop : Loops)
    Annotated.insert(Loop.For);
  auto InNest = [&](unsigned I) {
    int Parent = static_cast<int>(I);
    while (Parent > static_cast<int>(Top))
      Parent = Result[Parent].Parent;
    return Parent == static_cast<int>(Top);
  };
  std::function<void(const Stmt *, int)> Walk = [&](const Stmt *S,
                                                     int Parent) {
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(S)) {
      for (const Stmt *Child : Block->body())
        Walk(Child, Parent);
      return;
    }
    const auto *For = dyn_cast_or_null<ForStmt>(S);
    if (!For || Annotated.count(For) || !hasOrderedBound(For) ||
        holdsAnnotated(For->getBody(), Annotated))
      return;
    VmapLoop Plain = Result[Top];
    Plain.PragmaLoc = For->getForLoc();
    Plain.For = For;
    Plain.Parent = Parent;
    Plain.Promoted = true;
    Result.push_back(Plain);
    Walk(For->getBody(), static_cast<int>(Result.size() - 1));
  };
  for (unsigned I = Top; I < Loops.size(); ++I)
    if (InNest(I))
      Walk(Loops[I].For->getBody(), static_cast<int>(I));
  return Result;
}

/// Whether \p E is one element per example: a C++ scalar, a reduction of the
/// whole example (`d.sum()`, `d.norm()`), or a pointwise op of such
/// (`d.sum().sqrt()`).
bool isOneElement(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Temporary = dyn_cast<MaterializeTemporaryExpr>(E))
    return isOneElement(Temporary->getSubExpr());
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 1 && isOneElement(Construct->getArg(0));
  if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
    return isOneElement(Bind->getSubExpr());
  if (!E->getType()->isRecordType())
    return true;
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return false;
  std::size_t Op = fuse_detail::opOf(Call);
  if (Op == vmap::rules::kNoOp)
    return false;
  const vmap::rules::OpEntry &Entry = vmap::rules::kOpTable[Op];
  llvm::SmallVector<const Expr *, 4> Operands = fuse_detail::operandsOf(Call);
  // dot: one GEMM, or a compiled multiply-and-sum, no product made (Note [Dot
  // products over levels] in rules/src/batched/batched_linalg.cpp).
  if (Entry.rule == vmap::rules::RuleId::reduce_all ||
      Entry.rule == vmap::rules::RuleId::dot ||
      (Entry.family == vmap::rules::Family::reduce && Operands.size() == 1))
    return true;
  return fuse_detail::isPointwiseRule(Entry.rule) &&
         llvm::all_of(Operands, isOneElement);
}

/// The plain loops run as levels in \p Plan along which a value is made
/// outside a kernel for every trip at once (Note [Plain loops as levels]): an
/// op whose value varies along the level, not in a kernel, that is no view,
/// store or in-place update, nor the value stored into a slot indexed along
/// the level or a pointwise op of it, and is more than one element per example or
/// varies along a level no store indexes (a reduction's: `s += d * d` over
/// k makes every trip's d at once, where the loop made one at a time).
llvm::DenseSet<const ForStmt *> levelsMakingTemporaries(const BatchPlan &Plan) {
  const LoopAnalysis &A = Plan.Analysis;
  LevelSet Promoted = 0, Stored = 0;
  auto LevelOf = [&](const Expr *E) -> LevelSet {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    for (auto [Index, Level] : llvm::enumerate(A.Levels))
      if (Ref && Level.Induction == Ref->getDecl())
        return LevelSet(1) << Index;
    return 0;
  };
  // The levels whose induction variables \p E mentions.
  std::function<LevelSet(const Stmt *)> Mentioned = [&](const Stmt *S) {
    LevelSet Levels = 0;
    if (const auto *E = dyn_cast_or_null<Expr>(S))
      Levels |= LevelOf(E);
    if (S)
      for (const Stmt *Child : S->children())
        Levels |= Mentioned(Child);
    return Levels;
  };
  auto IsWrite = [&](const CallExpr *Call) {
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call))
      return Operator->isAssignmentOp();
    const FunctionDecl *Callee = Call->getDirectCallee();
    return Callee && Callee->getIdentifier() &&
           vmap::rules::writes_object(Callee->getName());
  };
  // A select at an induction variable is a view; at an index an example
  // computes (`features[other]`), a gather: a copy.
  auto IsView = [&](const CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
    if (!(Operator && Operator->getOperator() == OO_Subscript) &&
        !(Callee && Callee->getIdentifier() &&
          vmap::rules::is_view_member(Callee->getName())))
      return false;
    return llvm::all_of(ArrayRef(fuse_detail::operandsOf(Call)).drop_front(),
                        [&](const Expr *Index) {
                          return !A.isBatched(Index) || LevelOf(Index);
                        });
  };
  for (auto [Index, Level] : llvm::enumerate(A.Levels))
    if (Level.Promoted)
      Promoted |= LevelSet(1) << Index;
  std::function<void(const Stmt *)> FindStores = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S); Call && IsWrite(Call))
      Stored |= Mentioned(fuse_detail::operandsOf(Call).front());
    for (const Stmt *Child : S->children())
      FindStores(Child);
  };
  FindStores(A.Levels.front().For->getBody());

  // A value stored into a slot (a gather `input[i][k]` too), and the
  // pointwise ops it is made of, are no larger than the slot (a store
  // broadcasts its value to the slot's shape): each mapped to the levels the
  // slot is indexed by.
  llvm::DenseMap<const CallExpr *, LevelSet> IntoSlot;
  std::function<void(const Expr *, LevelSet, bool)> Stores =
      [&](const Expr *E, LevelSet Slot, bool Stored) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Temporary = dyn_cast<MaterializeTemporaryExpr>(E))
      return Stores(Temporary->getSubExpr(), Slot, Stored);
    if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      return Stores(Bind->getSubExpr(), Slot, Stored);
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
      return Construct->getNumArgs() == 1
                 ? Stores(Construct->getArg(0), Slot, Stored)
                 : void();
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return;
    std::size_t Op = fuse_detail::opOf(Call);
    const bool Pointwise =
        Op != vmap::rules::kNoOp &&
        fuse_detail::isPointwiseRule(vmap::rules::kOpTable[Op].rule);
    if (!Pointwise && !Stored)
      return;
    IntoSlot[Call] |= Slot;
    if (Pointwise)
      for (const Expr *Operand : fuse_detail::operandsOf(Call))
        Stores(Operand, Slot, false);
  };
  std::function<void(const Stmt *)> FindValues = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S); Call && IsWrite(Call)) {
      llvm::SmallVector<const Expr *, 4> Operands =
          fuse_detail::operandsOf(Call);
      for (const Expr *Value : ArrayRef(Operands).drop_front())
        Stores(Value, Mentioned(Operands.front()), true);
    }
    for (const Stmt *Child : S->children())
      FindValues(Child);
  };
  FindValues(A.Levels.front().For->getBody());

  llvm::DenseSet<const CallExpr *> InKernels = callsInKernels(Plan.Fusion);
  llvm::DenseSet<const ForStmt *> Offending;
  std::function<void(const Stmt *)> Check = [&](const Stmt *S) {
    if (!S)
      return;
    for (const Stmt *Child : S->children())
      Check(Child);
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      return;
    LevelSet Along = A.levelsOf(Call) & Promoted;
    if (!Along || InKernels.count(Call) || !isBatchedOp(Plan, Call) ||
        IsView(Call) || IsWrite(Call) || (IntoSlot.lookup(Call) & Along) == Along)
      return;
    const FunctionDecl *Callee = Call->getDirectCallee();
    bool OneElement = isOneElement(Call) ||
                      (Callee && Callee->getIdentifier() &&
                       Callee->getName() == "item");
    for (auto [Index, Level] : llvm::enumerate(A.Levels))
      if ((Along >> Index & 1) && (!OneElement || !(Stored >> Index & 1)))
        Offending.insert(Level.For);
  };
  for (const VmapLevel &Level : A.Levels)
    if (Level.Promoted)
      Check(Level.For->getBody());
  return Offending;
}

/// \p Loops with those plain loops of \p Candidates (the loops after \p
/// Loops) that analyse -> batch -> fuse of loop \p Top accept as levels
/// (Note [Plain loops as levels]): each tried in turn, outer loops first,
/// beside those kept before it. Reports nothing: the caller runs the passes
/// again over what it returns, to report their warnings.
std::vector<VmapLoop> plainLoopsAsLevels(ASTContext &Context,
                                         llvm::ArrayRef<VmapLoop> Loops,
                                         llvm::ArrayRef<VmapLoop> Candidates,
                                         unsigned Top, Diagnostics &Diags) {
  DiagnosticsEngine &Engine = Context.getDiagnostics();
  const bool WasSuppressed = Engine.getSuppressAllDiagnostics();
  const unsigned RefusalsBefore = Diags.numRefusals();
  Engine.setSuppressAllDiagnostics(true);
  auto Accepted = [&](llvm::ArrayRef<VmapLoop> Tried) {
    std::optional<LoopAnalysis> Analysis = analyse(Context, Tried, Top, Diags);
    if (!Analysis || Analysis->Refused)
      return false;
    std::optional<BatchPlan> Plan = batch(std::move(*Analysis), Diags);
    if (!Plan)
      return false;
    fuse(*Plan);
    return levelsMakingTemporaries(*Plan).empty();
  };
  std::vector<VmapLoop> Kept(Loops.begin(), Loops.end());
  // Where each candidate went in Kept; -1: not kept (nor those inside it).
  std::vector<int> KeptAt(Candidates.size(), -1);
  for (unsigned I = 0; I < Loops.size(); ++I)
    KeptAt[I] = static_cast<int>(I);
  for (unsigned I = Loops.size(); I < Candidates.size(); ++I) {
    VmapLoop Candidate = Candidates[I];
    if (KeptAt[Candidate.Parent] < 0)
      continue;
    Candidate.Parent = KeptAt[Candidate.Parent];
    Kept.push_back(Candidate);
    if (Accepted(Kept))
      KeptAt[I] = static_cast<int>(Kept.size() - 1);
    else
      Kept.pop_back();
  }
  Engine.setSuppressAllDiagnostics(WasSuppressed);
  Diags.forgetRefusalsAfter(RefusalsBefore);
  return Kept;
}

} // namespace

/// Note [Kernel-only code] in analyse.h: refuses \p Plan where code only a
/// scalar kernel runs is outside every scalar kernel of it or of a clone it
/// prints (a clone whose calls kernels hold runs as written, its code too).
static bool refuseKernelOnlyCode(const BatchPlan &Plan, Diagnostics &Diags) {
  bool Refused = false;
  llvm::DenseSet<const Stmt *> InKernels =
      inScalarKernels(Plan.Fusion, /*Operands=*/false);
  std::vector<std::pair<const Expr *, LoopAnalysis::KernelOnlyCode>> Outside;
  for (const auto &[E, Code] : Plan.Analysis.KernelOnly)
    if (!InKernels.count(E))
      Outside.push_back({E, Code});
  const SourceManager &SM = Plan.Analysis.Context->getSourceManager();
  llvm::sort(Outside, [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(A.first->getBeginLoc(),
                                        B.first->getBeginLoc());
  });
  for (const auto &[E, Code] : Outside) {
    Diags.report(Code.IsCall ? diag::refuse_call : diag::refuse_unsupported,
                 E->getBeginLoc())
        << E->getSourceRange() << Code.What;
    Diags.report(diag::note_kernel_only, E->getBeginLoc());
    Refused = true;
  }
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones)
    if (refuseKernelOnlyCode(*Clone, Diags)) {
      for (const auto &[Call, Target] : Plan.CloneOf)
        if (Target == Clone.get())
          Diags.report(diag::note_called_from_loop, Call->getBeginLoc())
              << Call->getSourceRange()
              << ("'" + functionName(Clone->Analysis.Callee) + "'");
      Refused = true;
    }
  return Refused;
}

LoopOutcome runLoopPasses(ASTContext &Context, llvm::ArrayRef<VmapLoop> Loops,
                          unsigned Top,
                          llvm::ArrayRef<SourceLocation> Conditionals,
                          Diagnostics &Diags, LoopRemarks &Remarks,
                          CloneNames &Names, const PassOptions &Options) {
  LoopOutcome Refused;
  Refused.Loop = &Loops[Top];
  if (isTemplatePattern(Loops[Top].Function)) {
    Remarks.beginSpecializations(); // one report for all of them
    LoopOutcome Outcome =
        runInSpecializations(Context, Loops, Top, Conditionals, Diags, Remarks,
                             Names, Options);
    Remarks.endSpecializations(Outcome.Batched);
    return Outcome;
  }
  // Note [Plain loops as levels]: the loops the passes run over.
  std::vector<VmapLoop> Promoted = withPlainLoopsAsLevels(Loops, Top);
  if (Promoted.size() > Loops.size())
    Promoted = plainLoopsAsLevels(Context, Loops, Promoted, Top, Diags);
  Loops = Promoted;
  std::optional<LoopAnalysis> Analysis = analyse(Context, Loops, Top, Diags);
  if (!Analysis)
    return Refused;
  if (Options.DumpAfter == Pass::Analyse && !Analysis->Refused)
    dumpAnalysis(*Analysis, llvm::errs());
  std::optional<BatchPlan> Plan = batch(std::move(*Analysis), Diags);
  if (!Plan || refuseConditionalsInClones(*Plan, Conditionals,
                                          Context.getSourceManager(), Diags))
    return Refused;
  if (Options.DumpAfter == Pass::Batch)
    dumpPlan(*Plan, llvm::errs());
  fuse(*Plan);
  if (Options.DumpAfter == Pass::Fuse)
    dumpFusion(*Plan, llvm::errs());
  if (refuseKernelOnlyCode(*Plan, Diags))
    return Refused;
  // A draw of the batched loop is not the loop's as written (Note
  // [Randomness]): compared, every output derived from one would differ.
  bool Check = Options.CheckMode;
  if (Check && Plan->Analysis.Random != Randomness::Refused) {
    Diags.report(diag::warn_check_random, Loops[Top].PragmaLoc);
    Check = false;
  }
  LoopOutcome Outcome = emit(*Plan, Names, Check);
  Outcome.Loop = Refused.Loop; // not Promoted's copy
  if (Outcome.Batched)
    Remarks.batched(*Plan);
  if (Options.DumpAfter == Pass::Emit)
    dumpEmitted(Loops[Top], Context, Outcome, llvm::errs());
  return Outcome;
}

namespace {

/// `scale<float>`, as a diagnostic names a specialization.
/// The function whose body holds a (non-generic) lambda \p Function is the
/// call operator of, or null.
const FunctionDecl *functionAroundLambda(const FunctionDecl *Function) {
  const auto *Method = dyn_cast<CXXMethodDecl>(Function);
  if (!Method || !Method->getParent()->isLambda() ||
      Function->getTemplateSpecializationArgs())
    return nullptr;
  return dyn_cast<FunctionDecl>(Method->getParent()->getParent());
}

std::string specializationName(const FunctionDecl *Specialization) {
  if (const FunctionDecl *Around = functionAroundLambda(Specialization))
    return specializationName(Around);
  if (!Specialization->getTemplateSpecializationArgs()) // of a class template
    return "'" + Specialization->getQualifiedNameAsString() + "'";
  std::string Name = isa<CXXMethodDecl>(Specialization) &&
                             cast<CXXMethodDecl>(Specialization)
                                 ->getParent()
                                 ->isLambda()
                         ? "the generic lambda"
                         : Specialization->getNameAsString();
  return "'" + Name + "<" +
         llvm::join(templateArgumentTexts(Specialization), ", ") + ">'";
}

/// Where \p Specialization was instantiated (a lambda's: where the function
/// around it was).
SourceLocation pointOfInstantiation(const FunctionDecl *Specialization) {
  if (const FunctionDecl *Around = functionAroundLambda(Specialization))
    return pointOfInstantiation(Around);
  return Specialization->getPointOfInstantiation();
}

/// Note [Loops in templates]: the loop is analysed, batched and printed in
/// every compiled specialization of its template; the rewrite, printed from
/// the template's own text, must come out the same for each, since it is
/// written once, into the template.
LoopOutcome runInSpecializations(ASTContext &Context,
                                 llvm::ArrayRef<VmapLoop> Loops, unsigned Top,
                                 llvm::ArrayRef<SourceLocation> Conditionals,
                                 Diagnostics &Diags, LoopRemarks &Remarks,
                                 CloneNames &Names,
                                 const PassOptions &Options) {
  LoopOutcome Refused;
  Refused.Loop = &Loops[Top];
  SourceLocation At = Loops[Top].For->getForLoc();
  llvm::SmallVector<const FunctionDecl *, 4> Specializations =
      compiledSpecializations(Loops[Top].Function);
  if (Specializations.empty()) {
    Diags.report(clang_vmap::diag::refuse_template_not_compiled, At);
    Diags.report(clang_vmap::diag::note_template_not_compiled, At);
    return Refused;
  }
  std::optional<LoopOutcome> Batched;
  const FunctionDecl *First = nullptr;
  for (const FunctionDecl *Specialization : Specializations) {
    std::vector<VmapLoop> Instance = inSpecialization(Loops, Top, Specialization);
    if (Instance.empty())
      continue; // not instantiated down to this loop (a discarded branch)
    LoopOutcome Outcome =
        runLoopPasses(Context, Instance, Top, Conditionals, Diags, Remarks,
                      Names, Options);
    Outcome.Loop = &Loops[Top];
    if (!Outcome.Batched) {
      Diags.report(clang_vmap::diag::note_in_specialization,
                   pointOfInstantiation(Specialization))
          << specializationName(Specialization);
      return Outcome;
    }
    if (!Batched) {
      Batched = std::move(Outcome);
      First = Specialization;
      continue;
    }
    if (Outcome.Text != Batched->Text) {
      Diags.report(clang_vmap::diag::refuse_specializations_differ, At)
          << specializationName(First) << specializationName(Specialization);
      Diags.report(clang_vmap::diag::note_specializations_differ, At);
      return Refused;
    }
    for (auto &Insertion : Outcome.Insertions) {
      if (llvm::is_contained(Batched->Insertions, Insertion))
        continue;
      // A member of a class template has one clone for every specialization
      // (its name has no template arguments): its texts must agree.
      if (llvm::any_of(Batched->Insertions, [&](const auto &Other) {
            return Other.first == Insertion.first &&
                   insertionHeading(Other.second) ==
                       insertionHeading(Insertion.second);
          })) {
        Diags.report(clang_vmap::diag::refuse_specializations_differ, At)
            << specializationName(First) << specializationName(Specialization);
        Diags.report(clang_vmap::diag::note_specializations_differ, At);
        return Refused;
      }
      Batched->Insertions.push_back(std::move(Insertion));
    }
  }
  if (!Batched) {
    Diags.report(clang_vmap::diag::refuse_template_not_compiled, At);
    Diags.report(clang_vmap::diag::note_template_not_compiled, At);
    return Refused;
  }
  return std::move(*Batched);
}

} // namespace
} // namespace clang_vmap
