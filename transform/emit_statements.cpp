//===- emit_statements.cpp - Print the statements of a batched body -------===//
//
// The Printer's statements (Note [Printing by splicing] in emit_expr.cpp):
// declarations and promoted locals, the vmap levels and plain loops, stores,
// accumulations and the rest, each one line of the batched body.
//
//===----------------------------------------------------------------------===//

#include "emit_printer.h"
#include "ast_util.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;

namespace clang_vmap {
namespace {

const char *reduceName(ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Add: return "Reduce::add";
  case ReduceOp::Sub: return "Reduce::sub";
  case ReduceOp::Mul: return "Reduce::mul";
  case ReduceOp::Max: return "Reduce::max";
  case ReduceOp::Min: return "Reduce::min";
  case ReduceOp::FMax: return "Reduce::fmax";
  case ReduceOp::FMin: return "Reduce::fmin";
  }
  llvm_unreachable("unknown reduction");
}

} // namespace

namespace emit_detail {

void Printer::line(unsigned Indent, const std::string &Text,
                   const Stmt *Origin, bool Profiled) {
  if (Origin) // Note [Line directives]
    Out += lineDirective(Context, lineOf(Context, Origin->getBeginLoc())) + "\n";
  Out += std::string(Indent, ' ');
  // On the line of the #line directive, so that it names the statement's
  // first line (Note [Profiled statements] in rules/include/vmap/profile.hpp).
  // Not in a batched clone (a call counts toward the calling statement), nor
  // in a fused kernel's body (it runs per element).
  if (Origin && Profiled && A.Loop && !Kernel)
    Out += vb("profile_line(); ");
  Out += Text;
  if (Origin) {
    unsigned Line = lineOf(Context, Origin->getBeginLoc());
    auto Region = Plan.Fusion.RegionStarts.find(Origin);
    if (Region != Plan.Fusion.RegionStarts.end() && !Kernel)
      Out += "  // lines " +
             std::to_string(lineOf(Context, Region->second->getBeginLoc())) +
             "-" + std::to_string(Line);
    else
      Out += "  // line " + std::to_string(Line);
  }
  Out += "\n";
}

// A batched scalar local keeps its declared C++ type: `float acc = 0;` must
// not become an integer Value because its initialiser is the literal 0.
std::string Printer::scalarInit(const VarDecl *Var, const Expr *Init) {
  const Expr *Written = Init->IgnoreImpCasts();
  QualType Declared = Var->getType().getNonReferenceType().getUnqualifiedType();
  auto Levels = A.BatchedVars.find(Var);
  if (Levels == A.BatchedVars.end() || !Levels->second || batched(Init) ||
      !isScalarType(Declared))
    return expr(Init);
  // `double h{3};`, `double h = {3};`: the braces stay, around the number
  // converted as they convert it
  // (`double s{};` is 0.)
  if (const auto *List = dyn_cast<InitListExpr>(Written);
      List && List->getNumInits() <= 1)
    return "{" + vb("scalar_cast<") +
           Declared.getAsString(Context.getPrintingPolicy()) + ">(" +
           (List->getNumInits() ? expr(List->getInit(0)->IgnoreImpCasts())
                                : std::string("0")) +
           ")}";
  // `T acc = 0;` in a template is cast to `T` in every specialization, so
  // all of them print the same text (Note [Loops in templates]).
  if (Declared->getAs<SubstTemplateTypeParmType>() &&
      Var->getTypeSourceInfo()) {
    StringRef Spelled = sourceText(
        Context,
        Var->getTypeSourceInfo()->getTypeLoc().getUnqualifiedLoc().getSourceRange());
    if (!Spelled.empty())
      return vb("scalar_cast<") + Spelled.str() + ">(" + expr(Written) + ")";
  }
  if (Context.hasSameUnqualifiedType(Written->getType(), Declared))
    return expr(Init);
  return vb("scalar_cast<") +
         Declared.getAsString(Context.getPrintingPolicy()) + ">(" +
         expr(Written) + ")";
}

std::string Printer::batchedType(QualType T) const {
  if (!isTensorTupleType(T))
    return vb("Value");
  const auto *Tuple = cast<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  std::string Elements;
  for (unsigned I = 0; I < Tuple->getTemplateArgs()[0].pack_size(); ++I)
    Elements += (I ? ", " : "") + vb("Value");
  return "std::tuple<" + Elements + ">";
}

std::string Printer::decl(const DeclStmt *S) {
  std::vector<Edit> Edits;
  for (const Decl *D : S->decls()) {
    const auto *Var = dyn_cast<VarDecl>(D);
    if (!Var)
      continue;
    auto Levels = A.BatchedVars.find(Var);
    // In a kernel, a Tensor local holds an element or a batched value.
    bool InKernel = Kernel && isTensorType(Var->getType());
    if (((Levels != A.BatchedVars.end() && Levels->second) || InKernel) &&
        Var->getTypeSourceInfo()) {
      TypeLoc Written = Var->getTypeSourceInfo()->getTypeLoc();
      TypeLoc Type = Written;
      while (auto Reference = Type.getAs<ReferenceTypeLoc>())
        Type = Reference.getPointeeLoc();
      Type = Type.getUnqualifiedLoc();
      unsigned Begin, End;
      if (isTensorTupleType(Var->getType()) && Type.getAs<AutoTypeLoc>()) {
        // `auto [values, indices] = ...`: the tuple of Values vb:: returns.
      } else if (Written.getAs<RValueReferenceTypeLoc>() &&
                 Type.getAs<AutoTypeLoc>() &&
                 Var->getType()->isLValueReferenceType() && !InKernel &&
                 offsets(Written.getSourceRange(), Begin, End)) {
        // `auto&& r = row;` binds an lvalue: `const Tensor&` becomes
        // `const vb::Value&` (`vb::Value&&` would not bind to it).
        bool Const = Var->getType().getNonReferenceType().isConstQualified();
        Edits.push_back({Begin, End, (Const ? "const " : "") + vb("Value&")});
      } else if (offsets(Type.getSourceRange(), Begin, End) &&
          llvm::none_of(Edits, [&](const Edit &E) { return E.Begin == Begin; }))
        Edits.push_back({Begin, End, InKernel ? "auto" : batchedType(Var->getType())});
      else if (!offsets(Type.getSourceRange(), Begin, End))
        fail("the type of '" + Var->getNameAsString() + "' is in a macro");
    }
    if (const Expr *Init = Var->getInit()) {
      unsigned Begin, End;
      if (offsets(Init->getSourceRange(), Begin, End)) {
        std::string Text = scalarInit(Var, Init);
        if (Text != sourceText(Context, Init->getSourceRange()))
          Edits.push_back({Begin, End, std::move(Text)});
      }
    } else if (Levels != A.BatchedVars.end() && Levels->second &&
               isScalarType(Var->getType()) && !Var->getType()->isReferenceType()) {
      // `double h;` holds a double from the start (its first assignment,
      // `h = 3`, converts): any value, of its type.
      unsigned Begin, End;
      if (offsets(SourceRange(Var->getLocation()), Begin, End))
        Edits.push_back({End, End,
                         " = " + vb("scalar_cast<") +
                             Var->getType().getUnqualifiedType().getAsString(
                                 Context.getPrintingPolicy()) +
                             ">(0)"});
    }
  }
  return splice(S->getSourceRange(), std::move(Edits));
}

// Note [Promoted locals]: `Tensor f = zeros({3});` in the body is one tensor
// shared by every example until it is rebound; before the body writes into it
// per example (`f[0] = x[i].sum();`) it becomes one copy per example (after
// its declaration, and after `f = zeros({3});` rebinds it again). `where`
// on a condition true for every example of the enclosing levels makes them.
void Printer::promote(const VarDecl *Var, unsigned Indent, bool AtDeclaration) {
  auto Levels = A.PromotedLocals.find(Var);
  if (Levels == A.PromotedLocals.end())
    return;
  // `Tensor f;` holds no tensor yet: its first assignment promotes it.
  const auto *Init =
      dyn_cast_or_null<CXXConstructExpr>(stripImplicit(Var->getInit()));
  if (AtDeclaration && Init && Init->getNumArgs() == 0)
    return;
  std::string Everyone;
  for (const VmapLevel &Level : A.Levels) {
    if (!(Levels->second & (LevelSet(1) << &Level - A.Levels.data())))
      continue;
    std::string Index = Level.Induction->getNameAsString();
    Everyone += (Everyone.empty() ? "" : " && ") + Index + " == " + Index;
  }
  if (Everyone.empty()) {
    fail("'" + Var->getNameAsString() +
         "' is made in a called function and written per example");
    return;
  }
  std::string Name = Var->getNameAsString();
  line(Indent,
       Name + " = " + vb("where(") + Everyone + ", " + Name + ", " + Name +
           ");  // clang-vmap: one '" + Name + "' per example",
       nullptr);
}

/// With \p Frame, the loop's condition differs per example: it goes through
/// the frame's next() (Note [Control masks]).
std::string Printer::forHeader(const ForStmt *For, const std::string &Frame) {
  std::vector<Edit> Edits;
  unsigned Begin, End;
  if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit())) {
    if (offsets(Init->getSourceRange(), Begin, End))
      Edits.push_back({Begin, End, decl(Init)});
  } else if (const auto *Init = dyn_cast_or_null<Expr>(For->getInit())) {
    if (offsets(Init->getSourceRange(), Begin, End))
      Edits.push_back({Begin, End, expr(Init)});
  }
  DiscardedValue = For->getInc();
  for (const Expr *Part : {For->getCond(), For->getInc()})
    if (Part && offsets(Part->getSourceRange(), Begin, End))
      Edits.push_back({Begin, End,
                       Part == For->getCond() && !Frame.empty()
                           ? Frame + ".next(" + expr(Part) + ")"
                           : expr(Part)});
  return splice(SourceRange(For->getForLoc(), For->getRParenLoc()),
                std::move(Edits));
}

void Printer::block(const Stmt *S, unsigned Indent) {
  // The children of a compound statement, or one statement, one level in.
  if (const auto *Compound = dyn_cast_or_null<CompoundStmt>(S)) {
    for (const Stmt *Child : Compound->body())
      stmt(Child, Indent);
    return;
  }
  stmt(S, Indent);
}

void Printer::level(const ForStmt *For, unsigned Indent, bool TopLevel) {
  const VmapLevel *Level = A.levelOf(For);
  std::string Pad(Indent, ' ');
  std::string Name = freshName("_b_level" + std::to_string(Level->Depth), Taken);
  if (TopLevel) {
    Out += Pad + "{ // clang-vmap: batched from line " +
           std::to_string(lineOf(Context, For->getBeginLoc())) + "\n";
    Out += Pad + "  namespace " + Alias + " = ::vmap::batched;\n";
    // The loop's clause, for its draws and those of the clones it calls.
    if (A.Random != Randomness::Refused)
      Out += Pad + "  " + vb("RandomDraws ") +
             freshName("_b_randomness", Taken) + "(" + vb("Randomness::") +
             (A.Random == Randomness::Different ? "different" : "same") +
             ");\n";
  } else {
    Out += Pad + "{\n";
  }
  std::string Bound = expr(Level->Bound);
  if (Level->Inclusive)
    Bound = "(" + Bound + ") + 1";
  line(Indent + 2,
       vb("Level ") + Name + "(" + expr(Level->Start) + ", " + Bound + ");",
       For);
  Out += Pad + "  const " + vb("Value ") + Level->Induction->getNameAsString() +
         " = " + Name + ".index();\n";
  block(For->getBody(), Indent + 2);
  Out += Pad + "}\n";
}

void Printer::stmt(const Stmt *S, unsigned Indent) {
  // A kernel that stores elements, at its region's last statement.
  if (auto Stores = Plan.Fusion.StatementKernels.find(S);
      S && !Kernel && Stores != Plan.Fusion.StatementKernels.end()) {
    StatementIndent = Indent;
    const FusedChain &Chain = Stores->second;
    if (Chain.Slot) // Note [Slot runs] in fuse_slot.cpp
      return line(Indent,
                  expr(Chain.Slot) + " = " + kernel(nullptr, Chain) + ";", S);
    return line(Indent, scalarKernel(nullptr, Chain) + ";", S);
  }
  // A region's statements are printed in their kernel (Printer::kernel).
  if (!S || isa<NullStmt>(S) || (!Kernel && Plan.Fusion.InRegions.count(S)) ||
      control(S, Indent))
    return;
  StatementIndent = Indent;
  std::string Pad(Indent, ' ');
  if (const auto *Compound = dyn_cast<CompoundStmt>(S)) {
    Out += Pad + "{\n";
    block(Compound, Indent + 2);
    Out += Pad + "}\n";
    return;
  }
  if (const auto *Declaration = dyn_cast<DeclStmt>(S)) {
    line(Indent, decl(Declaration), S);
    for (const Decl *D : Declaration->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D))
        promote(Var, Indent, /*AtDeclaration=*/true);
    return;
  }
  if (const auto *For = dyn_cast<ForStmt>(S)) {
    if (A.levelOf(For))
      return level(For, Indent, false);
    line(Indent, forHeader(For) + " {", S);
    block(For->getBody(), Indent + 2);
    Out += Pad + "}\n";
    return;
  }
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(S)) {
    // Its range is loop-invariant (analyse_check.cpp): the header as written.
    line(Indent,
         sourceText(Context, SourceRange(Range->getForLoc(),
                                         Range->getRParenLoc()))
                 .str() +
             " {",
         S);
    block(Range->getBody(), Indent + 2);
    Out += Pad + "}\n";
    return;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (!A.MaskedIfs.count(If)) {
      line(Indent, "if (" + expr(If->getCond()) + ") {", S);
      block(If->getThen(), Indent + 2);
      if (If->getElse()) {
        Out += Pad + "} else {\n";
        block(If->getElse(), Indent + 2);
      }
      Out += Pad + "}\n";
      return;
    }
    std::string Where =
        freshName("_b_where" + std::to_string(NumWheres++), Taken);
    line(Indent, "{ " + vb("Where ") + Where + "(" + expr(If->getCond()) + ");", S);
    stmt(If->getThen(), Indent + 2);
    if (If->getElse()) {
      Out += Pad + "  " + Where + ".flip();\n";
      stmt(If->getElse(), Indent + 2);
    }
    Out += Pad + "}\n";
    return;
  }
  if (const auto *Return = dyn_cast<ReturnStmt>(S))
    return line(Indent, "return " + expr(Return->getRetValue()) + ";", S);
  if (const auto *E = dyn_cast<Expr>(S)) {
    auto Reduction = A.Reductions.find(E);
    if (Reduction != A.Reductions.end()) {
      const clang_vmap::Reduction &R = Reduction->second;
      return line(Indent,
                  vb(R.Rebinds ? "accumulate_rebinding(" : "accumulate(") +
                      expr(R.Accumulator) + ", " +
                      expr(R.Value) + ", " + vb(reduceName(R.Op)) + ");",
                  S);
    }
    DiscardedValue = E;
    line(Indent, expr(E) + ";", S);
    auto Promoting = A.PromotingAssignments.find(stripImplicit(E));
    if (Promoting != A.PromotingAssignments.end())
      promote(Promoting->second, Indent, /*AtDeclaration=*/false);
    return;
  }
  fail(Twine("cannot print '") + S->getStmtClassName() + "'");
}

} // namespace emit_detail
} // namespace clang_vmap
