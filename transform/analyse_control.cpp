//===- analyse_control.cpp - Per-example loops, jumps and switches --------===//
//
// `while`/`do` loops, `switch`es, and `break`/`continue`/`return` out of
// inner loops, switches and called functions. A control whose condition, or
// a jump out of which, differs per example runs under a mask frame (Note
// [Control masks] in rules/include/vmap/batched.hpp); the others stay as
// written. A jump out of the vmap loop's own body is refused: it would leave
// the loop over examples, not one example's iteration.
//
//===----------------------------------------------------------------------===//

#include "analyse_detail.h"
#include "ast_util.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace clang_vmap {
namespace detail {

static bool
isVmapLevel(const Stmt *S,
            const llvm::DenseMap<const ForStmt *, unsigned> &Loops) {
  const auto *For = dyn_cast<ForStmt>(S);
  return For && Loops.count(For);
}

static const char *jumpName(const Stmt *Jump) {
  if (isa<BreakStmt>(Jump))
    return "break";
  if (isa<ContinueStmt>(Jump))
    return "continue";
  return "return";
}

bool Analyser::walkLoopOrSwitch(const Stmt *S, Scope &Where) {
  LoopsAndSwitches.push_back({S, Where});
  Scope Inner = Where;
  Inner.Controls.push_back({S, static_cast<unsigned>(Inner.Ifs.size())});
  if (const auto *While = dyn_cast<WhileStmt>(S)) {
    if (While->getConditionVariable())
      return refuseAt(diag::refuse_unsupported, S->getSourceRange(),
                      diag::note_unsupported,
                      {"a declaration in a loop condition"});
    bool Ok = walkExpr(While->getCond(), Inner);
    return walkStmt(While->getBody(), Inner) && Ok;
  }
  if (const auto *Do = dyn_cast<DoStmt>(S)) {
    bool Ok = walkStmt(Do->getBody(), Inner);
    return walkExpr(Do->getCond(), Inner) && Ok;
  }
  const auto *Switch = cast<SwitchStmt>(S);
  if (Switch->getInit() || Switch->getConditionVariable())
    return refuseAt(diag::refuse_unsupported, S->getSourceRange(),
                    diag::note_unsupported,
                    {"a 'switch' with an initialiser or declaration"});
  if (!walkExpr(Switch->getCond(), Where))
    return false;
  return walkSwitchBody(Switch, Inner);
}

// The labels of a batched `switch` are where examples join it, so they must
// be statements of its block, not inside a nested statement (Duff's device).
bool Analyser::walkSwitchBody(const SwitchStmt *Switch, Scope &Inner) {
  const auto *Body = dyn_cast<CompoundStmt>(Switch->getBody());
  if (!Body)
    return refuseAt(diag::refuse_unsupported, Switch->getSourceRange(),
                    diag::note_unsupported,
                    {"a 'switch' whose body is not a block"});
  bool Ok = true;
  for (const Stmt *Child : Body->body()) {
    while (const auto *Label = dyn_cast<SwitchCase>(Child)) {
      const auto *Case = dyn_cast<CaseStmt>(Label);
      if (Case && Case->caseStmtIsGNURange())
        return refuseAt(diag::refuse_unsupported, Case->getSourceRange(),
                        diag::note_unsupported, {"a 'case' range"});
      Child = Label->getSubStmt();
    }
    Ok &= walkStmt(Child, Inner);
  }
  return Ok;
}

bool Analyser::walkJump(const Stmt *Jump, Scope &Where) {
  if (const auto *Return = dyn_cast<ReturnStmt>(Jump)) {
    if (!Result.Callee)
      return refuseAt(diag::refuse_jump, Jump->getSourceRange(),
                      diag::note_no_jumps, {"return"});
    bool Ok = true;
    if (const Expr *Value = Return->getRetValue()) {
      Statements.push_back({Value, Where});
      Ok = walkExpr(Value, Where);
    }
    if (Jump != FinalReturn)
      Jumps.push_back({Jump, Result.Callee->getBody(), Where});
    return Ok;
  }
  const Stmt *Target = nullptr;
  for (const Control &C : llvm::reverse(Where.Controls)) {
    if (isa<ContinueStmt>(Jump) && isa<SwitchStmt>(C.S))
      continue; // `continue` goes to the loop around the switch
    Target = C.S;
    break;
  }
  if (!Target || isVmapLevel(Target, LoopIndex))
    return refuseAt(diag::refuse_jump, Jump->getSourceRange(),
                    diag::note_no_jumps, {jumpName(Jump)});
  Jumps.push_back({Jump, Target, Where});
  return true;
}

LevelSet Analyser::jumpLevels(const Stmt *Target) {
  LevelSet Levels = 0;
  for (const JumpSite &J : Jumps) {
    if (J.Target != Target)
      continue;
    // The masks between the jump and its target: examples that reach the jump
    // differ from those that run the target.
    const auto &Controls = J.Where.Controls;
    const auto *Own = llvm::find_if(
        Controls, [&](const Control &C) { return C.S == Target; });
    bool Found = Own != Controls.end();
    for (unsigned I = Found ? Own->IfsAtEntry : 0; I < J.Where.Ifs.size(); ++I)
      Levels |= levels(J.Where.Ifs[I]->getCond());
    for (const auto *C = Found ? Own + 1 : Controls.begin();
         C != Controls.end(); ++C)
      Levels |= controlLevels(C->S);
  }
  return Levels;
}

LevelSet Analyser::controlLevels(const Stmt *Control) {
  if (isVmapLevel(Control, LoopIndex))
    return 0; // a vmap loop: every example runs it
  LevelSet Levels = jumpLevels(Control);
  if (const auto *While = dyn_cast<WhileStmt>(Control))
    Levels |= levels(While->getCond());
  if (const auto *Do = dyn_cast<DoStmt>(Control))
    Levels |= levels(Do->getCond());
  if (const auto *Switch = dyn_cast<SwitchStmt>(Control))
    Levels |= levels(Switch->getCond());
  if (const auto *For = dyn_cast<ForStmt>(Control))
    Levels |= levels(For->getCond());
  return Levels;
}

bool Analyser::checkControls() {
  // A nested vmap loop runs every example of its level: it cannot run under a
  // per-example loop or switch.
  return llvm::all_of(Bounds, [&](const std::pair<unsigned, Scope> &Bound) {
    for (const Control &C : Bound.second.Controls)
      if (controlLevels(C.S))
        return refuseAt(diag::refuse_unsupported,
                        Result.Levels[Bound.first].For->getSourceRange(),
                        diag::note_unsupported,
                        {"a vmap loop inside a per-example loop or 'switch'"});
    return true;
  });
}

void Analyser::findMaskedControls() {
  auto Mark = [&](const Stmt *S) {
    if (controlLevels(S))
      Result.MaskedControls.insert(S);
  };
  for (const auto &[S, Where] : LoopsAndSwitches)
    Mark(S);
  for (const auto &[For, Where] : PlainLoops)
    Mark(For);
  for (const auto &[For, Where] : RangeLoops)
    Mark(For);
  if (Result.Callee)
    Mark(Result.Callee->getBody());
  // A per-example jump out of loops around it (`return` from `while (true)`)
  // takes examples out of each of them at different iterations: each must
  // run until no example is left in it, as a masked loop does.
  for (const JumpSite &J : Jumps) {
    if (!Result.MaskedControls.count(J.Target))
      continue;
    for (const Control &C : llvm::reverse(J.Where.Controls)) {
      if (C.S == J.Target)
        break;
      if (!isa<SwitchStmt>(C.S) && !isVmapLevel(C.S, LoopIndex))
        Result.MaskedControls.insert(C.S);
    }
  }
  for (const JumpSite &J : Jumps)
    if (Result.MaskedControls.count(J.Target))
      Result.MaskedJumps[J.Jump] = J.Target;
}

} // namespace detail
} // namespace clang_vmap
