//===- fuse_detail.h - The AST helpers of fuse.cpp ---------------*- C++ -*-===//
//
// Internal to fuse.cpp and fuse_scalar.cpp: what the choice of kernels asks
// about the expressions and statements of a batched body (Note [Which chains
// are fused] in fuse.cpp), and the scalar kernels' half of the choice (Note
// [Fused control flow] in fuse_scalar.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_FUSE_DETAIL_H
#define CLANG_VMAP_FUSE_DETAIL_H

#include "fuse.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include <vmap/rules/op_table.hpp>
#include <cstddef>
#include <optional>
#include <string>

namespace clang_vmap {
struct LoopAnalysis;
}

namespace clang_vmap::fuse_detail {

/// The op-table entry \p Call is, or kNoOp.
std::size_t opOf(const clang::CallExpr *Call);

bool isPointwiseRule(vmap::rules::RuleId Rule);

/// The operands of a call as the user writes them: the object first.
llvm::SmallVector<const clang::Expr *, 4> operandsOf(const clang::CallExpr *Call);

/// A call of a pointwise op (with an element form) giving a Tensor of \p A's
/// examples, all of whose operands are Tensors or C++ numbers.
bool isElementOp(const clang::CallExpr *Call, const LoopAnalysis &A);

/// A number, bool or string literal, or `std::nullopt`: the same for every
/// example and every element, so it stays in the kernel's text.
bool isLiteral(const clang::Expr *E);

/// Whether some of \p S comes from a macro (the printer splices file text).
bool inMacro(const clang::Stmt *S);

/// Whether \p S, a statement or the value of \p Chain's kernel, means the
/// same as the text of a device program (Note [Scalar kernels on a device]
/// in rules/include/vmap/fused_scalar.hpp): no macro, and it names nothing
/// the program lacks: only the kernel's own variables (its operands are its
/// parameters), functions of std and vmap, and built-in types or the
/// standard's integer typedefs (not a template parameter, an enumerator, a
/// constant or a type of the user's file).
bool portableText(const clang::Stmt *S, const FusedChain &Chain);

/// Gives a scalar kernel of value \p Root its lane form where it has one
/// (fuse_lanes.cpp; Note [Lane kernels] in rules/include/vmap/fused_scalar.hpp).
void planLanes(FusedChain &Chain, const clang::Expr *Root,
               const LoopAnalysis &A, const clang::ASTContext &Context);

/// The names of the variables \p S reads.
void namesIn(const clang::Stmt *S, llvm::StringSet<> &Names);

/// Every variable's number of references under \p S.
void countAllRefs(const clang::Stmt *S,
                  llvm::DenseMap<const clang::VarDecl *, unsigned> &Counts);

/// The assignment `v = e` or `v op= e` that statement \p S is, or null.
const clang::CXXOperatorCallExpr *assignmentOf(const clang::Stmt *S);

/// The body of a plain loop as a list of statements.
llvm::SmallVector<const clang::Stmt *, 8> statementsOf(const clang::Stmt *Body);

/// A loop `for (int r = A; r < B; ...)` with integer literals A < B (or
/// `<=`, `!=`, `>`, `>=` likewise) runs its body at least once.
bool runsAtLeastOnce(const clang::ForStmt *For);

/// The call `t[k]` that \p E is, of a Tensor `t` at a C++ scalar `k`
/// (Tensor::operator[](int64_t)), or null.
const clang::CXXOperatorCallExpr *elementSubscript(const clang::Expr *E);

/// The object `t` of \p E, a call `t.item<T>()` of a C++ scalar type T, or
/// null.
const clang::Expr *itemObject(const clang::Expr *E);

/// A C++ type a scalar kernel passes or returns: one a dtype holds as it is
/// (bool, signed integers, float, double).
bool isKernelType(clang::QualType T);

/// The ops of the function of this file that \p Call calls, where a kernel
/// may compute it element by element (Note [Helpers in kernels] in
/// fuse_helpers.cpp), else std::nullopt.
std::optional<unsigned> helperOps(const clang::CallExpr *Call,
                                  const BatchPlan &Plan);

/// After the choice of \p Plan's kernels: drops the clones whose every call
/// a scalar kernel holds (it runs the function as written), records the
/// calls kernels compute element by element (FusionPlan::HelpersInKernels),
/// and marks the clones whose every call is one (Note [Helpers in kernels]
/// in fuse_helpers.cpp), which are not printed.
void settleClones(BatchPlan &Plan);

/// Whether \p Call, of \p Operands, is the whole example's 2-norm
/// (`e.norm()`, `norm(e, 2)`: Tensor's norm(p = 2), outside the op table's
/// norm over dims), which vb::Fused computes as the root of the kernel's sum
/// of squares (fuse_squares.cpp).
bool isTwoNorm(const clang::CallExpr *Call,
               llvm::ArrayRef<const clang::Expr *> Operands,
               clang::ASTContext &Context);

/// The variable that \p E, a call of dot, dots with itself (`d.dot(d)`,
/// `dot(d, d)`: Note [Dot products of a value with itself] in
/// fuse_squares.cpp), or null.
const clang::Expr *selfDotOperand(const clang::Expr *E, const LoopAnalysis &A);

/// The kernels of a body chosen so far, and what both halves of the choice
/// (fuse.cpp: chains of Tensor ops and their regions; fuse_scalar.cpp: scalar
/// kernels) ask of a kernel being built.
class KernelChoice {
public:
  explicit KernelChoice(const LoopAnalysis &A);

  /// Adds \p E, a leaf, to the kernel's operands (one parameter per distinct
  /// source text, a local's own parameter apart).
  void addOperand(const clang::Expr *E, FusedChain &Chain,
                  const clang::VarDecl *Local = nullptr,
                  bool ElementRead = false, bool ElementWrite = false) const;

  /// Whether \p S reads a variable \p Chain declares.
  bool mentionsDeclared(const clang::Stmt *S, const FusedChain &Chain) const;

  /// Whether computing \p S once, earlier, is the same as computing it where
  /// it is written, each time: it reads values and calls the op table's ops
  /// that neither write nor draw random numbers.
  bool isPure(const clang::Stmt *S) const;

  /// Whether \p S holds a kernel already chosen.
  bool holdsKernel(const clang::Stmt *S) const;

  /// The variables \p S declares, into \p Chain.
  void declare(const clang::Stmt *S, FusedChain &Chain) const;

  /// Whether the variables \p Chain declares are dead after its consumer
  /// \p Root: every reference the body makes to them is in \p Region or Root.
  /// Else records why not (whyNot).
  bool diesAtConsumer(llvm::ArrayRef<const clang::Stmt *> Region,
                      const clang::Expr *Root, const FusedChain &Chain) const;

  /// Records \p Reason, in a C++ user's words, as why the kernel being built
  /// fails (FusionPlan::NotCompiled); returns the failure.
  std::nullopt_t whyNot(std::string Reason) const {
    Why = std::move(Reason);
    return std::nullopt;
  }

  const LoopAnalysis &A;
  clang::ASTContext &Context;
  /// The batched body (the loop's, or the batched callee's).
  const clang::Stmt *Body;
  llvm::DenseMap<const clang::VarDecl *, unsigned> BodyRefs;
  FusionPlan Result;
  /// Why the last kernel tried failed, or empty (whyNot).
  mutable std::string Why;
};

/// The scalar kernels of a body (Note [Fused control flow] in
/// fuse_scalar.cpp).
class ScalarKernels {
public:
  explicit ScalarKernels(const KernelChoice &Choice) : Choice(Choice) {}

  /// The scalar kernel of the store of \p Consumed (the value as its
  /// consumer reads it, its conversion included) into \p Destination with
  /// the longest region of the statements \p Before that it can take, or
  /// std::nullopt.
  std::optional<FusedChain> longest(const clang::Expr *Consumed,
                                    const clang::Expr *Destination,
                                    llvm::ArrayRef<const clang::Stmt *> Before);

  /// The scalar kernel that returns nothing of the statement \p Last, which
  /// stores elements, with the longest region of the statements \p Before
  /// that it can take, or std::nullopt.
  std::optional<FusedChain> storing(const clang::Stmt *Last,
                                    llvm::ArrayRef<const clang::Stmt *> Before);

private:
  const KernelChoice &Choice;
  /// Functions the kernels may call as written (isScalarFunction).
  llvm::DenseMap<const clang::FunctionDecl *, bool> ScalarFunctions;
};

/// Which statements form a slot run (Note [Slot runs] in fuse_slot.cpp).
class SlotRuns {
public:
  explicit SlotRuns(const KernelChoice &Choice) : Choice(Choice) {}

  /// The tensor \p E subscripts, where \p E is an example's own slot of an
  /// output (`out[i]`, `out[i][j]`, `out[i][0]`), else null.
  const clang::VarDecl *ownSlotOf(const clang::Expr *E) const;
  /// Whether \p E and \p Slot are the same expression.
  bool sameSlot(const clang::Expr *E, const clang::Expr *Slot) const;
  /// The slot \p S updates, where it is a statement of a slot run: an update
  /// of \p Slot, or with a null \p Slot, of an example's own slot; else null.
  const clang::Expr *slotUpdate(const clang::Stmt *S,
                                const clang::Expr *Slot) const;
  /// Whether \p E is a variable or an element of one, `b[i]` (read where the
  /// kernel starts, compared with the slot at run time).
  static bool isPlainRead(const clang::Expr *E);
  /// Whether \p S, a statement of a slot run, reads \p Slot: a compound
  /// assignment, or a value that names it.
  bool readsSlot(const clang::Stmt *S, const clang::Expr *Slot) const;

private:
  const KernelChoice &Choice;
};

} // namespace clang_vmap::fuse_detail

#endif
