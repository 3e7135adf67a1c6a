//===- fuse.h - Pointwise chains emitted as compiled kernels ------*- C++ -*-===//
//
// Pass 4 (fuse), between batch and emit: finds the per-example chains of
// pointwise ops that the printer emits as one compiled kernel,
// `vb::fused(lambda, operands...)` (Note [Compiled fusion] in
// rules/include/vmap/fused.hpp), with the statements before them that
// compute their locals (Note [Fused regions] in fuse.cpp), and the scalar
// kernels of per-example C++ code (fuse_scalar.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_FUSE_H
#define CLANG_VMAP_FUSE_H

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <string>
#include <vector>

namespace clang_vmap {

struct BatchPlan;

/// One kernel: the chain's outermost op (or a local its region computes),
/// consumed by a store, a reduction of the whole example, or an accumulator.
struct FusedChain {
  /// The kernel's operands, in parameter order, with the parameter names.
  std::vector<const clang::Expr *> Operands;
  std::vector<std::string> Names;
  /// For each operand, the region's local it initialises (`Tensor value =
  /// x[i];` becomes the parameter `auto value`, which the kernel may rebind),
  /// or null for an operand read as `const auto&`.
  std::vector<const clang::VarDecl *> Locals;
  /// For each operand of a scalar kernel, whether it is a tensor the kernel
  /// reads element by element, a `vb::Elements` parameter (Note [Element
  /// reads] in rules/include/vmap/fused_scalar.hpp).
  std::vector<bool> ElementReads;
  /// For each operand, whether it is the example's own slot of a tensor the
  /// kernel stores into, a `vb::WritableElements` parameter (Note [Element
  /// stores] in rules/include/vmap/fused_scalar.hpp); ElementReads holds too.
  std::vector<bool> ElementWrites;
  /// Every occurrence of an operand in the kernel (one operand may occur
  /// several times: `d * d`), and its parameter.
  llvm::DenseMap<const clang::Expr *, unsigned> Parameters;
  /// The region: the statements before the consumer that the kernel runs
  /// first, in order (Note [Fused regions] in fuse.cpp); empty for a chain
  /// alone. The declarations of Locals are among them (printed as the
  /// parameters).
  std::vector<const clang::Stmt *> Region;
  /// The variables the region declares (its Tensor locals, the counters of
  /// its loops): they live inside the kernel.
  llvm::DenseSet<const clang::VarDecl *> Declared;
  /// A scalar kernel (Note [Fused control flow] in fuse_scalar.cpp): the region is
  /// the user's C++ scalar code, printed as written in a lambda whose
  /// parameters have C++ types, run by vb::fused_scalar.
  bool Scalar = false;
  /// A kernel of a run of statements that update one example's slot (Note
  /// [Slot runs] in fuse_slot.cpp): the slot as the run first writes it (`out[i]`),
  /// operand 0, whose parameter each of the run's stores assigns; the kernel's
  /// value is stored into the slot once. Null for the others.
  const clang::Expr *Slot = nullptr;
  /// Where the root is `x.dot(x)`, x: the kernel returns x, whose squares
  /// vb::Fused::dot_self sums (Note [Dot products of a value with itself] in
  /// fuse_squares.cpp); null for the others.
  const clang::Expr *DotWithItself = nullptr;
  /// A kernel whose text is also its device program (Note [Scalar kernels
  /// on a device] in rules/include/vmap/fused_scalar.hpp, Note [Fused kernels
  /// on a device] in rules/include/vmap/fused.hpp).
  bool DeviceCode = false;
  /// A scalar kernel that also has a lane form (Note [Lane kernels] in
  /// rules/include/vmap/fused_scalar.hpp, fuse_lanes.cpp): its locals that
  /// differ per example (declared `vb::Varying<T>` there), its <cmath> calls
  /// on such values (spelled `vb::name`), its casts of them (spelled
  /// `vb::lane_cast<T>(v)`), and for each operand whether it differs per
  /// example.
  bool Lanes = false;
  /// A scalar kernel that may raise (it reads or stores elements) and may
  /// trap (an integer division or remainder, or a call of the file's code):
  /// its examples run in loop order, `vb::fused_scalar(vb::in_order, ...)`
  /// (Note [Examples in order] in rules/include/vmap/fused_scalar.hpp).
  bool InOrder = false;
  llvm::DenseSet<const clang::VarDecl *> VaryingLocals;
  llvm::DenseSet<const clang::CallExpr *> LaneCalls;
  llvm::DenseSet<const clang::ExplicitCastExpr *> LaneCasts;
  std::vector<bool> VaryingOperands;
  /// The lane form's element views each loop reads the same on every
  /// iteration (`x[i]` in `for (k...) x[i][k]`): selected once, before the
  /// loop (Note [Views hoisted out of lane loops] in fuse_lanes.cpp).
  std::vector<std::pair<const clang::ForStmt *, const clang::Expr *>>
      LaneHoists;
  /// Why a scalar kernel with a loop or element reads has no lane form (it
  /// runs one example at a time), for --remarks; empty otherwise.
  std::string NoLanes;
};

/// The kernels of a batched body (keyed by the chain's outermost expression).
struct FusionPlan {
  llvm::DenseMap<const clang::Expr *, FusedChain> Chains;
  /// Scalar kernels that store elements and return nothing, and the kernels
  /// of slot runs, keyed by their region's last statement, where the printer
  /// puts the kernel's call (Note [Fused control flow] in fuse_scalar.cpp,
  /// Note [Slot runs] in fuse_slot.cpp).
  llvm::DenseMap<const clang::Stmt *, FusedChain> StatementKernels;
  /// The statements of the regions: printed inside their kernel, not in place.
  llvm::DenseSet<const clang::Stmt *> InRegions;
  /// The statement that consumes a region, and the region's first statement.
  llvm::DenseMap<const clang::Stmt *, const clang::Stmt *> RegionStarts;
  /// Why a statement is not (all) in a kernel, in a C++ user's words, for
  /// --remarks: why the kernel of its value failed, or the region that would
  /// have started at it. Recorded where the choice is made; the first stands.
  llvm::DenseMap<const clang::Stmt *, std::string> NotCompiled;
  /// The calls of the file's functions that a kernel computes element by
  /// element, their bodies printed in it, with the calls those bodies make
  /// (Note [Helpers in kernels] in fuse_helpers.cpp).
  llvm::DenseSet<const clang::CallExpr *> HelpersInKernels;
};

/// Finds the kernels of \p Plan's body and of its clones' (Plan.Fusion), and
/// drops the clones that no call runs batched any more: a call a scalar
/// kernel holds runs the function as written.
void fuse(BatchPlan &Plan);

/// The op calls of \p Fusion's kernels, down to their operands (a kernel's
/// calls run inside it; what is left of a statement runs around it).
llvm::DenseSet<const clang::CallExpr *> callsInKernels(const FusionPlan &Fusion);

/// Every statement and expression of the scalar kernels of \p Fusion (Note
/// [Fused control flow] in fuse_scalar.cpp): the kernels' roots and regions,
/// all they hold; without \p Operands, not what their operands compute
/// before them.
llvm::DenseSet<const clang::Stmt *> inScalarKernels(const FusionPlan &Fusion,
                                                    bool Operands);
/// The op calls of a kernel under \p S (its root or a statement of its
/// region), down to its operands, into \p Calls in the order met.
void collectKernelCalls(const clang::Stmt *S, const FusedChain &Chain,
                        std::vector<const clang::CallExpr *> &Calls);

/// Whether \p Call is a library-shaped op (the matmul family, softmax, sort,
/// topk...): one batched call of its own, which no kernel holds.
bool isLibraryOp(const clang::CallExpr *Call);

} // namespace clang_vmap

#endif
