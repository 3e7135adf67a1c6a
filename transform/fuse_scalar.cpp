//===- fuse_scalar.cpp - Scalar kernels of per-example control flow -------===//
//
// The scalar-region half of the Fuser (fuse.cpp): the stores of a C++ scalar
// whose region holds per-example control flow, run as written, one example at
// a time, by vb::fused_scalar.
//
// Note [Fused control flow]
// Per-example control flow over C++ scalars (ISPC's Mandelbrot: a `while` whose
// condition and body read `float`s and `int`s of each example) runs batched
// with masks (Note [Control masks] in batched.hpp): every iteration several
// runtime ops over every example, until the last example leaves. Where each
// example's scalars are independent of the others' (they always are: the
// statements are per example), the loop as written, run once per example, is
// the same computation: a scalar kernel (Note [Scalar kernels] in
// rules/include/vmap/fused_scalar.hpp), no masks inside, each example its own
// trip count, as the plain loop. A store `out[i] = v` of a C++ scalar with the
// run of statements before it (its region) becomes
//
//   vb::at(out, i) = vb::fused_scalar([](float c, int max_iter) {
//     int k = 0;                              // the region, as written
//     while (...) { ... }
//     return k;
//   }, vb::at(x, i).item<float>(), max_iter);
//
// where:
//   - the region's statements are declarations of C++ scalar locals (no
//     references, no statics), expression statements, blocks, `while`, `do`,
//     plain `for`, `if`/`else`, and `break`/`continue` of the region's own
//     loops, and no other kernel;
//   - its code is C++ scalar arithmetic on its locals: built-in operators,
//     casts, `?:`, the <cmath> functions the op table lists
//     (kCmathFunctions), and calls of functions of this file that take and
//     return C++ scalars by value and whose bodies are such code on their
//     parameters and locals, `return`s included (SPEC's early return per
//     example: the kernel calls the function as written); an assignment or
//     `++` writes one of its locals;
//   - a tensor it subscripts at an index that reads its locals (`x[i][k]` in
//     `x[i][k].item<float>()`, or the stored value `input[i][k]`) is read
//     element by element (Note [Element reads] in
//     rules/include/vmap/fused_scalar.hpp): the largest part of it that reads
//     none of the locals (`x[i]`; where the code may not reach it, the
//     variable `x`, the rest selected in the kernel) is a `vb::Elements`
//     operand;
//   - each largest part of it that reads none of its locals, is no literal
//     and is no per-example C++ arithmetic (the kernel computes that from its
//     leaves; unsigned arithmetic, held as int64 bits, excepted)
//     (`x[i].item<float>()`, a per-example C++ scalar of the body, a number
//     the same for every example) is an operand: it must be pure (computed
//     once, before the kernel, for every example), of a type the kernel passes
//     (bool, signed integers, float, double), and where the code may not
//     reach it (a loop's body, a branch, the right of `&&`) a variable or a
//     size, which cannot raise an error; `float c = e;` at the region's top
//     becomes the parameter `float c`, which the kernel may change (a copy);
//   - an element store inside it, `t[...][k] = v` of a C++ scalar or an
//     element v (Note [Element stores] in rules/include/vmap/fused_scalar.hpp),
//     writes the example's own slot of t (`t[i]`, its subscripts the
//     induction variables of every vmap loop around it, t declared before the
//     loops), a `vb::WritableElements` operand, the subscripts after it code of
//     the kernel; the region reads t nowhere else, and reads every element
//     inside the kernel (no element value is an operand: it would be read
//     before the stores that precede it);
//   - at least one operand is per example, the stored value has a type the
//     kernel returns (or is such an element, which it returns as it is), and
//     the destination reads none of the region's locals;
//   - the stored value is not an operand as it is, and the region holds
//     per-example control flow (a loop of a function it calls counts: its
//     clone runs the loop under masks), or reads elements with four batched
//     ops or more around them (straight-line reads with fewer are each one
//     batched gather, many elements a row; the kernel reads one example at a
//     time), or stores elements, or is straight-line arithmetic of two
//     batched ops or more (batchedOps: one op is one batched pass into the
//     slot already):
//     batched, an element at an index the region computes, or each trip of a
//     plain loop over elements, is one op over every example, and the kernel
//     reads it in place. (An earlier choice kept a plain loop over elements
//     batched, each trip's ops running over every example at once. Measured
//     again, 1 thread: a dot product per output, 256x(512->256), runs 3x
//     faster as the kernel; pairwise distances over 64 elements, 2000x2000,
//     as fast either way (0.8-1.2x over three runs); only a trip's one op
//     over thousands of examples, `s += x[i] * x[j]` over 2000, stays 1.4x
//     faster batched, and there the kernel is within 1.6x of a plain loop);
//   - the region's locals are dead after the store (nothing else names them).
// A run of statements whose last one stores elements, with no store after it
// (`for (j ...) mask[i][j] = j >= i;`, a whole `for (o ...)` of a dot product
// ending in `y[n][o] = acc;`), is a kernel that returns nothing, printed as a
// statement in place of the region, under the same conditions but the store's;
// it pays where it stores many elements (a plain loop) or at an index it
// computes (one store of one value per example is one batched op already).
// The region is the longest such run, else a shorter one, else none (the
// stored value alone, where it calls a looping function), else no kernel: the
// masked loops stay (two results of one loop, a call of a function that
// reads more than its parameters). Parameters have the types the
// code reads them as: the local's declared type, else the operand's C++ type.
// The kernel runs only the examples of the live mask: one inside a
// per-example `if` is as guarded as the code it replaces.
//
//===----------------------------------------------------------------------===//

#include "analyse.h"
#include "ast_util.h"
#include "fuse_detail.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace clang_vmap::fuse_detail {
namespace {

/// The batched ops around straight-line element reads from which their kernel
/// pays (ScalarRegion::buildScalar): below, each batched op is one pass over
/// every example, and the reads are gathers.
constexpr unsigned kOpsAroundStraightLineReads = 4;

/// The scalar kernel of one store (ScalarKernels::longest).
class ScalarRegion {
public:
  ScalarRegion(const KernelChoice &K,
               llvm::DenseMap<const FunctionDecl *, bool> &ScalarFunctions)
      : K(K), A(K.A), Context(K.Context), Result(K.Result),
        ScalarFunctions(ScalarFunctions) {}

  /// Whether \p S may be a statement of a scalar region, as written: C++
  /// scalar locals, expressions, and the control flow of a function body
  /// (\p Loops: the loops of the region around it, which its `break` and
  /// `continue` may leave). What it reads is checked in buildScalar().
  bool mayBeInScalarRegion(const Stmt *S, unsigned Loops,
                           bool Returns = false) const {
    if (!S || inMacro(S) || Result.InRegions.count(S))
      return false;
    auto Inside = [&](const Stmt *Child, unsigned Depth) {
      return !Child || mayBeInScalarRegion(Child, Depth, Returns);
    };
    if (isa<ReturnStmt>(S))
      return Returns;
    if (const auto *Declaration = dyn_cast<DeclStmt>(S))
      return llvm::all_of(Declaration->decls(), [](const Decl *D) {
        const auto *Var = dyn_cast<VarDecl>(D);
        return Var && Var->hasLocalStorage() && isScalarType(Var->getType()) &&
               !Var->getType()->isReferenceType() &&
               !Var->getType().isVolatileQualified() &&
               (!Var->hasInit() || Var->getInitStyle() == VarDecl::CInit);
      });
    if (isa<Expr>(S))
      return !A.Reductions.count(cast<Expr>(S));
    if (const auto *Compound = dyn_cast<CompoundStmt>(S))
      return llvm::all_of(Compound->body(), [&](const Stmt *Child) {
        return Inside(Child, Loops);
      });
    if (const auto *While = dyn_cast<WhileStmt>(S))
      return !While->getConditionVariable() &&
             Inside(While->getBody(), Loops + 1);
    if (const auto *Do = dyn_cast<DoStmt>(S))
      return Inside(Do->getBody(), Loops + 1);
    if (const auto *For = dyn_cast<ForStmt>(S))
      return !A.levelOf(For) && !For->getConditionVariable() &&
             Inside(For->getInit(), Loops) && Inside(For->getBody(), Loops + 1);
    if (const auto *If = dyn_cast<IfStmt>(S))
      return !If->getInit() && !If->getConditionVariable() &&
             !If->isConsteval() && !If->isConstexpr() &&
             Inside(If->getThen(), Loops) && Inside(If->getElse(), Loops);
    if (isa<BreakStmt, ContinueStmt>(S))
      return Loops > 0;
    return isa<NullStmt>(S);
  }

  /// Whether the kernel may call \p F as written: a function of this file,
  /// C++ scalars in (by value) and out, whose body is the code of a scalar
  /// region on its parameters and locals, `return` included, reading nothing
  /// else (an early return per example: SPEC's callee form).
  bool isScalarFunction(const FunctionDecl *F, unsigned Depth = 0) {
    const FunctionDecl *Definition = F ? F->getDefinition() : nullptr;
    // A lambda is called as written too, the kernel capturing its variable
    // (Printer::scalarKernel); what it reads beyond its parameters and
    // locals is numbers it captures, which the loop does not write
    // (Batcher::whyNoLambdaClone).
    const LambdaExpr *Lambda = Definition ? lambdaOf(Definition) : nullptr;
    if (!Definition || Depth > 4 || Definition->isVariadic() ||
        (isa<CXXMethodDecl>(Definition) && !Lambda) ||
        Definition->isTemplateInstantiation() ||
        !isInRewrittenFile(Context.getSourceManager(),
                           Definition->getLocation()) ||
        !isKernelType(Definition->getReturnType()))
      return false;
    auto Known = ScalarFunctions.find(Definition);
    if (Known != ScalarFunctions.end())
      return Known->second;
    ScalarFunctions[Definition] = false; // until shown (recursion)
    FusedChain Scratch;
    for (const ParmVarDecl *Parameter : Definition->parameters()) {
      if (!isKernelType(Parameter->getType()) ||
          Parameter->getType()->isReferenceType())
        return false;
      Scratch.Declared.insert(Parameter);
    }
    K.declare(Definition->getBody(), Scratch);
    ScalarDepth = Depth + 1;
    bool Scalar =
        mayBeInScalarRegion(Definition->getBody(), 0, /*Returns=*/true) &&
        collectScalarStatement(Definition->getBody(), Scratch, false, true) &&
        llvm::all_of(Scratch.Operands, [&](const Expr *Operand) {
          const VarDecl *Var = referencedVar(Operand);
          return Lambda && Var && isKernelType(Var->getType()) &&
                 llvm::any_of(Lambda->captures(), [&](const LambdaCapture &C) {
                   return C.capturesVariable() && C.getCapturedVar() == Var;
                 });
        });
    ScalarDepth = Depth;
    return ScalarFunctions[Definition] = Scalar;
  }

  /// Whether \p S may trap as written (Note [Examples in order] in
  /// rules/include/vmap/fused_scalar.hpp): an integer `/` or `%` (or `/=`,
  /// `%=`) by anything but a non-zero constant, there or in a function of the
  /// file it calls (one whose body is elsewhere may).
  bool mayTrap(const Stmt *S) {
    llvm::SmallPtrSet<const FunctionDecl *, 4> Entered;
    return mayTrap(S, Entered);
  }
  bool mayTrap(const Stmt *S,
               llvm::SmallPtrSetImpl<const FunctionDecl *> &Entered) {
    if (!S)
      return false;
    if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
      const BinaryOperatorKind Op = Binary->getOpcode();
      const QualType Type = isa<CompoundAssignOperator>(Binary)
                                ? cast<CompoundAssignOperator>(Binary)
                                      ->getComputationResultType()
                                : Binary->getType();
      if ((Op == BO_Div || Op == BO_Rem || Op == BO_DivAssign ||
           Op == BO_RemAssign) &&
          Type->isIntegerType()) {
        Expr::EvalResult Divisor;
        if (!Binary->getRHS()->EvaluateAsInt(Divisor, Context) ||
            Divisor.Val.getInt() == 0)
          return true;
      }
    }
    if (const auto *Call = dyn_cast<CallExpr>(S);
        Call && isScalarFunction(Call->getDirectCallee(), ScalarDepth)) {
      // Each function's body is looked at once (a second call, or a call of
      // itself, adds nothing).
      const FunctionDecl *Definition = nullptr;
      if (!Call->getDirectCallee()->hasBody(Definition))
        return true;
      if (Entered.insert(Definition).second &&
          mayTrap(Definition->getBody(), Entered))
        return true;
    }
    return llvm::any_of(S->children(), [&](const Stmt *Child) {
      return mayTrap(Child, Entered);
    });
  }

  /// Whether \p E calls a function of isScalarFunction().
  bool callsScalarFunction(const Stmt *S) {
    if (!S)
      return false;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (isScalarFunction(Call->getDirectCallee(), ScalarDepth))
        return true;
    return llvm::any_of(S->children(), [&](const Stmt *Child) {
      return callsScalarFunction(Child);
    });
  }

  /// Whether \p S loops, or calls a function the kernel calls as written
  /// that does (the escape loop of a helper that returns the count from
  /// inside it): batched, the helper's clone runs that loop under masks, for
  /// the most trips of any example.
  bool loopsPerExample(const Stmt *S) {
    if (!S)
      return false;
    if (isa<WhileStmt, DoStmt, ForStmt>(S))
      return true;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (const FunctionDecl *F = Call->getDirectCallee();
          isScalarFunction(F, ScalarDepth) &&
          loopsPerExample(F->getDefinition()->getBody()))
        return true;
    return llvm::any_of(S->children(),
                        [&](const Stmt *Child) { return loopsPerExample(Child); });
  }

  /// Whether \p S holds code only a scalar kernel runs (Note [Kernel-only
  /// code] in analyse.h).
  bool holdsKernelOnly(const Stmt *S) const {
    if (!S)
      return false;
    if (const auto *E = dyn_cast<Expr>(S); E && A.KernelOnly.count(E))
      return true;
    return llvm::any_of(S->children(), [&](const Stmt *Child) {
      return holdsKernelOnly(Child);
    });
  }

  /// Whether \p S holds control flow that differs per example (what the
  /// batched code runs under masks).
  bool holdsPerExampleControl(const Stmt *S) const {
    if (!S)
      return false;
    if (A.MaskedControls.count(S) || A.MaskedJumps.count(S))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(S))
      if (A.MaskedIfs.count(If))
        return true;
    return llvm::any_of(S->children(), [&](const Stmt *Child) {
      return holdsPerExampleControl(Child);
    });
  }

  /// The store `t[k] = v` that \p S is, of a C++ scalar or an element `v`
  /// into an element (or a slot) of a tensor (Tensor's assignment, fill_ or
  /// copy_), or null.
  static const CXXOperatorCallExpr *elementStore(const Stmt *S) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    const auto *Assign =
        E ? dyn_cast<CXXOperatorCallExpr>(E->IgnoreImplicit()) : nullptr;
    if (!Assign || Assign->getOperator() != OO_Equal ||
        Assign->getNumArgs() != 2 ||
        !isTensorType(Assign->getArg(0)->getType()) ||
        !elementSubscript(Assign->getArg(0)))
      return nullptr;
    const Expr *Value = stripImplicit(Assign->getArg(1));
    return isKernelType(Value->getType()) || elementSubscript(Value) ? Assign
                                                                     : nullptr;
  }

  /// Whether \p S holds an element store.
  static bool holdsStore(const Stmt *S) {
    return S && (elementStore(S) || llvm::any_of(S->children(), holdsStore));
  }

  /// Whether \p E reads an element of a tensor (`x[i].item<float>()`).
  static bool readsElements(const Stmt *S) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    return S &&
           ((E && itemObject(E)) || llvm::any_of(S->children(), readsElements));
  }

  /// The tensor variable of which \p E is the example's own slot: `t[i]`,
  /// `t[i][j]` in two vmap loops, subscripted by the induction variable of
  /// each vmap loop around it, outermost first, of a tensor declared before
  /// the loops. The stores of different examples into it write disjoint
  /// elements (an `expand`ed t, whose slots overlap, runs the loop as
  /// written: the overlap guard).
  const VarDecl *ownSlotOf(const Expr *E) const {
    llvm::SmallVector<const VarDecl *, 4> Indices;
    const Expr *Object = E;
    while (const CXXOperatorCallExpr *Subscript = elementSubscript(Object)) {
      Indices.insert(Indices.begin(), referencedVar(Subscript->getArg(1)));
      Object = Subscript->getArg(0);
    }
    const VarDecl *Tensor = referencedVar(Object);
    if (!A.Loop || !Tensor || !isTensorType(Tensor->getType()) ||
        A.BatchedVars.count(Tensor) || A.PromotedLocals.count(Tensor))
      return nullptr;
    const SourceManager &SM = Context.getSourceManager();
    const ForStmt *Top = A.Loop->For;
    if (SM.isPointWithin(Tensor->getLocation(), Top->getBeginLoc(),
                         Top->getEndLoc()))
      return nullptr;
    llvm::SmallVector<const VarDecl *, 4> Around;
    for (const VmapLevel &Level : A.Levels)
      if (SM.isPointWithin(E->getBeginLoc(), Level.For->getBeginLoc(),
                           Level.For->getEndLoc()))
        Around.push_back(Level.Induction);
    return Indices == Around ? Tensor : nullptr;
  }

  /// The operands of \p Store, `t[...][k] = v` (Note [Element stores] in
  /// rules/include/vmap/fused_scalar.hpp): v's, the example's own slot of t
  /// (a `vb::WritableElements` operand) and the subscripts after it.
  bool collectStore(const CXXOperatorCallExpr *Store, FusedChain &Chain,
                    bool Guarded) {
    const Expr *Value = stripImplicit(Store->getArg(1));
    return (isKernelType(Value->getType())
                ? collectScalar(Value, Chain, Guarded)
                : collectElements(Value, Chain, Guarded)) &&
           collectSlot(Store->getArg(0), Chain, Guarded);
  }
  bool collectSlot(const Expr *E, FusedChain &Chain, bool Guarded) {
    if (const VarDecl *Written = ownSlotOf(E)) {
      K.addOperand(E, Chain, nullptr, /*ElementRead=*/true,
                   /*ElementWrite=*/true);
      ++StoredRefs[Written];
      return true;
    }
    const CXXOperatorCallExpr *Subscript = elementSubscript(E);
    if (!Subscript)
      return false;
    StoresPay |=
        LoopDepth > 0 || K.mentionsDeclared(Subscript->getArg(1), Chain);
    return collectSlot(Subscript->getArg(0), Chain, Guarded) &&
           collectScalar(Subscript->getArg(1), Chain, Guarded);
  }

  /// Every variable's number of references under \p S but in its sizes
  /// (`t.size(1)`).
  static void
  countElementRefs(const Stmt *S,
                   llvm::DenseMap<const VarDecl *, unsigned> &Refs) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    if (!S || (E && isMetadataCall(E)))
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        ++Refs[Var];
    for (const Stmt *Child : S->children())
      countElementRefs(Child, Refs);
  }

  /// Whether the Tensor local \p Var may be a view of a tensor the region
  /// stores into (StoredRefs): its initialiser reads one, or a local that may
  /// be, or it is assigned after its declaration (what, the region does not
  /// follow). A parameter is another tensor (the run-time overlap check).
  bool mayViewStored(const VarDecl *Var, unsigned Depth = 0) const {
    if (isa<ParmVarDecl>(Var) || !Var->hasLocalStorage() ||
        !isTensorType(Var->getType().getNonReferenceType()))
      return false;
    if (Depth > 8 || assignedAfterDeclaration(Var))
      return true;
    llvm::DenseMap<const VarDecl *, unsigned> Read;
    countElementRefs(Var->getInit(), Read);
    return llvm::any_of(Read, [&](const auto &Entry) {
      return StoredRefs.count(Entry.first) || mayViewStored(Entry.first, Depth + 1);
    });
  }
  static bool assignedAfterDeclaration(const VarDecl *Var) {
    const auto *Function =
        dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
    return Function && assigns(Function->getBody(), Var);
  }
  static bool assigns(const Stmt *S, const VarDecl *Var) {
    if (!S)
      return false;
    const Expr *Target = nullptr;
    if (const auto *Binary = dyn_cast<BinaryOperator>(S);
        Binary && Binary->isAssignmentOp())
      Target = Binary->getLHS();
    if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(S);
        Call && Call->getOperator() == OO_Equal && Call->getNumArgs() == 2)
      Target = Call->getArg(0);
    if (const auto *Ref =
            Target ? dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts())
                   : nullptr;
        Ref && Ref->getDecl() == Var)
      return true;
    return llvm::any_of(S->children(),
                        [&](const Stmt *Child) { return assigns(Child, Var); });
  }

  /// Whether \p E is a region's local, as an assignment's target.
  bool isDeclaredTarget(const Expr *E, const FusedChain &Chain) const {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParens());
    return Ref && Chain.Declared.count(dyn_cast<VarDecl>(Ref->getDecl()));
  }

  /// The operands of \p E, code of a scalar kernel: each largest part that
  /// reads none of the region's locals and is no literal is computed before
  /// the kernel (it must be a pure C++ scalar; where the code may not reach
  /// it, \p Guarded, one that cannot raise an error: a variable or a size);
  /// the rest must be C++ scalar arithmetic on the region's locals
  /// (operators, casts, <cmath>).
  bool collectScalar(const Expr *E, FusedChain &Chain, bool Guarded) {
    if (!E)
      return true;
    if (const CXXOperatorCallExpr *Store = elementStore(E))
      return collectStore(Store, Chain, Guarded);
    if (!K.mentionsDeclared(E, Chain) && !callsScalarFunction(E) &&
        !(A.isBatched(E) && isScalarArithmetic(E))) {
      if (isLiteral(E))
        return true;
      // A region that stores reads every element in the kernel, in the
      // order written: one read before the kernel could miss a store.
      if (isKernelType(E->getType()) && K.isPure(E) &&
          !(Stores && readsElements(E)) &&
          (!Guarded || isa<DeclRefExpr>(E->IgnoreParenImpCasts()) ||
           isMetadataCall(E))) {
        K.addOperand(E, Chain);
        return true;
      }
      // `x[i][3].item<float>()` where the code may not reach it: read in the
      // kernel, where it is written.
      const Expr *Object = itemObject(E);
      return (Guarded || Stores) && Object &&
             collectElements(Object, Chain, Guarded);
    }
    if (const Expr *Object = itemObject(E))
      return collectElements(Object, Chain, Guarded);
    auto Each = [&](auto Children, bool ChildrenGuarded) {
      return llvm::all_of(Children, [&](const Stmt *Child) {
        return collectScalar(cast<Expr>(Child), Chain, ChildrenGuarded);
      });
    };
    if (isa<DeclRefExpr>(E))
      return isScalarType(E->getType());
    // ExprWithCleanups: the end of an element read's temporaries; a
    // MaterializeTemporaryExpr, a number bound to a const reference
    // (`std::clamp(a % 100, 10, 90)`).
    if (isa<ParenExpr, ImplicitCastExpr, CStyleCastExpr, CXXStaticCastExpr,
            CXXFunctionalCastExpr, ExprWithCleanups, MaterializeTemporaryExpr>(
            E))
      return isScalarType(E->getType()) && Each(E->children(), Guarded);
    if (const auto *Conditional = dyn_cast<ConditionalOperator>(E))
      return isScalarType(E->getType()) &&
             collectScalar(Conditional->getCond(), Chain, Guarded) &&
             collectScalar(Conditional->getTrueExpr(), Chain, true) &&
             collectScalar(Conditional->getFalseExpr(), Chain, true);
    if (const auto *Binary = dyn_cast<BinaryOperator>(E))
      return (!Binary->isAssignmentOp() ||
              isDeclaredTarget(Binary->getLHS(), Chain)) &&
             collectScalar(Binary->getLHS(), Chain, Guarded) &&
             collectScalar(Binary->getRHS(), Chain,
                           Guarded || Binary->isLogicalOp());
    if (const auto *Unary = dyn_cast<UnaryOperator>(E))
      return Unary->getOpcode() != UO_AddrOf &&
             Unary->getOpcode() != UO_Deref &&
             (!Unary->isIncrementDecrementOp() ||
              isDeclaredTarget(Unary->getSubExpr(), Chain)) &&
             Each(E->children(), Guarded);
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      return Callee &&
             (isCmath(Callee, Call->getNumArgs()) ||
              isKernelOnlyFunction(Callee) ||
              isScalarFunction(Callee, ScalarDepth)) &&
             llvm::all_of(parameterArguments(Call), [&](const Expr *Arg) {
               return collectScalar(Arg, Chain, Guarded);
             });
    }
    return false;
  }

  /// Whether \p E is C++ arithmetic on C++ scalars: a built-in operator
  /// that writes nothing, a cast, `?:` or a <cmath> function. Where it
  /// differs per example the kernel computes it, as written, from its leaves
  /// (a per-example number computed before the kernel would be a batched op
  /// of its own).
  bool isScalarArithmetic(const Expr *E) const {
    // An unsigned value is held as its int64 bits: its arithmetic is the
    // batched unsigned ops' (no kernel parameter holds it).
    const auto Unsigned = [](const Expr *Of) {
      QualType Type = Of->getType();
      return Type->isUnsignedIntegerType() && !Type->isBooleanType();
    };
    if (!isScalarType(E->getType()) || Unsigned(E))
      return false;
    E = E->IgnoreParenImpCasts();
    if (llvm::any_of(E->children(), [&](const Stmt *Child) {
          const auto *Operand = dyn_cast_or_null<Expr>(Child);
          return Operand && (Unsigned(Operand) ||
                             Unsigned(Operand->IgnoreParenImpCasts()));
        }))
      return false;
    if (const auto *Binary = dyn_cast<BinaryOperator>(E))
      return !Binary->isAssignmentOp();
    if (const auto *Unary = dyn_cast<UnaryOperator>(E))
      return !Unary->isIncrementDecrementOp() &&
             Unary->getOpcode() != UO_AddrOf && Unary->getOpcode() != UO_Deref;
    if (const auto *Call = dyn_cast<CallExpr>(E))
      return Call->getDirectCallee() &&
             (isCmath(Call->getDirectCallee(), Call->getNumArgs()) ||
              isKernelOnlyFunction(Call->getDirectCallee()));
    // `int64_t{v}`: its braces are no operand's text.
    if (const auto *Functional = dyn_cast<CXXFunctionalCastExpr>(E))
      return !Functional->isListInitialization();
    return isa<CStyleCastExpr, CXXStaticCastExpr, ConditionalOperator>(E);
  }

  /// The batched ops \p S makes where it is not compiled: its operators,
  /// arithmetic conversions (not a literal's: the compiler folds it) and
  /// <cmath> calls (a call of a function of this file counts two: its clone
  /// runs an op per statement), not what its operands compute before the
  /// kernel.
  unsigned batchedOps(const Stmt *S, const FusedChain &Chain) const {
    if (!S || (isa<Expr>(S) && Chain.Parameters.count(cast<Expr>(S))))
      return 0;
    unsigned Ops = 0;
    if (const auto *Binary = dyn_cast<BinaryOperator>(S))
      Ops = Binary->getOpcode() != BO_Assign && Binary->getOpcode() != BO_Comma;
    else if (const auto *Unary = dyn_cast<UnaryOperator>(S))
      Ops = Unary->getOpcode() != UO_Plus && Unary->getOpcode() != UO_AddrOf &&
            Unary->getOpcode() != UO_Deref;
    else if (isa<ConditionalOperator>(S))
      Ops = 1;
    else if (const auto *Cast = dyn_cast<CastExpr>(S);
             Cast && !isLiteral(Cast->getSubExpr()->IgnoreParenImpCasts()))
      Ops = isa<ExplicitCastExpr>(Cast) ||
            isArithmeticConversion(cast<ImplicitCastExpr>(Cast), Context);
    else if (const auto *Call = dyn_cast<CallExpr>(S))
      if (const FunctionDecl *Callee = Call->getDirectCallee())
        Ops = isCmath(Callee, Call->getNumArgs()) ? 1 : 2;
    for (const Stmt *Child : S->children())
      Ops += batchedOps(Child, Chain);
    return Ops;
  }

  /// The operands of \p E, a tensor the kernel reads element by element
  /// (Note [Element reads] in rules/include/vmap/fused_scalar.hpp): the
  /// largest part that reads none of the region's locals, a tensor computed
  /// before the kernel (where the code may not reach it, \p Guarded, a
  /// variable, which cannot raise an error), else `t[k]` of such a tensor
  /// `t` at a C++ scalar `k` of the kernel, selected in the kernel.
  bool collectElements(const Expr *E, FusedChain &Chain, bool Guarded) {
    if (!K.mentionsDeclared(E, Chain) && !callsScalarFunction(E) &&
        isTensorType(E->getType()) && K.isPure(E) &&
        (!Guarded || referencedVar(E))) {
      K.addOperand(E, Chain, nullptr, /*ElementRead=*/true);
      return true;
    }
    const CXXOperatorCallExpr *Subscript = elementSubscript(E);
    return Subscript &&
           collectElements(Subscript->getArg(0), Chain, Guarded) &&
           collectScalar(Subscript->getArg(1), Chain, Guarded);
  }

  /// The operands of \p S, a statement of a scalar region; \p TopLevel:
  /// directly in the region, where `float c = e;` of an operand e becomes
  /// the kernel's parameter `float c`; \p Guarded: the code may not reach it
  /// (collectScalar).
  bool collectScalarStatement(const Stmt *S, FusedChain &Chain, bool TopLevel,
                              bool Guarded) {
    if (!S)
      return true;
    if (const auto *Declaration = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : Declaration->decls()) {
        const auto *Var = cast<VarDecl>(D);
        const Expr *Init = Var->getInit();
        if (TopLevel && Init && Declaration->isSingleDecl() &&
            isKernelType(Var->getType()) && !K.mentionsDeclared(Init, Chain) &&
            !isLiteral(Init) && !(Stores && readsElements(Init)) &&
            !(A.isBatched(Init) && isScalarArithmetic(Init))) {
          if (!K.isPure(Init))
            return false;
          K.addOperand(Init, Chain, Var);
          continue;
        }
        if (!collectScalar(Init, Chain, Guarded))
          return false;
      }
      return true;
    }
    if (const auto *E = dyn_cast<Expr>(S))
      return collectScalar(E, Chain, Guarded);
    // A loop's condition is tested at least once (a `do`'s only if its body
    // does not `break`); its body and increment may never run.
    // (LoopDepth: a store in a loop's body pays.)
    const auto InLoop = [&](const Stmt *Body) {
      ++LoopDepth;
      const bool Collected = collectScalarStatement(Body, Chain, false, true);
      --LoopDepth;
      return Collected;
    };
    if (const auto *While = dyn_cast<WhileStmt>(S))
      return collectScalar(While->getCond(), Chain, Guarded) &&
             InLoop(While->getBody());
    if (const auto *Do = dyn_cast<DoStmt>(S))
      return InLoop(Do->getBody()) && collectScalar(Do->getCond(), Chain, true);
    if (const auto *For = dyn_cast<ForStmt>(S))
      return collectScalarStatement(For->getInit(), Chain, false, Guarded) &&
             collectScalar(For->getCond(), Chain, Guarded) &&
             collectScalar(For->getInc(), Chain, true) &&
             InLoop(For->getBody());
    if (const auto *If = dyn_cast<IfStmt>(S))
      return collectScalar(If->getCond(), Chain, Guarded) &&
             collectScalarStatement(If->getThen(), Chain, false, true) &&
             collectScalarStatement(If->getElse(), Chain, false, true);
    return llvm::all_of(S->children(), [&](const Stmt *Child) {
      return collectScalarStatement(Child, Chain, false, Guarded);
    });
  }

  /// The scalar kernel of \p Root, stored into \p Destination, with the
  /// statements \p Region before it (without Root, a kernel of the region
  /// that returns nothing, its last statement storing elements), or
  /// std::nullopt where a condition of Note [Fused control flow] fails.
  std::optional<FusedChain> buildScalar(const Expr *Root,
                                        const Expr *Destination,
                                        ArrayRef<const Stmt *> Region) {
    FusedChain Chain;
    Chain.Scalar = true;
    Chain.Region.assign(Region.begin(), Region.end());
    for (const Stmt *S : Region) {
      if (K.holdsKernel(S))
        return std::nullopt;
      K.declare(S, Chain);
    }
    Stores = llvm::any_of(Region, holdsStore);
    StoresPay = false;
    StoredRefs.clear();
    // A value that is an element of a tensor at an index the region computes
    // (`input[i][k]`): the kernel returns the element (Note [Element reads]).
    const bool ReturnsElements = Root && !isKernelType(Root->getType());
    if (K.mentionsDeclared(Destination, Chain) ||
        (ReturnsElements &&
         (!elementSubscript(Root) || !K.mentionsDeclared(Root, Chain))))
      return std::nullopt;
    for (const Stmt *S : Region)
      if (!collectScalarStatement(S, Chain, /*TopLevel=*/true,
                                  /*Guarded=*/false))
        return std::nullopt;
    if (!(ReturnsElements ? collectElements(Root, Chain, /*Guarded=*/false)
                          : collectScalar(Root, Chain, /*Guarded=*/false)) ||
        llvm::none_of(Chain.Operands, [&](const Expr *Operand) {
          return A.isBatched(Operand);
        }))
      return std::nullopt;
    // A tensor the region stores into is read nowhere in it but its sizes
    // (the batched ops' order and the kernel's then agree).
    llvm::DenseMap<const VarDecl *, unsigned> Refs;
    for (const Stmt *S : Region)
      countElementRefs(S, Refs);
    countElementRefs(Root, Refs);
    for (const auto &[Written, Count] : StoredRefs)
      if (Refs.lookup(Written) != Count)
        return K.whyNot("it reads '" + Written->getNameAsString() +
                        "', which it stores into (the batched ops keep the "
                        "order of those reads and writes)");
    // So is a local view of one (`Tensor row = out[i];` read as `row.sum()`
    // after the region's stores into out[i]: taken as an operand, it would be
    // read before them).
    for (const auto &[Var, Count] : Refs)
      if (!StoredRefs.count(Var) && mayViewStored(Var))
        return K.whyNot("it reads '" + Var->getNameAsString() +
                        "', which may share elements with a tensor it "
                        "stores into");
    // A region ending in a store of a value into a slot the region does not
    // compute is the kernel of that value (it keeps its device text).
    if (const CXXOperatorCallExpr *Last =
            Root ? nullptr : elementStore(Region.back()))
      if (!K.mentionsDeclared(Last->getArg(0), Chain))
        return std::nullopt;
    // Else the batched ops are already one op per statement: a kernel pays
    // where the region has per-example control flow, or reads or stores
    // elements at indices it computes: batched, a gather (or a plain loop's
    // trip) is one op per element over every example; the kernel reads
    // (stores) the element where it is. A kernel that only stores pays where
    // it stores many elements (a loop) or at indices it computes; one store
    // of a value per example is already one batched op.
    const bool Control =
        llvm::any_of(Region,
                     [&](const Stmt *S) { return holdsPerExampleControl(S); }) ||
        (Root && loopsPerExample(Root));
    bool Reads = false;
    for (unsigned I = 0; I < Chain.Operands.size(); ++I)
      Reads |= Chain.ElementReads[I] && !Chain.ElementWrites[I];
    // A value computed from per-example numbers alone pays where its batched
    // form is more than one op: the kernel runs on SIMD lanes straight into
    // the store's slot (Note [Scalar kernels over rows of examples] in
    // rules/include/vmap/fused_scalar.hpp), where each batched op makes a
    // temporary; one op is already one pass over every example into the slot.
    // A value that is an operand as it is (a cast of one too) computes
    // nothing, whatever the region before it does.
    const auto IsOperand = [&](const Expr *E) {
      E = E->IgnoreParenCasts();
      return llvm::any_of(Chain.Operands, [&](const Expr *Operand) {
        return Operand->IgnoreParenCasts() == E;
      });
    };
    unsigned Ops = batchedOps(Consumed ? Consumed : Root, Chain);
    for (const Stmt *S : Region)
      Ops += batchedOps(S, Chain);
    if (Root && !ReturnsElements && IsOperand(Root))
      return K.whyNot("its value is read as it is: the kernel would compute "
                      "nothing of it");
    // Code only a kernel runs (Note [Kernel-only code] in analyse.h) has no
    // batched form to weigh the kernel against.
    const bool KernelOnly =
        llvm::any_of(Region, [&](const Stmt *S) { return holdsKernelOnly(S); }) ||
        holdsKernelOnly(Root);
    if (!KernelOnly &&
        ((Stores && !StoresPay) || (!Stores && !Control && !Reads && Ops < 2)))
      return K.whyNot("it is one op on per-example numbers, and reads or "
                      "stores no element at an index it computes: its batched "
                      "op already runs over every example at once");
    // Straight-line element reads (`int64_t k = index[i][j].item<int64_t>();
    // out[i][j] = input[i][k];`) are each one batched gather of every
    // example's element, many a row (select_by_gather); the kernel runs them
    // one example at a time (no lanes: a read may raise). It pays only with
    // several ops around them (measured, 1 thread, 1024x32 picks from rows of
    // 256: the gather 50 us, the kernel 190-290 us, a plain loop 27-54 us).
    if (!KernelOnly && !Stores && !Control && Reads &&
        Ops < kOpsAroundStraightLineReads)
      return K.whyNot("its element reads are straight-line code with few ops "
                      "around them: each is one batched gather over every "
                      "example, faster than a kernel that runs one example at "
                      "a time");
    if (!K.diesAtConsumer(Region, Root, Chain))
      return std::nullopt;
    // Its text is the device program (Note [Scalar kernels on a device] in
    // rules/include/vmap/fused_scalar.hpp) where it means there what it
    // means here: no call of the file's functions (not in the program) and
    // nothing else of the file's (portableText).
    const auto Portable = [&](const Stmt *S) {
      return !callsScalarFunction(S) && portableText(S, Chain);
    };
    // A kernel that stores elements has none: on a device its operands are
    // copied to the CPU and the stored ones back (Note [Element stores]).
    // Nor one of code only a kernel runs (a standard function the device's
    // program may not have).
    Chain.DeviceCode = !ReturnsElements && !Stores && !KernelOnly &&
                       llvm::all_of(Region, Portable) && Portable(Root);
    const bool Elements = llvm::is_contained(Chain.ElementReads, true);
    Chain.InOrder = Elements && (llvm::any_of(Region, [&](const Stmt *S) {
                                   return mayTrap(S);
                                 }) || mayTrap(Root));
    if (Root && !ReturnsElements && !Stores)
      planLanes(Chain, Root, A, Context);
    return Chain;
  }

  /// The stored value as its consumer reads it (a conversion into an
  /// accumulator's type is an op of the kernel), or null.
  const Expr *Consumed = nullptr;

private:
  const KernelChoice &K;
  const LoopAnalysis &A;
  ASTContext &Context;
  const FusionPlan &Result;
  /// Functions the kernels may call as written (isScalarFunction), and how
  /// deep in such calls the check is.
  llvm::DenseMap<const FunctionDecl *, bool> &ScalarFunctions;
  unsigned ScalarDepth = 0;
  /// Of the region being built: whether it stores elements, whether a store
  /// pays (one in a loop, or at an index that reads its locals), each
  /// stored-into tensor's number of stores, and the loops around the
  /// statement being collected.
  bool Stores = false;
  bool StoresPay = false;

  unsigned LoopDepth = 0;
  llvm::DenseMap<const VarDecl *, unsigned> StoredRefs;
};

} // namespace

std::optional<FusedChain>
ScalarKernels::longest(const Expr *Consumed, const Expr *Destination,
                       ArrayRef<const Stmt *> Before) {
  ScalarRegion Region(Choice, ScalarFunctions);
  Region.Consumed = Consumed;
  const Expr *Root = stripImplicit(Consumed);
  std::size_t First = Before.size();
  while (First > 0 && Region.mayBeInScalarRegion(Before[First - 1], 0))
    --First;
  for (std::size_t Start = First; Start < Before.size(); ++Start)
    if (std::optional<FusedChain> Chain =
            Region.buildScalar(Root, Destination, Before.drop_front(Start)))
      return Chain;
  // No statement: the stored value alone (an element read alone is a
  // batched gather already).
  return Region.buildScalar(Root, Destination, {});
}

std::optional<FusedChain>
ScalarKernels::storing(const Stmt *Last, ArrayRef<const Stmt *> Before) {
  ScalarRegion Region(Choice, ScalarFunctions);
  if (!Region.holdsStore(Last) || !Region.mayBeInScalarRegion(Last, 0))
    return std::nullopt;
  llvm::SmallVector<const Stmt *, 16> Statements(Before);
  Statements.push_back(Last);
  std::size_t First = Before.size();
  while (First > 0 && Region.mayBeInScalarRegion(Before[First - 1], 0))
    --First;
  for (std::size_t Start = First; Start < Statements.size(); ++Start)
    if (std::optional<FusedChain> Chain = Region.buildScalar(
            nullptr, nullptr, ArrayRef(Statements).drop_front(Start)))
      return Chain;
  return std::nullopt;
}

} // namespace clang_vmap::fuse_detail
