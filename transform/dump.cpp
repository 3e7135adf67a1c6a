//===- dump.cpp - --dump-after: the state after each pass ----------------===//
//
// What --dump-after prints: a loop's analysis, its batch plan, its kernels,
// or the text emitted for it, in source order (the tool's own tests read it).
//
//===----------------------------------------------------------------------===//

#include "dump.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;

namespace clang_vmap {
namespace {

std::string sourceText(const Stmt *S, const ASTContext &Context) {
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(S->getSourceRange()),
             Context.getSourceManager(), Context.getLangOpts())
      .str();
}

void printLoc(SourceLocation Loc, const ASTContext &Context,
              llvm::raw_ostream &OS) {
  const SourceManager &SM = Context.getSourceManager();
  PresumedLoc Presumed = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  OS << Presumed.getLine() << ":" << Presumed.getColumn();
}

/// The keys of \p Map, sorted by where they start in the source.
template <typename MapT> auto inSourceOrder(const MapT &Map) {
  std::vector<typename MapT::key_type> Keys;
  for (const auto &Entry : Map)
    Keys.push_back(Entry.first);
  llvm::sort(Keys, [](auto *A, auto *B) {
    return A->getBeginLoc().getRawEncoding() <
           B->getBeginLoc().getRawEncoding();
  });
  return Keys;
}

llvm::StringRef loweringName(Lowering How) {
  switch (How) {
  case Lowering::AsWritten:
    return "as written";
  case Lowering::Qualified:
    return "vb:: call";
  case Lowering::MemberAsFree:
    return "member as vb:: call";
  case Lowering::At:
    return "vb::at";
  case Lowering::PerExample:
    return "per example";
  case Lowering::Clone:
    return "batched clone";
  case Lowering::UserRule:
    return "user batching rule";
  }
  llvm_unreachable("unknown lowering");
}

} // namespace

void dumpAnalysis(const LoopAnalysis &Analysis, llvm::raw_ostream &OS) {
  const ASTContext &Context = *Analysis.Context;
  OS << "analysis of the vmap loop at ";
  printLoc(Analysis.Loop->PragmaLoc, Context, OS);
  OS << "\n";
  for (const VmapLevel &Level : Analysis.Levels)
    OS << "  level " << Level.Depth << ": '"
       << Level.Induction->getName() << "' from "
       << sourceText(Level.Start, Context)
       << (Level.Inclusive ? " through " : " to ")
       << sourceText(Level.Bound, Context) << "\n";
  for (const VarDecl *Var : inSourceOrder(Analysis.BatchedVars))
    OS << "  batched variable '" << Var->getName() << "' levels 0x"
       << llvm::utohexstr(Analysis.BatchedVars.lookup(Var)) << "\n";
  for (const Expr *E : inSourceOrder(Analysis.ExprLevels)) {
    OS << "  batched expression at ";
    printLoc(E->getBeginLoc(), Context, OS);
    OS << " levels 0x" << llvm::utohexstr(Analysis.ExprLevels.lookup(E))
       << ": " << sourceText(E, Context) << "\n";
  }
  for (const Expr *E : inSourceOrder(Analysis.Reductions)) {
    OS << "  reduction at ";
    printLoc(E->getBeginLoc(), Context, OS);
    OS << ": " << sourceText(E, Context) << "\n";
  }
  for (const IfStmt *If : Analysis.MaskedIfs) {
    OS << "  masked if at ";
    printLoc(If->getBeginLoc(), Context, OS);
    OS << "\n";
  }
  for (const OverlapCheck &Check : Analysis.OverlapChecks)
    OS << "  overlap check: '" << Check.Written << "' written"
       << (Check.Read.empty() ? "" : ", '" + Check.Read + "' reached") << "\n";
}

void dumpPlan(const BatchPlan &Plan, llvm::raw_ostream &OS) {
  const ASTContext &Context = *Plan.Analysis.Context;
  OS << "batch plan of the vmap loop at ";
  printLoc(Plan.Analysis.Loop->PragmaLoc, Context, OS);
  OS << ": " << Plan.NumOps << " ops";
  if (!Plan.FallbackOps.empty())
    OS << ", per example: " << llvm::join(Plan.FallbackOps, ", ");
  OS << "\n";
  for (const Expr *Call : inSourceOrder(Plan.Calls)) {
    OS << "  ";
    printLoc(Call->getBeginLoc(), Context, OS);
    OS << " " << loweringName(Plan.Calls.lookup(Call)) << ": "
       << sourceText(Call, Context) << "\n";
  }
}

namespace {

void dumpChain(const char *Kind, const Stmt *At, const FusedChain &Chain,
               const ASTContext &Context, llvm::raw_ostream &OS) {
  OS << "  ";
  printLoc(At->getBeginLoc(), Context, OS);
  OS << " " << Kind << (Chain.DeviceCode ? ", with device code" : "");
  if (!Chain.Region.empty()) {
    OS << ", region from ";
    printLoc(Chain.Region.front()->getBeginLoc(), Context, OS);
  }
  OS << ": " << sourceText(At, Context) << "\n";
  for (std::size_t I = 0; I < Chain.Operands.size(); ++I)
    OS << "    operand '" << Chain.Names[I] << "'"
       << (Chain.ElementWrites[I]  ? " (elements written)"
           : Chain.ElementReads[I] ? " (elements read)"
                                   : "")
       << ": " << sourceText(Chain.Operands[I], Context) << "\n";
}

} // namespace

void dumpFusion(const BatchPlan &Plan, llvm::raw_ostream &OS) {
  const ASTContext &Context = *Plan.Analysis.Context;
  if (Plan.Analysis.Loop) {
    OS << "kernels of the vmap loop at ";
    printLoc(Plan.Analysis.Loop->PragmaLoc, Context, OS);
  } else {
    OS << "kernels of the clone of '"
       << Plan.Analysis.Callee->getNameAsString() << "' at ";
    printLoc(Plan.Analysis.Callee->getBeginLoc(), Context, OS);
  }
  OS << "\n";
  const FusionPlan &Fusion = Plan.Fusion;
  for (const Expr *Root : inSourceOrder(Fusion.Chains)) {
    const FusedChain &Chain = Fusion.Chains.find(Root)->second;
    dumpChain(Chain.Scalar ? "scalar kernel" : "fused kernel", Root, Chain,
              Context, OS);
  }
  for (const Stmt *Last : inSourceOrder(Fusion.StatementKernels))
    dumpChain("storing scalar kernel", Last,
              Fusion.StatementKernels.find(Last)->second, Context, OS);
  for (const Stmt *S : inSourceOrder(Fusion.NotCompiled)) {
    OS << "  ";
    printLoc(S->getBeginLoc(), Context, OS);
    OS << " not compiled: " << Fusion.NotCompiled.lookup(S) << "\n";
  }
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones)
    dumpFusion(*Clone, OS);
}

void dumpEmitted(const VmapLoop &Loop, const ASTContext &Context,
                 const LoopOutcome &Outcome, llvm::raw_ostream &OS) {
  OS << "emitted for the vmap loop at ";
  printLoc(Loop.PragmaLoc, Context, OS);
  OS << ":\n" << Outcome.Text << "\n";
}

} // namespace clang_vmap
