//===- passes.cpp - The passes over one vmap loop -------------------------===//
//
// analyse -> batch -> fuse -> emit over one top-level loop, in each compiled
// specialization of a template, with --dump-after's printers (dump.cpp)
// between them. The driver (main.cpp) calls runLoopPasses per loop.
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
#include "ast_util.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

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

} // namespace

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
  // A draw of the batched loop is not the loop's as written (Note
  // [Randomness]): compared, every output derived from one would differ.
  bool Check = Options.CheckMode;
  if (Check && Plan->Analysis.Random != Randomness::Refused) {
    Diags.report(diag::warn_check_random, Loops[Top].PragmaLoc);
    Check = false;
  }
  LoopOutcome Outcome = emit(*Plan, Names, Check);
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
