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
#include <functional>

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


/// The kernel roots under \p S.
void collectKernelRoots(const Stmt *S, const FusionPlan &Fusion,
                        std::vector<const Expr *> &Roots) {
  if (!S)
    return;
  if (const auto *E = dyn_cast<Expr>(S); E && Fusion.Chains.count(E))
    Roots.push_back(E);
  for (const Stmt *Child : S->children())
    collectKernelRoots(Child, Fusion, Roots);
}

/// `'matmul', 'topk'`
std::string quotedNames(llvm::ArrayRef<std::string> Names) {
  std::string Text;
  for (const std::string &Name : Names)
    Text += (Text.empty() ? "'" : ", '") + Name + "'";
  return Text;
}

} // namespace

bool isBatchedOp(const BatchPlan &Plan, const CallExpr *Call) {
  const LoopAnalysis &A = Plan.Analysis;
  return Plan.Calls.count(Call) ||
         (A.isBatched(Call) && isInVmapNamespace(Call->getDirectCallee()) &&
          !isMetadataCall(Call));
}

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
    std::string Name = calleeName(Call);
    if (isBatchedOp(Plan, Call) && !Name.empty() &&
        !llvm::is_contained(Ops, Name))
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
    // A scalar kernel's code may call no op at all: the user's C++.
    Args.push_back(
        {"FusedKernel",
         std::string(Index == 0 ? " (" : "; ") +
             (KernelOps.empty() ? "C++ code" : llvm::join(KernelOps, ", ")) +
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
  // Note [Plain loops as levels] in passes.cpp.
  for (const VmapLevel &Level : A.Levels)
    if (Level.Promoted)
      report(llvm::remarks::Type::Passed, "PlainLoopAsLevel",
             Level.For->getBeginLoc(), Loop.Function,
             {{"String", "plain loop over '"},
              {"Induction", Level.Induction->getNameAsString()},
              {"String", "' runs as a batch level: its trips are "
                         "independent"}});
  statements(Plan);

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
    case OverlapCheck::Kind::SameObject:
      Args.push_back({"String", "' is read; if they are one variable (a "
                                "reference bound to the other) the loop runs "
                                "as written, per example"});
      break;
    case OverlapCheck::Kind::ScalarInTensor:
      Args.push_back({"String", "' is a reference; if it is bound to one of the "
                                "tensor's elements the loop runs as written, per "
                                "example"});
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

// Note [Statement remarks]
// Each statement of a batched body that runs batched ops says how, at its
// line:col: in a compiled kernel (Passed, with the lines the kernel holds),
// as a batched library call (the matmul family, softmax, sort, topk), or op
// by op through the batched layer, one runtime call per op (Analysis, with
// why the fuser did not make it a kernel: FusionPlan::NotCompiled). A call
// with no batching rule says it runs per example (PerExampleFallback). A
// statement in a plain loop of the body runs its runtime calls once per trip
// of that loop, each at the cost of one op call: a Missed remark, since the
// loop is what throws the speed away. The functions of the file the body
// calls, batched as clones, report their statements too.
void LoopRemarks::statements(const BatchPlan &Plan) {
  const LoopAnalysis &A = Plan.Analysis;
  const ASTContext &Context = *A.Context;
  const FusionPlan &Fusion = Plan.Fusion;
  // A batched clone's statements are reported in its own function.
  const FunctionDecl *Function = A.Loop ? A.Loop->Function : A.Callee;
  llvm::DenseSet<const CallExpr *> KernelCalls = callsInKernels(Fusion);
  auto Line = [&](SourceLocation Loc) {
    return std::to_string(lineOf(Context, Loc));
  };

  // One statement (\p Loop: the innermost plain loop around it; \p Around:
  // why the statement around it is not compiled, if known).
  auto Statement = [&](const Stmt *S, const Stmt *Loop,
                       const std::string *Around) {
    std::vector<const CallExpr *> Calls;
    collectCalls(S, Calls);
    std::vector<const Expr *> Roots;
    collectKernelRoots(S, Fusion, Roots);
    std::vector<std::string> Library;
    unsigned Outside = 0, OpByOp = 0;
    for (const CallExpr *Call : Calls) {
      if (!isBatchedOp(Plan, Call) || KernelCalls.count(Call))
        continue;
      ++Outside;
      auto How = Plan.Calls.find(Call);
      if (How != Plan.Calls.end() && How->second == Lowering::PerExample)
        continue; // its own remark (PerExampleFallback)
      if (isLibraryOp(Call)) {
        if (!llvm::is_contained(Library, calleeName(Call)))
          Library.push_back(calleeName(Call));
      } else {
        ++OpByOp;
      }
    }
    // A kernel with its lines: its region's, through \p S.
    auto Kernel = [&](const FusedChain &Chain) {
      std::string First =
          Line(Chain.Region.empty() ? S->getBeginLoc()
                                    : Chain.Region.front()->getBeginLoc());
      std::string Last = Line(S->getEndLoc());
      report(llvm::remarks::Type::Passed, "CompiledKernel", S->getBeginLoc(),
             Function,
             {{"String", "runs in a compiled kernel ("},
              {"Lines", First == Last ? "line " + First
                                      : "lines " + First + "-" + Last},
              {"String", Chain.Lanes ? "), eight examples at a time on SIMD lanes"
                         : Chain.NoLanes.empty()
                             ? ")"
                             : "), one example at a time: " + Chain.NoLanes}});
    };
    for (const Expr *Root : Roots)
      Kernel(Fusion.Chains.find(Root)->second);
    // A kernel that stores elements and returns nothing is called at its
    // region's last statement.
    auto Storing = Fusion.StatementKernels.find(S);
    const bool StoringKernel = Storing != Fusion.StatementKernels.end();
    if (StoringKernel)
      Kernel(Storing->second);
    // A kernel's statements: what else they run are its operands and its
    // store, computed around it.
    const bool InKernel = !Roots.empty() || Fusion.InRegions.count(S);
    auto Own = Fusion.NotCompiled.find(S);
    const std::string *Why =
        Own != Fusion.NotCompiled.end() ? &Own->second : Around;
    if (!Library.empty()) {
      std::vector<Arg> Args{
          {"String", Library.size() == 1 ? "runs as a batched library call "
                                         : "runs as batched library calls "},
          {"Library", quotedNames(Library)}};
      if (OpByOp > 0 && !InKernel)
        Args.push_back({"String", " and " + plural(OpByOp, "batched op",
                                                   "batched ops")});
      report(llvm::remarks::Type::Analysis, "LibraryCall", S->getBeginLoc(),
             Function, Args);
    } else if (OpByOp > 0 && !InKernel) {
      std::vector<Arg> Args{{"String", "runs batched op by op ("},
                            {"NumOps", std::to_string(OpByOp)},
                            {"String", OpByOp == 1 ? " op)" : " ops)"}};
      if (Why) {
        Args.push_back({"String", "; not compiled: "});
        Args.push_back({"Reason", *Why});
      }
      report(llvm::remarks::Type::Analysis, "OpByOp", S->getBeginLoc(),
             Function, Args);
    }
    // A region's statement runs with its kernel, which its consumer counts.
    std::size_t PerTrip = Roots.size() + Outside + (StoringKernel ? 1 : 0);
    if (Loop && PerTrip > 0 && (StoringKernel || !Fusion.InRegions.count(S))) {
      SourceLocation At = Loop->getBeginLoc();
      report(llvm::remarks::Type::Missed, "OpsPerTrip", S->getBeginLoc(),
             Function,
             {{"NumOps", std::to_string(PerTrip)},
              {"String", std::string(PerTrip == 1 ? " runtime op"
                                                  : " runtime ops") +
                             " per trip of the loop at "},
              {"Loop", "line " + Line(At), At},
              {"String", ": the speed of one op call each"}});
    }
  };

  // The statements of the body, in order, through its blocks, levels,
  // branches and plain loops (whose headers run per trip too); a statement
  // inside another has the other's reason unless it has its own.
  std::function<void(const Stmt *, const Stmt *, const std::string *)> Walk =
      [&](const Stmt *S, const Stmt *Loop, const std::string *Around) {
        if (!S)
          return;
        if (Fusion.InRegions.count(S))
          return Statement(S, Loop, Around);
        auto Own = Fusion.NotCompiled.find(S);
        const std::string *Why =
            Own != Fusion.NotCompiled.end() ? &Own->second : Around;
        if (const auto *Compound = dyn_cast<CompoundStmt>(S)) {
          for (const Stmt *Child : Compound->body())
            Walk(Child, Loop, Why);
        } else if (const auto *For = dyn_cast<ForStmt>(S)) {
          if (A.levelOf(For))
            return Walk(For->getBody(), Loop, Why);
          Walk(For->getInit(), Loop, Why);
          Walk(For->getCond(), For, Why);
          Walk(For->getInc(), For, Why);
          Walk(For->getBody(), For, Why);
        } else if (const auto *While = dyn_cast<WhileStmt>(S)) {
          Walk(While->getCond(), While, Why);
          Walk(While->getBody(), While, Why);
        } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
          Walk(Do->getBody(), Do, Why);
          Walk(Do->getCond(), Do, Why);
        } else if (const auto *If = dyn_cast<IfStmt>(S)) {
          Walk(If->getCond(), Loop, Why);
          Walk(If->getThen(), Loop, Why);
          Walk(If->getElse(), Loop, Why);
        } else if (const auto *Switch = dyn_cast<SwitchStmt>(S)) {
          Walk(Switch->getCond(), Loop, Why);
          Walk(Switch->getBody(), Loop, Why);
        } else if (const auto *Case = dyn_cast<SwitchCase>(S)) {
          Walk(Case->getSubStmt(), Loop, Why);
        } else {
          Statement(S, Loop, Around);
        }
      };
  Walk(A.Loop ? A.Loop->For->getBody() : A.Callee->getBody(), nullptr,
       nullptr);
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones) {
    if (!Clone->OnlyInKernels) {
      statements(*Clone);
      continue;
    }
    // Note [Helpers in kernels] in fuse_helpers.cpp: its body is printed in
    // each kernel that calls it.
    const FunctionDecl *Definition = nullptr;
    Clone->Analysis.Callee->getBody(Definition);
    const Stmt *First = *cast<CompoundStmt>(Definition->getBody())->body_begin();
    report(llvm::remarks::Type::Passed, "InKernels", First->getBeginLoc(),
           Definition,
           {{"String", "runs inside the compiled kernels that call it, "
                       "printed in each (no batched clone)"}});
  }
}

void LoopRemarks::notBatched(const VmapLoop &Loop, llvm::StringRef Why,
                             SourceLocation At) {
  // The pragma is the record's related location: an argument with its own
  // DebugLoc, as OpsPerTrip names its loop.
  report(llvm::remarks::Type::Missed, "LoopNotBatched", At, Loop.Function,
         {{"String", "loop not batched: "},
          {"Reason", Why.str()},
          {"String", " (the vmap loop at "},
          {"Loop",
           "line " + std::to_string(SM.getPresumedLineNumber(
                         SM.getExpansionLoc(Loop.PragmaLoc))),
           Loop.PragmaLoc},
          {"String", ")"}});
}

void LoopRemarks::cloneRoles(const CloneNames &Names) {
  for (const auto &[Key, Function] : Names.functions()) {
    if (Function.Roles.size() < 2)
      continue;
    const FunctionDecl *F = Function.Decl;
    // `'quantile' is batched in 2 roles: ...`
    std::string Shown = functionName(F);
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
  // A specialization's refusal speaks at once; the rest is held.
  if (SpecializationDepth > 0 && Name != "LoopNotBatched")
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
