//===- analyse.h - Which values of a vmap loop vary per example -*- C++ -*-===//
//
// Pass 2 of clang-vmap. Checks that a `#pragma vmap` loop (with its nested vmap
// loops) is canonical and obeys SPEC section 2, and classifies every value in
// it as loop-invariant or batched at a set of levels. Everything it cannot
// prove safe is refused with a diagnostic at the offending code.
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_ANALYSE_H
#define CLANG_VMAP_ANALYSE_H

#include "pipeline.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clang_vmap {

/// Bit N set: the value varies along vmap level N (level 0 is the top loop).
using LevelSet = std::uint32_t;

/// One `#pragma vmap` loop of a nest.
struct VmapLevel {
  const clang::ForStmt *For = nullptr;
  const clang::VarDecl *Induction = nullptr;
  const clang::Expr *Start = nullptr; ///< as written
  const clang::Expr *Bound = nullptr; ///< as written
  bool Inclusive = false;             ///< `i <= Bound`
  unsigned Depth = 0;
  /// A plain loop run as a level (Note [Plain loops as levels] in passes.cpp).
  bool Promoted = false;
};

/// FMax and FMin: std::fmax / std::fmin, which skip a NaN operand.
enum class ReduceOp { Add, Sub, Mul, Max, Min, FMax, FMin };

/// `acc += e;`, `acc = acc + e;`, `acc = maximum(acc, e);` ... into a value
/// invariant along the levels the statement sits in.
struct Reduction {
  const clang::Expr *Accumulator = nullptr; ///< the DeclRefExpr of `acc`
  const clang::Expr *Value = nullptr;       ///< `e`
  ReduceOp Op = ReduceOp::Add;
  /// `acc = maximum(acc, e);`: rebinds the handle `acc` to a new tensor, as in
  /// LibTorch (a copy of the old handle keeps the old values); `acc += e;`
  /// writes its elements.
  bool Rebinds = false;
};

/// A guard of the rewrite: when it holds at run time the loop runs as written
/// (SPEC section 2: outputs that may overlap what the loop reaches).
struct OverlapCheck {
  enum class Kind {
    /// Written and Read share memory other than as the same view (the loop
    /// reads only each example's own slot of Read).
    UnlessSameView,
    /// Written and Read share any memory (Read is read beyond each example's
    /// own slot, or written too, or is a container of tensors).
    Any,
    /// Written's own elements may overlap (an `expand`ed view): batched, one
    /// write would land on another; as written the last one wins.
    Internal,
    /// Written, a C++ scalar the loop reduces into, and Read, a scalar it
    /// reads, are one object (a reference bound to the other).
    SameObject,
    /// Read, a C++ scalar reference, may be bound to an element of Written, a
    /// tensor the loop reaches (written, or Read is reduced into).
    ScalarInTensor,
  };
  /// Each of Written and Read: how the guard names the tensor (or scalar)
  /// before the loop
  /// (`out`, `this->W_`, `layer.bias`), and its declaration, for remarks.
  std::string Written, Read; ///< Read empty for Kind::Internal
  clang::SourceLocation WrittenDecl, ReadDecl;
  Kind Check = Kind::UnlessSameView;
};

/// A variable declared outside the loop that the loop writes: a tensor
/// written per example or in place, or an accumulator (a tensor or a C++
/// scalar) of a reduction. `--check` compares each (emit_check.cpp).
struct LoopOutput {
  const clang::VarDecl *Var = nullptr;
  bool Accumulator = false;
  /// How many leading dims every write indexes by the loop's examples, in
  /// nesting order (`out[i][j] = e`: 2), for the check's message.
  unsigned ExampleDims = 0;
};

struct LoopAnalysis {
  const VmapLoop *Loop = nullptr; ///< null for a callee (below)
  /// The loop's clause; a callee's is its caller's.
  Randomness Random = Randomness::Refused;
  /// For the body of a batched clone: the function, and which of its
  /// parameters receive per-example values.
  const clang::FunctionDecl *Callee = nullptr;
  llvm::SmallVector<bool, 4> BatchedParams;
  clang::ASTContext *Context = nullptr;
  std::vector<VmapLevel> Levels; ///< indexed by depth order of appearance
  llvm::DenseMap<const clang::Expr *, LevelSet> ExprLevels; ///< batched only
  /// Induction variables and locals that become `vb::Value`.
  llvm::DenseMap<const clang::VarDecl *, LevelSet> BatchedVars;
  /// Keyed by the statement's expression.
  llvm::DenseMap<const clang::Expr *, Reduction> Reductions;
  /// `if`s on a per-example condition (emitted as vb::Where).
  llvm::DenseSet<const clang::IfStmt *> MaskedIfs;
  /// Per-example control flow (Note [Control masks] in batched.hpp): the
  /// loops and `switch`es, and a clone's body, that run under a mask frame
  /// (their condition or a jump out of them differs per example), and the
  /// jumps that leave one, mapped to the control they leave.
  llvm::DenseSet<const clang::Stmt *> MaskedControls;
  llvm::DenseMap<const clang::Stmt *, const clang::Stmt *> MaskedJumps;
  std::vector<OverlapCheck> OverlapChecks;
  std::vector<LoopOutput> Outputs; ///< of a loop, not of a callee
  /// Note [Kernel-only code]
  /// Per-example C++ that the batched layer has no op for, but a scalar
  /// kernel (Note [Fused control flow] in fuse_scalar.cpp) runs as the
  /// compiler compiles it: a bit operator (`h ^ (h >> 3)`, `~k`) on a
  /// per-example integer (analyse), a call of a <cmath> or <algorithm>
  /// function of numbers beyond the op table's (`std::round`, `std::clamp`,
  /// `std::hypot`; batch). Each is kept here with the refusal it gets where
  /// no scalar kernel holds it after fusion (refuseKernelOnlyCode in
  /// passes.cpp), a call with its function's name, an operator with what it
  /// is.
  struct KernelOnlyCode {
    bool IsCall = false;
    std::string What;
  };
  llvm::DenseMap<const clang::Expr *, KernelOnlyCode> KernelOnly;
  /// The loop was refused; the analysis is kept so that the batch pass can
  /// report its own refusals too (Note [Every refusal]).
  bool Refused = false;
  /// Tensor locals made in the body the same for every example (`Tensor f =
  /// zeros({3});`) and then written per example through a slot or in place
  /// (`f[0] = x[i].sum();`): each example needs its own copy. Mapped to the
  /// vmap levels enclosing the declaration.
  llvm::DenseMap<const clang::VarDecl *, LevelSet> PromotedLocals;
  /// `f = zeros({3});` of a promoted local: the copies are made again after.
  llvm::DenseMap<const clang::Expr *, const clang::VarDecl *>
      PromotingAssignments;

  LevelSet levelsOf(const clang::Expr *E) const;
  bool isBatched(const clang::Expr *E) const { return levelsOf(E) != 0; }
  /// The vmap level of \p For, or null for a plain loop.
  const VmapLevel *levelOf(const clang::ForStmt *For) const;
};

/// Analyses the top-level vmap loop \p Loops[Top] and the loops of \p Loops
/// nested in it. Reports refusals through \p Diags; a refused loop's analysis
/// has Refused set.
std::optional<LoopAnalysis> analyse(clang::ASTContext &Context,
                                    llvm::ArrayRef<VmapLoop> Loops,
                                    unsigned Top, Diagnostics &Diags);

/// Analyses the body of \p Callee, a function defined in this file called with
/// per-example values for the parameters marked in \p BatchedParams, as the
/// body of its batched clone, its random draws as \p Random says. std::nullopt
/// if refused.
std::optional<LoopAnalysis> analyseCallee(clang::ASTContext &Context,
                                          const clang::FunctionDecl *Callee,
                                          llvm::ArrayRef<bool> BatchedParams,
                                          Randomness Random,
                                          Diagnostics &Diags);

} // namespace clang_vmap

#endif
