//===- analyse_classify.cpp - Step 2, which values vary per example -------===//
//
// The levels at which each expression differs per example (a fixpoint over
// the locals), the body's Tensor locals that need a row per example before a
// write into a part of them, and the tensors outside the loop that it writes
// (its outputs and accumulators).
//
//===----------------------------------------------------------------------===//

#include "analyse_detail.h"
#include "ast_util.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>

using namespace clang;

namespace clang_vmap {
namespace detail {

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
    Levels |= RandomDraws.lookup(E);
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
    for (const ReductionSite &R : ReductionSites) {
      auto Info = Locals.find(R.Accumulator);
      if (Info == Locals.end())
        continue;
      Add(R.Accumulator, levels(Result.Reductions[R.Site].Value));
      // An accumulator declared in a vmap loop's body is each example's own
      // (`int64_t c = 0;` under i, `c += 1;` in a vmap loop over j counts
      // j's examples for each i, not i's and j's), though its value may be
      // the same for every one: the reduction keeps the enclosing levels.
      LevelSet Enclosing = 0;
      for (unsigned D = 0; D < Info->second.Depth && D < R.Where.Levels.size(); ++D)
        Enclosing |= LevelSet(1) << R.Where.Levels[D];
      if (Info->second.Depth < R.Where.Levels.size())
        Add(R.Accumulator, Enclosing);
    }
  }
  Memo.clear();
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
/// Note [Every tensor the loop reaches]
/// SPEC sections 2 and 7. A tensor the loop writes (an output, an accumulator
/// updated in place) may share elements with any tensor the loop reaches that
/// is not the body's own: a parameter, a global or static, a capture, a data
/// member, a variable of the function declared before the loop, a container of
/// tensors (a C array, a std::vector, however it is read), a tensor read
/// through a pointer, and views, references and handle copies of these; and
/// what this file's functions called in the loop reach: globals, members of
/// the object they run on and of objects passed to them, named as the loop's
/// function names them. What the guard cannot name before the loop (a
/// callee's static local or local object's member, a pointer's element, a
/// tensor a library call returns) is refused at the line. The set comes
/// from the walk's record of what the loop reads and writes (Reads, Writes,
/// ReductionSites, TensorContainers, ReachedMembers), so a form the walk
/// records is checked without being listed here. Each pair is either proven
/// disjoint from the source (a fresh tensor, two disjoint windows or slots of
/// one variable, disjoint regions of one buffer), or proven to overlap other
/// than as the same view (refused at the line), or checked by the run-time
/// guard, which runs the loop as written when they overlap; the guard also
/// runs it so when a written tensor's own elements overlap (an expanded view,
/// batched.hpp's internal_overlap).
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

} // namespace detail
} // namespace clang_vmap
