//===- fuse_slot.cpp - Slot runs: stores that read their own slot ---------===//
//
// The slot-run half of the Fuser (fuse.cpp): which statements update an
// example's own slot of an output, and read it.
//
// Note [Slot runs]
// A run of statements that store into an example's own slot of an output and
// then update it,
//
//   out[i] = x[i];
//   for (int round = 0; round < 5; ++round)
//     out[i] *= out[i];
//
// is one kernel whose first operand is the slot, its value stored once (Note
// [Slot kernels] in rules/include/vmap/fused.hpp):
//
//   vb::at(out, i) = vb::fused_slot([](auto a, const auto& b) {
//     vb::assign(a, b);
//     for (int round = 0; round < 5; ++round) { a *= a; }
//     return a;
//   }, vb::at(out, i), vb::at(x, i));  // lines 12-14
//
// (a run that reads the slot first, `out[i] += b[i]; out[i] *= 2;`, reads its
// old value as that operand). A store is vb::assign, which converts to the
// slot's dtype at each store as the store as written does (an int output
// stores ints). The run is the longest one of statements that each are `=` or
// a compound assignment with an element form to the same slot, or plain `for`
// loops of those whose literal bounds run them at least once (so every
// operand's shape meets the slot's, as the stores as written check it), where:
//   - the slot is `out[k]...` of a tensor the loop writes, its indices literals
//     and the induction variable of every vmap level: each example's own;
//   - the run reads that tensor only as the slot (`out[i - 1]`, `out.sum()`
//     read other examples' slots or the whole, which the stores change);
//   - what the statements after the first read is read where the kernel
//     starts, before the stores it follows as written: only a variable or an
//     element of one (`b[i]`, `r`), whose memory the kernel's call compares
//     with the slot's at run time (`Tensor r = out[i];`, or `b` the same
//     tensor as `out`: then the batched ops run it, statement by statement);
//     not a value computed from one (`b[i].sum()`), which would be computed
//     before the stores;
//   - it reads the slot (stores alone, the last wins) and has at least two
//     runtime passes (a lone statement is a chain of its own: Note [Which
//     chains are fused]).
//
//
//===----------------------------------------------------------------------===//

#include "analyse.h"
#include "ast_util.h"
#include "fuse_detail.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/STLExtras.h"
#include <functional>
#include <vmap/rules/op_table.hpp>

using namespace clang;
namespace rules = vmap::rules;

namespace clang_vmap::fuse_detail {

/// The tensor \p E subscripts, where \p E is an example's own slot of an
/// output (`out[i]`, `out[i][j]`, `out[i][0]`), else null.
const VarDecl *SlotRuns::ownSlotOf(const Expr *E) const {
  llvm::DenseSet<const VarDecl *> Indices;
  const Expr *Base = stripImplicit(E);
  while (const CXXOperatorCallExpr *Subscript = elementSubscript(Base)) {
    const Expr *Index = stripImplicit(Subscript->getArg(1));
    if (const VarDecl *Var = referencedVar(Index))
      Indices.insert(Var);
    else if (!isa<IntegerLiteral>(Index))
      return nullptr;
    Base = stripImplicit(Subscript->getArg(0));
  }
  const VarDecl *Tensor = referencedVar(Base);
  if (!Tensor || Base == stripImplicit(E) || Choice.A.Levels.empty() ||
      Indices.size() != Choice.A.Levels.size() ||
      !llvm::all_of(
          Choice.A.Levels,
          [&](const VmapLevel &L) { return Indices.count(L.Induction); }) ||
      !llvm::any_of(Choice.A.Outputs, [&](const LoopOutput &Output) {
        return Output.Var == Tensor && !Output.Accumulator;
      }))
    return nullptr;
  return Tensor;
}

bool SlotRuns::sameSlot(const Expr *E, const Expr *Slot) const {
  llvm::FoldingSetNodeID Id, SlotId;
  stripImplicit(E)->Profile(Id, Choice.Context, /*Canonical=*/true);
  stripImplicit(Slot)->Profile(SlotId, Choice.Context, /*Canonical=*/true);
  return Id == SlotId;
}

/// The slot \p S updates, where it is a statement of a slot run: an update
/// of \p Slot, or with a null \p Slot, of an example's own slot; else null.
const Expr *SlotRuns::slotUpdate(const Stmt *S, const Expr *Slot) const {
  if (!S || inMacro(S))
    return nullptr;
  if (const auto *Assign = assignmentOf(S)) {
    const Expr *Target = stripImplicit(Assign->getArg(0));
    if (Choice.A.Reductions.count(cast<Expr>(S)) ||
        !isTensorType(Assign->getArg(0)->getType()) ||
        (Slot ? !sameSlot(Target, Slot) : !ownSlotOf(Target)))
      return nullptr;
    std::string Name = calleeName(Assign);
    if (Assign->getOperator() != OO_Equal &&
        (rules::find_op(Name, rules::OpForm::compound_assign) == rules::kNoOp ||
         !rules::has_element_form(StringRef(Name).drop_back())))
      return nullptr;
    return Target;
  }
  const auto *For = dyn_cast<ForStmt>(S);
  if (!For || Choice.A.levelOf(For) || Choice.A.MaskedControls.count(For) ||
      !runsAtLeastOnce(For))
    return nullptr;
  for (const Stmt *Child : statementsOf(For->getBody()))
    if (!(Slot = slotUpdate(Child, Slot)))
      return nullptr;
  return Slot;
}

/// Whether \p E is a variable or an element of one, `b[i]` (Note [Slot
/// runs]: read where the kernel starts, compared with the slot at run time).
bool SlotRuns::isPlainRead(const Expr *E) {
  E = stripImplicit(E);
  if (const CXXOperatorCallExpr *Subscript = elementSubscript(E))
    return isPlainRead(Subscript->getArg(0)) &&
           isPlainRead(Subscript->getArg(1));
  return isa<DeclRefExpr, IntegerLiteral>(E);
}

/// Whether \p S, a statement of a slot run, reads \p Slot: a compound
/// assignment, or a value that names it.
bool SlotRuns::readsSlot(const Stmt *S, const Expr *Slot) const {
  if (const auto *For = dyn_cast<ForStmt>(S))
    return llvm::any_of(statementsOf(For->getBody()), [&](const Stmt *Child) {
      return readsSlot(Child, Slot);
    });
  const auto *Assign = assignmentOf(S);
  std::function<bool(const Stmt *)> Names = [&](const Stmt *Child) {
    return Child && ((isa<Expr>(Child) && sameSlot(cast<Expr>(Child), Slot)) ||
                     llvm::any_of(Child->children(), Names));
  };
  return Assign->getOperator() != OO_Equal || Names(Assign->getArg(1));
}

} // namespace clang_vmap::fuse_detail
