//===- analyse_detail.h - The analyser's state (analyse*.cpp only) --------===//
#ifndef CLANG_VMAP_ANALYSE_DETAIL_H
#define CLANG_VMAP_ANALYSE_DETAIL_H

#include "analyse.h"
#include "diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include <string>

namespace clang_vmap {
namespace detail {

/// A statement a `break`, `continue` or `return` may leave: an inner loop, a
/// `switch`, a callee's body, or a nested vmap loop (which none may leave).
struct Control {
  const clang::Stmt *S = nullptr;
  unsigned IfsAtEntry = 0; ///< how many of Scope::Ifs enclose it
};

/// Where a statement sits: its enclosing vmap levels (outermost first),
/// enclosing `if`s inside the loop, and enclosing controls; for a part of an
/// expression, the conditions that decide whether C++ evaluates it (the left
/// of `&&` / `||`, the condition of `?:`).
struct Scope {
  llvm::SmallVector<unsigned, 4> Levels;
  llvm::SmallVector<const clang::IfStmt *, 4> Ifs;
  llvm::SmallVector<Control, 2> Controls;
  llvm::SmallVector<const clang::Expr *, 2> Guards;
};

/// One indexing step of a slot: `[i]`, `.select(1, i)`, `.t()`.
struct Step {
  std::string Key;                    ///< the op and its fixed arguments
  const clang::Expr *Index = nullptr; ///< the position, if it has one
  /// narrow(d, start, n): no example's own slot, even at start = i. Windows of
  /// neighbouring examples overlap for n > 1, and the batched narrow at a
  /// per-example start is a gather, which a write would not reach.
  bool Window = false;
  const clang::Expr *Length = nullptr; ///< a window's
};

/// A variable and the path of view ops into it.
struct Access {
  const clang::VarDecl *Base = nullptr;
  llvm::SmallVector<Step, 4> Steps;
  const clang::Expr *Site = nullptr;
};

struct LocalInfo {
  unsigned Depth = 0; ///< vmap levels enclosing the declaration
  llvm::SmallVector<const clang::IfStmt *, 4> Ifs;
  llvm::SmallVector<Control, 2> Controls;
};

/// A `break`, `continue` or `return` and the control it leaves.
struct JumpSite {
  const clang::Stmt *Jump;
  const clang::Stmt *Target;
  Scope Where;
};

struct WriteEvent {
  const clang::Expr *Site;
  const clang::Expr *Value; ///< null for `++x` and in-place members
  Access Written;           ///< as spelled
  Access Resolved;          ///< through local views
  Scope Where;
};

struct ReadEvent {
  Access Read;
  Access Resolved;
  Scope Where;
};

struct ReductionSite {
  const clang::Expr *Site;
  const clang::VarDecl *Accumulator;
  ReduceOp Op;
  Scope Where;
};

bool isAllowedExpr(const clang::Expr *E);
/// std::vector, std::array, std::deque or std::span of Tensor, or a C array.
bool holdsTensors(clang::QualType T);
/// The variable or data member \p E names, if any.
const clang::NamedDecl *declOf(const clang::Expr *E);
/// A pointer to a Tensor or to a container of them.
bool pointsToTensors(clang::QualType T);
bool isViewMember(llvm::StringRef Name);
bool isInPlaceMember(llvm::StringRef Name);
/// A reference bound to an lvalue, not to a temporary (Note [Aliases in the
/// body]).
bool isBoundReference(const clang::VarDecl *Var);

class Analyser {
public:
  Analyser(clang::ASTContext &Context, llvm::ArrayRef<VmapLoop> Loops,
           unsigned Top, Diagnostics &Diags)
      : Context(Context), Loops(Loops), Top(Top), Diags(Diags) {}

  // the steps in order (analyse.cpp)
  std::optional<LoopAnalysis> run();
  std::optional<LoopAnalysis> runCallee(const clang::FunctionDecl *Callee,
                                        llvm::ArrayRef<bool> BatchedParams,
                                        Randomness Random);
  std::optional<LoopAnalysis> finish();

  // walk: statements (analyse.cpp), expressions (analyse_expr.cpp)
  bool canonicalLoop(const clang::ForStmt *For, unsigned Depth);
  /// Refuses a statement under \p Root nested too deep to analyse.
  bool checkDepth(const clang::Stmt *Root);
  bool walkStmt(const clang::Stmt *S, Scope &Where);
  bool walkDecl(const clang::DeclStmt *S, Scope &Where);
  bool walkIf(const clang::IfStmt *If, Scope &Where);
  bool walkFor(const clang::ForStmt *For, Scope &Where);
  bool walkRangeFor(const clang::CXXForRangeStmt *For, Scope &Where);
  bool walkExpr(const clang::Expr *E, Scope &Where);

  // per-example control flow (analyse_control.cpp)
  bool walkLoopOrSwitch(const clang::Stmt *S, Scope &Where);
  bool walkSwitchBody(const clang::SwitchStmt *Switch, Scope &Inner);
  bool walkJump(const clang::Stmt *Jump, Scope &Where);
  /// The levels along which examples run \p Control differently: its
  /// condition's, and those of the masks its jumps sit under.
  LevelSet controlLevels(const clang::Stmt *Control);
  LevelSet jumpLevels(const clang::Stmt *Target);
  bool checkControls();
  void findMaskedControls();

  // accesses, writes and reductions (analyse_expr.cpp; memberVar in
  // analyse_reach.cpp)
  bool walkAccessIndices(const Access &A, Scope &Where);
  bool recordWrite(const clang::Expr *Site, const clang::Expr *Target,
                   const clang::Expr *Value, Scope &Where);
  bool recordReduction(const clang::Expr *E, Scope &Where);
  struct AssignedReduction {
    ReduceOp Op;
    const clang::Expr *Value;
  };
  std::optional<AssignedReduction>
  assignedReduction(const clang::Expr *Site, const clang::Expr *Assigned,
                    const clang::VarDecl *Acc);
  std::optional<Access> accessOf(const clang::Expr *E) const;
  /// Note [Members as variables]: the variable standing for \p Member, or
  /// null.
  const clang::VarDecl *memberVar(const clang::MemberExpr *Member) const;
  /// The variable \p E names whole (a member too), or null.
  const clang::VarDecl *wholeVar(const clang::Expr *E) const;
  Access resolve(Access A) const;
  // (analyse.cpp)
  bool isInvariantAt(const clang::VarDecl *Var, const Scope &Where) const;
  unsigned depthOf(const clang::VarDecl *Var) const;

  // classify (analyse_classify.cpp: levels, maskLevels, classify,
  // findPromotedLocals, findOutputs) and check (analyse_check.cpp; the
  // aliasing questions in analyse_alias.cpp, checkUnsignedUpdates in
  // analyse_expr.cpp)
  void classify();
  LevelSet levels(const clang::Expr *E);
  LevelSet maskLevels(const Scope &Where, const clang::VarDecl *Local);
  bool checkBounds();
  bool checkWrites();
  bool checkReads();
  /// Whether read \p R stays inside the slot that write \p W writes, for
  /// every vmap level both sit in (below \p Depth, the variable's own).
  bool readsOwnSlot(const ReadEvent &R, const WriteEvent &W, unsigned Depth);
  bool checkReductions();
  bool checkContexts();
  bool checkAliasing();
  /// The variable \p Var views through the declarations of the function
  /// (`Tensor b = buf.narrow(0, 1, 4);`, `Tensor& r = out;`), with the steps
  /// into it, as far as they hold at the loop: \p Var itself where none do.
  Access rootOf(const clang::VarDecl *Var) const;
  bool checkReferences();
  bool checkUnsignedUpdates();
  /// The variable whose storage \p Var reaches through references (and
  /// Tensor copies, whose elements are shared) declared anywhere in the
  /// function (`int64_t &c = count;` before the loop): \p Var itself when it
  /// is neither.
  const clang::VarDecl *storageOf(const clang::VarDecl *Var,
                                  bool ThroughCopies) const;
  /// Whether \p W writes elements (a slot, or in place through a Tensor copy
  /// or view), not only rebinds a variable.
  bool writesElements(const WriteEvent &W) const;
  /// Whether every value \p Var holds has elements of its own.
  bool ownsElements(const clang::VarDecl *Var) const;
  void findPromotedLocals();
  void findOutputs();
  std::string stepKey(const Step &S);
  bool sameStep(const Step &A, const Step &B);
  int inductionLevel(const clang::Expr *Index) const;

  bool refuseAt(diag::Kind Kind, clang::SourceRange Range, diag::Kind Note,
                llvm::ArrayRef<std::string> Args = {});
  std::string text(const clang::Expr *E) const;

  clang::ASTContext &Context;
  llvm::ArrayRef<VmapLoop> Loops;
  unsigned Top;
  Diagnostics &Diags;
  bool Refused = false;
  std::vector<clang::SourceRange> RefusedRanges; ///< reported so far
  /// In a callee: its final `return`, the one jump it may have.
  const clang::ReturnStmt *FinalReturn = nullptr;

  LoopAnalysis Result;
  llvm::DenseMap<const clang::ForStmt *, unsigned> LoopIndex;
  llvm::DenseMap<const clang::VarDecl *, unsigned> InductionLevel;
  llvm::DenseMap<const clang::VarDecl *, LocalInfo> Locals;
  llvm::DenseMap<const clang::VarDecl *, Access> Aliases;
  mutable llvm::StringMap<const clang::VarDecl *> MemberVars;
  std::vector<std::pair<const clang::Expr *, Scope>> Statements;
  std::vector<std::pair<const clang::DeclStmt *, Scope>> Decls;
  std::vector<std::pair<const clang::IfStmt *, Scope>> Ifs;
  /// `while`, `do` and `switch` statements, and every jump out of a control.
  std::vector<std::pair<const clang::Stmt *, Scope>> LoopsAndSwitches;
  std::vector<JumpSite> Jumps;
  std::vector<std::pair<const clang::ForStmt *, Scope>> PlainLoops;
  std::vector<std::pair<const clang::CXXForRangeStmt *, Scope>> RangeLoops;
  llvm::DenseSet<const clang::VarDecl *> RangeVars; ///< their loop variables
  /// Containers of tensors the loop reads elements of (`weights[k]`, a range
  /// of a range-based `for`): checked for overlap with the outputs.
  llvm::SmallVector<const clang::VarDecl *, 2> TensorContainers;
  void readsContainer(const clang::Expr *Container);
  /// A Tensor (or container of them) data member the loop reads, or one it
  /// reads through a pointer, by the name the overlap guard gives it (Note
  /// [Every tensor the loop reaches]).
  struct ReachedMember {
    std::string Name; ///< `this->W_`, `layer.bias`, `(*W)`
    const clang::Expr *Site;
    const clang::NamedDecl *Decl; ///< the member or the pointer
    bool Container;
  };
  std::vector<ReachedMember> ReachedMembers;
  bool readsMember(const clang::MemberExpr *Member);
  bool readsThroughPointer(const clang::Expr *E);
  /// How code just before the loop names what \p E names in it: `this`, a
  /// variable declared outside the loop, members of these; else nothing.
  std::optional<std::string> nameBeforeLoop(const clang::Expr *E) const;
  std::vector<std::pair<unsigned, Scope>> Bounds; ///< level, scope outside it
  std::vector<std::pair<const clang::CallExpr *, Scope>> Calls;
  std::vector<WriteEvent> Writes;
  std::vector<ReadEvent> Reads;
  std::vector<ReductionSite> ReductionSites;
  llvm::DenseSet<const clang::Expr *> AccumulatorRefs;
  llvm::DenseMap<const clang::Expr *, LevelSet> Memo;
  /// Under randomness(different), each random draw and the levels around it:
  /// every example there draws its own numbers.
  llvm::DenseMap<const clang::Expr *, LevelSet> RandomDraws;
};

// Defined in analyse_check.cpp; shared with analyse_classify.cpp and
// analyse_alias.cpp.
/// A tensor made by a factory in its declaration: it shares storage with
/// nothing else.
bool isFreshTensor(const clang::VarDecl *Var);
/// Whether \p S assigns to \p Var.
bool isAssignedIn(const clang::Stmt *S, const clang::VarDecl *Var);
/// `v = e;`: a write that rebinds the variable \p Var itself.
bool isRebinding(const WriteEvent &W, const clang::VarDecl *Var);

} // namespace detail
} // namespace clang_vmap

#endif
