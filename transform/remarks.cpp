//===- remarks.cpp - What each vmap loop became, as optimization remarks --===//

#include "remarks.h"
#include "ast_util.h"
#include "rewrite.h"
#include "clang/Basic/DiagnosticFrontend.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Remarks/RemarkFormat.h"
#include "llvm/Remarks/RemarkSerializer.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace clang_vmap {

namespace {

constexpr llvm::StringLiteral PassName = "vmap";

/// Every call of \p S, in source order.
void collectCalls(const Stmt *S, std::vector<const CallExpr *> &Calls) {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    Calls.push_back(Call);
  for (const Stmt *Child : S->children())
    collectCalls(Child, Calls);
}

/// The calls of \p Plan and of the clones it calls that a user's batching
/// rule batches, with its batched function.
void collectUserRules(
    const BatchPlan &Plan,
    std::vector<std::pair<const CallExpr *, const FunctionDecl *>> &Calls) {
  for (const auto &Rule : Plan.UserRules)
    Calls.push_back(Rule);
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones)
    collectUserRules(*Clone, Calls);
}

/// The per-example fallbacks of \p Plan and of the clones it calls.
void collectFallbacks(const BatchPlan &Plan,
                      std::vector<const CallExpr *> &Fallbacks) {
  for (const auto &[Call, How] : Plan.Calls)
    if (How == Lowering::PerExample)
      Fallbacks.push_back(cast<CallExpr>(Call));
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones)
    collectFallbacks(*Clone, Fallbacks);
}

/// The op calls of a fused kernel under \p S (its root or a statement of its
/// region), down to its operands.
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

/// The fused kernels of \p Plan and of the clones it calls: each chain's root
/// and its chain.
void collectKernels(
    const BatchPlan &Plan,
    std::vector<std::pair<const Expr *, const FusedChain *>> &Kernels) {
  for (const auto &[Root, Chain] : Plan.Fusion.Chains)
    Kernels.push_back({Root, &Chain});
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones)
    collectKernels(*Clone, Kernels);
}

std::string plural(std::size_t Count, llvm::StringRef One,
                   llvm::StringRef Many) {
  return std::to_string(Count) + " " + (Count == 1 ? One : Many).str();
}

} // namespace

void RemarkLog::add(llvm::remarks::Remark Copy) {
  auto Save = [&](llvm::StringRef &S) { S = Strings.save(S); };
  Save(Copy.PassName);
  Save(Copy.RemarkName);
  Save(Copy.FunctionName);
  if (Copy.Loc)
    Save(Copy.Loc->SourceFilePath);
  for (llvm::remarks::Argument &Arg : Copy.Args) {
    Save(Arg.Key);
    Save(Arg.Val);
    if (Arg.Loc)
      Save(Arg.Loc->SourceFilePath);
  }
  Remarks.push_back(std::move(Copy));
}

llvm::Error RemarkLog::writeYaml(llvm::StringRef Path) const {
  std::string Yaml;
  llvm::raw_string_ostream OS(Yaml);
  llvm::Expected<std::unique_ptr<llvm::remarks::RemarkSerializer>> Serializer =
      llvm::remarks::createRemarkSerializer(
          llvm::remarks::Format::YAML, llvm::remarks::SerializerMode::Separate,
          OS);
  if (!Serializer)
    return Serializer.takeError();
  for (const llvm::remarks::Remark &Remark : Remarks)
    (*Serializer)->emit(Remark);
  return writeOutputFile(Path, Yaml);
}

LoopRemarks::LoopRemarks(CompilerInstance &Compiler, RemarkLog *Log)
    : Engine(Compiler.getDiagnostics()), SM(Compiler.getSourceManager()),
      Passed(Compiler.getCodeGenOpts().OptimizationRemark),
      Missed(Compiler.getCodeGenOpts().OptimizationRemarkMissed),
      Analysis(Compiler.getCodeGenOpts().OptimizationRemarkAnalysis),
      Log(Log) {}

void LoopRemarks::beginSpecializations() {
  if (SpecializationDepth++ == 0) {
    Specializations = 0;
    Held.clear();
  }
}

void LoopRemarks::endSpecializations(bool Batched) {
  if (--SpecializationDepth != 0)
    return;
  if (Batched && !Held.empty()) {
    // `loop batched in 3 specializations: ...`
    std::vector<Arg> &Args = Held.front().Args;
    Args.front().Value = "loop batched in ";
    Args.insert(Args.begin() + 1,
                {{"NumSpecializations", std::to_string(Specializations)},
                 {"String", Specializations == 1 ? " specialization: "
                                                 : " specializations: "}});
    for (const HeldRemark &Remark : Held)
      emit(Remark);
  }
  Held.clear();
}

void LoopRemarks::batched(const BatchPlan &Plan) {
  if (SpecializationDepth > 0 && ++Specializations > 1)
    return; // the first specialization's remarks stand for all
  const LoopAnalysis &A = Plan.Analysis;
  const ASTContext &Context = *A.Context;
  const VmapLoop &Loop = *A.Loop;
  std::vector<Arg> Args{{"String", "loop batched: "},
                        {"NumLevels", std::to_string(A.Levels.size())},
                        {"String", A.Levels.size() == 1 ? " batch level ("
                                                        : " batch levels ("}};
  for (const VmapLevel &Level : A.Levels) {
    if (&Level != &A.Levels.front())
      Args.push_back({"String", ", "});
    Args.push_back(
        {"Level",
         Level.Induction->getNameAsString() + " from " +
             sourceText(Context, Level.Start->getSourceRange()).str() +
             (Level.Inclusive ? " through " : " to ") +
             sourceText(Context, Level.Bound->getSourceRange()).str(),
         Level.For->getBeginLoc()});
  }

  // The ops by name, in source order, each once.
  std::vector<const CallExpr *> Calls;
  collectCalls(Loop.For->getBody(), Calls);
  std::vector<std::string> Ops;
  for (const CallExpr *Call : Calls) {
    bool Lowered = Plan.Calls.count(Call) ||
                   (A.isBatched(Call) &&
                    isInVmapNamespace(Call->getDirectCallee()) &&
                    !isMetadataCall(Call));
    std::string Name = calleeName(Call);
    if (Lowered && !Name.empty() && !llvm::is_contained(Ops, Name))
      Ops.push_back(Name);
  }
  Args.push_back({"String", "), "});
  Args.push_back({"NumOps", std::to_string(Plan.NumOps)});
  Args.push_back({"String", Plan.NumOps == 1 ? " op" : " ops"});
  if (!Ops.empty()) {
    Args.push_back({"String", " ("});
    Args.push_back({"Ops", llvm::join(Ops, ", ")});
    Args.push_back({"String", ")"});
  }

  // Each fused kernel by its ops and line: `operator-, pow at line 24`.
  std::vector<std::pair<const Expr *, const FusedChain *>> Kernels;
  collectKernels(Plan, Kernels);
  llvm::sort(Kernels, [&](const auto &L, const auto &R) {
    return SM.isBeforeInTranslationUnit(L.first->getBeginLoc(),
                                        R.first->getBeginLoc());
  });
  if (!Kernels.empty()) {
    Args.push_back({"String", ", "});
    Args.push_back({"NumFusedKernels", std::to_string(Kernels.size())});
    Args.push_back({"String", Kernels.size() == 1 ? " fused kernel"
                                                  : " fused kernels"});
  }
  for (auto [Index, Kernel] : llvm::enumerate(Kernels)) {
    // In reading order: `(a - b).pow(2)` is operator-, pow.
    std::vector<const CallExpr *> Calls;
    for (const Stmt *S : Kernel.second->Region)
      collectKernelCalls(S, *Kernel.second, Calls);
    collectKernelCalls(Kernel.first, *Kernel.second, Calls);
    llvm::sort(Calls, [&](const CallExpr *L, const CallExpr *R) {
      return SM.isBeforeInTranslationUnit(L->getExprLoc(), R->getExprLoc());
    });
    std::vector<std::string> KernelOps;
    for (const CallExpr *Call : Calls)
      if (std::string Name = calleeName(Call);
          !Name.empty() && !llvm::is_contained(KernelOps, Name))
        KernelOps.push_back(Name);
    Args.push_back(
        {"FusedKernel",
         std::string(Index == 0 ? " (" : "; ") + llvm::join(KernelOps, ", ") +
             " at line " +
             std::to_string(lineOf(Context, Kernel.first->getBeginLoc())) +
             (Index + 1 == Kernels.size() ? ")" : ""),
         Kernel.first->getBeginLoc()});
  }

  std::vector<const CallExpr *> Fallbacks;
  collectFallbacks(Plan, Fallbacks);
  llvm::sort(Fallbacks, [&](const CallExpr *L, const CallExpr *R) {
    return SM.isBeforeInTranslationUnit(L->getBeginLoc(), R->getBeginLoc());
  });
  Args.push_back({"String", ", "});
  Args.push_back({"NumFallbacks", std::to_string(Fallbacks.size())});
  Args.push_back({"String", Fallbacks.size() == 1 ? " per-example fallback"
                                                  : " per-example fallbacks"});
  for (auto [Index, Call] : llvm::enumerate(Fallbacks))
    Args.push_back({"Fallback",
                    std::string(Index == 0 ? " (" : ", ") + calleeName(Call) +
                        " at line " +
                        std::to_string(lineOf(Context, Call->getBeginLoc())) +
                        (Index + 1 == Fallbacks.size() ? ")" : ""),
                    Call->getBeginLoc()});
  if (!A.OverlapChecks.empty()) {
    Args.push_back({"String", ", "});
    Args.push_back(
        {"NumOverlapChecks", std::to_string(A.OverlapChecks.size())});
    Args.push_back({"String", A.OverlapChecks.size() == 1
                                  ? " run-time overlap check"
                                  : " run-time overlap checks"});
  }
  report(llvm::remarks::Type::Passed, "LoopBatched", Loop.PragmaLoc,
         Loop.Function, Args);

  std::vector<std::pair<const CallExpr *, const FunctionDecl *>> UserRules;
  collectUserRules(Plan, UserRules);
  llvm::sort(UserRules, [&](const auto &L, const auto &R) {
    return SM.isBeforeInTranslationUnit(L.first->getBeginLoc(),
                                        R.first->getBeginLoc());
  });
  for (const auto &[Call, Batched] : UserRules)
    report(llvm::remarks::Type::Analysis, "UserBatchingRule",
           Call->getBeginLoc(), Loop.Function,
           {{"Callee", calleeName(Call), Call->getBeginLoc()},
            {"String", " is batched by the user batching rule '"},
            {"Rule", Batched->getNameAsString(), Batched->getLocation()},
            {"String", "'"}});
  for (const CallExpr *Call : Fallbacks)
    report(llvm::remarks::Type::Analysis, "PerExampleFallback",
           Call->getBeginLoc(), Loop.Function,
           {{"Callee", calleeName(Call), Call->getBeginLoc()},
            {"String", " has no batching rule: it runs once per example, "
                       "in a loop over the batch"}});
  for (const OverlapCheck &Check : A.OverlapChecks) {
    std::vector<Arg> Args{{"String", "run-time overlap check: '"},
                          {"Written", Check.Written, Check.WrittenDecl}};
    if (Check.Check != OverlapCheck::Kind::Internal) {
      Args.push_back({"String", "' is written and '"});
      Args.push_back({"Read", Check.Read, Check.ReadDecl});
    }
    switch (Check.Check) {
    case OverlapCheck::Kind::UnlessSameView:
      Args.push_back({"String",
                      "' is read; they may be views of one buffer, and if "
                      "they overlap (other than as the same view) the loop "
                      "runs as written, per example"});
      break;
    case OverlapCheck::Kind::Any:
      Args.push_back({"String",
                      "' is read beyond each example's own slot (or written "
                      "too); if they share any memory the loop runs as "
                      "written, per example"});
      break;
    case OverlapCheck::Kind::Internal:
      Args.push_back({"String", "' is written; if its elements overlap each "
                                "other (an expanded view) the loop runs as "
                                "written, per example"});
      break;
    }
    report(llvm::remarks::Type::Analysis, "OverlapCheck", Loop.PragmaLoc,
           Loop.Function, Args);
  }
}

void LoopRemarks::notBatched(const VmapLoop &Loop, llvm::StringRef Why) {
  report(llvm::remarks::Type::Missed, "LoopNotBatched", Loop.PragmaLoc,
         Loop.Function,
         {{"String", "loop not batched: "}, {"Reason", Why.str()}});
}

void LoopRemarks::cloneRoles(const CloneNames &Names) {
  for (const auto &[Key, Function] : Names.functions()) {
    if (Function.Roles.size() < 2)
      continue;
    const FunctionDecl *F = Function.Decl;
    // `'quantile' is batched in 2 roles: ...`
    std::string Shown = F->getNameAsString();
    if (F->getTemplateSpecializationArgs())
      Shown += "<" + llvm::join(templateArgumentTexts(F), ", ") + ">";
    std::vector<Arg> Args{
        {"Function", "'" + Shown + "'", F->getLocation()},
        {"String", " is batched in "},
        {"NumRoles", std::to_string(Function.Roles.size())},
        {"String", " roles: "}};
    for (auto [Index, Role] : llvm::enumerate(Function.Roles)) {
      std::string Params = perExampleParams(F, Role.PerExample);
      Args.push_back(
          {"Role", std::string(Index == 0 ? "" : "; ") + "'" + Role.Name +
                       "' for calls with per-example " +
                       (Params.empty() ? "none" : Params)});
    }
    report(llvm::remarks::Type::Analysis, "CloneRoles", F->getLocation(), F,
           Args);
  }
}

std::optional<llvm::remarks::RemarkLocation>
LoopRemarks::location(SourceLocation Loc, std::string &FileStorage) const {
  if (Loc.isInvalid())
    return std::nullopt;
  PresumedLoc Presumed = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (Presumed.isInvalid())
    return std::nullopt;
  llvm::SmallString<256> File(Presumed.getFilename());
  SM.getFileManager().makeAbsolutePath(File);
  llvm::sys::path::remove_dots(File, /*remove_dot_dot=*/true);
  FileStorage = std::string(File);
  return llvm::remarks::RemarkLocation{FileStorage, Presumed.getLine(),
                                       Presumed.getColumn()};
}

void LoopRemarks::report(llvm::remarks::Type Type, llvm::StringRef Name,
                         SourceLocation Loc, const FunctionDecl *Function,
                         llvm::ArrayRef<Arg> Args) {
  HeldRemark Remark{Type, Name.str(), Loc, Function, Args.vec()};
  if (SpecializationDepth > 0 && Type != llvm::remarks::Type::Missed)
    Held.push_back(std::move(Remark));
  else
    emit(Remark);
}

void LoopRemarks::emit(const HeldRemark &Report) {
  const auto &[Type, Name, Loc, Function, Args] = Report;
  std::string Message;
  for (const Arg &A : Args)
    Message += A.Value;
  const CodeGenOptions::OptRemark &Wanted =
      Type == llvm::remarks::Type::Passed   ? Passed
      : Type == llvm::remarks::Type::Missed ? Missed
                                            : Analysis;
  if (Wanted.patternMatches(PassName)) {
    unsigned ID =
        Type == llvm::remarks::Type::Passed
            ? clang::diag::remark_fe_backend_optimization_remark
        : Type == llvm::remarks::Type::Missed
            ? clang::diag::remark_fe_backend_optimization_remark_missed
            : clang::diag::remark_fe_backend_optimization_remark_analysis;
    Engine.Report(Loc, ID) << AddFlagValue(PassName) << Message;
  }
  if (!Log)
    return;
  llvm::remarks::Remark Remark;
  Remark.RemarkType = Type;
  Remark.PassName = PassName;
  Remark.RemarkName = Name;
  std::string FunctionName =
      Function ? Function->getQualifiedNameAsString() : std::string();
  Remark.FunctionName = FunctionName;
  std::string File;
  Remark.Loc = location(Loc, File);
  std::vector<std::string> ArgFiles(Args.size());
  for (auto [Index, A] : llvm::enumerate(Args)) {
    llvm::remarks::Argument Argument;
    Argument.Key = A.Key;
    Argument.Val = A.Value;
    Argument.Loc = location(A.Loc, ArgFiles[Index]);
    Remark.Args.push_back(Argument);
  }
  Log->add(std::move(Remark));
}

} // namespace clang_vmap
