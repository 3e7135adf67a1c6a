//===- emit_expr.cpp - Print the expressions of a batched body ------------===//
//
// Note [Printing by splicing]
// An expression is printed as its own source text with the text of each
// child replaced by the child's printed text; only the forms that change
// (vb::at, vb:: calls, casts of per-example scalars, masks) are printed from
// scratch. So loop-invariant code, comments inside expressions and the
// user's spelling survive unchanged.
//
// Here: the text of expressions (splicing, macros), calls by their lowering,
// the forms printed from scratch (vb::at, casts, unsigned forms), and which
// operands may raise or write, so that they run under a mask.
//
//===----------------------------------------------------------------------===//

#include "emit_printer.h"
#include "ast_util.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <vmap/rules/op_table.hpp>

using namespace clang;

namespace clang_vmap {
namespace {


bool hasFreeForm(StringRef Name) {
  return vmap::rules::find_op(Name, vmap::rules::OpForm::free_function) !=
         vmap::rules::kNoOp;
}

} // namespace

namespace emit_detail {

//===-- expressions -------------------------------------------------------===//

// Note [Macros]: an expression maps to file text when it is spelled in one
// macro argument, or is a whole macro expansion (then the text is the
// invocation); tokens from a macro body map to nothing. Changes go into the
// text of the nearest node that maps; a node that does not map is printed as
// it expanded (printPretty) when nothing below it changes, and the loop is
// refused when something must change in a macro body.
bool Printer::offsets(SourceRange Range, unsigned &Begin, unsigned &End,
                      FileID *File) {
  if (Range.isInvalid())
    return false;
  CharSourceRange Chars = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Range), SM, Context.getLangOpts());
  if (Chars.isInvalid() ||
      SM.getFileID(Chars.getBegin()) != SM.getFileID(Chars.getEnd()))
    return false;
  Begin = SM.getFileOffset(Chars.getBegin());
  End = SM.getFileOffset(Chars.getEnd());
  if (File)
    *File = SM.getFileID(Chars.getBegin());
  return Begin <= End;
}

std::string Printer::original(const Expr *E) {
  unsigned Begin, End;
  FileID File;
  if (!offsets(E->getSourceRange(), Begin, End, &File)) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    E->printPretty(OS, nullptr, Context.getPrintingPolicy());
    return Text;
  }
  return SM.getBufferData(File).slice(Begin, End).str();
}

void Printer::collectEdits(const Expr *E, std::vector<Edit> &Edits) {
  if (isa<CXXDefaultArgExpr>(E))
    return;
  unsigned Begin, End;
  if (offsets(E->getSourceRange(), Begin, End)) {
    std::string Text = expr(E);
    if (Text != original(E))
      Edits.push_back({Begin, End, std::move(Text)});
    return;
  }
  if (fromScratch(E)) {
    fail("per-example code spelled inside a macro body must change here",
         E->getSourceRange());
    return;
  }
  const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
  for (const Stmt *Child : E->children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      if (!Operator || ChildExpr != Operator->getCallee())
        collectEdits(ChildExpr, Edits);
}

std::string Printer::splice(SourceRange Range, std::vector<Edit> Edits) {
  unsigned Begin, End;
  FileID File;
  if (!offsets(Range, Begin, End, &File))
    return sourceText(Context, Range).str();
  StringRef Buffer = SM.getBufferData(File);
  // (Stable: an insertion before an edit at the same place stays before it.)
  llvm::stable_sort(Edits,
                    [](const Edit &L, const Edit &R) { return L.Begin < R.Begin; });
  std::string Text;
  unsigned Position = Begin;
  const Edit *Previous = nullptr;
  for (const Edit &E : Edits) {
    // One macro argument expanded twice gives the same edit twice.
    if (Previous && E.Begin == Previous->Begin && E.End == Previous->End &&
        E.Text == Previous->Text)
      continue;
    if (E.Begin < Position || E.End > End) {
      fail("a macro argument would change in two different ways", Range);
      continue;
    }
    Previous = &E;
    Text += Buffer.slice(Position, E.Begin).str();
    Text += E.Text;
    Position = E.End;
  }
  Text += Buffer.slice(Position, End).str();
  return Text;
}

std::string Printer::spliceChildren(const Expr *E) {
  std::vector<Edit> Edits;
  const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
  for (const Stmt *Child : E->children()) {
    const auto *ChildExpr = dyn_cast_or_null<Expr>(Child);
    if (!ChildExpr || (Operator && ChildExpr == Operator->getCallee()))
      continue; // the operator token is never rewritten
    collectEdits(ChildExpr, Edits);
  }
  unsigned Begin, End;
  if (!offsets(E->getSourceRange(), Begin, End)) {
    if (!Edits.empty())
      fail("per-example code inside a macro expansion cannot be rewritten",
           E->getSourceRange());
    return original(E);
  }
  // `x[i].sum().item<int64_t>()` in a template: its object printed anew
  // (`vb::fused(...).sum()`) may have a type that depends on the template's
  // parameters, where `item<` would parse as a less-than: C++ then needs
  // `.template item<int64_t>()`.
  if (const auto *Member = dyn_cast<MemberExpr>(E);
      Member && !Edits.empty() && Member->hasExplicitTemplateArgs() &&
      !Member->hasTemplateKeyword() && inTemplate()) {
    unsigned Name, NameEnd;
    if (offsets(SourceRange(Member->getMemberLoc()), Name, NameEnd))
      Edits.push_back({Name, Name, "template "});
  }
  return splice(E->getSourceRange(), std::move(Edits));
}

/// Whether the text printed lands in a template (Note [Loops in templates]):
/// the function printed is a specialization of one.
bool Printer::inTemplate() const {
  const FunctionDecl *Function = A.Loop ? A.Loop->Function : A.Callee;
  return Function && Function->getTemplateInstantiationPattern();
}

std::string Printer::args(llvm::ArrayRef<const Expr *> Args) {
  std::string Text;
  for (const Expr *Arg : Args) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    if (!Text.empty())
      Text += ", ";
    Text += expr(Arg);
  }
  return Text;
}

std::string Printer::perExample(const CallExpr *Call) {
  // vb::per_example("f", [&](std::vector<::vmap::Tensor> _b_args) {
  //   return f(_b_args[0], invariant); }, {batched...})
  llvm::SmallVector<const Expr *, 4> Operands;
  std::string Callee;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  if (Member)
    Operands.push_back(Member->getImplicitObjectArgument());
  for (const Expr *Arg : Call->arguments())
    Operands.push_back(Arg);
  std::string Batched, Inner;
  unsigned NumBatched = 0;
  auto Operand = [&](const Expr *E) {
    if (!batched(E))
      return expr(E);
    if (!Batched.empty())
      Batched += ", ";
    Batched += expr(E);
    return ArgsName + "[" + std::to_string(NumBatched++) + "]";
  };
  std::string Name = calleeName(Call);
  if (Member) {
    Inner = Operand(Operands[0]) + "." + Name + "(";
  } else {
    Inner = sourceText(Context, Call->getCallee()->getSourceRange()).str() + "(";
  }
  bool First = true;
  for (unsigned I = Member ? 1 : 0; I < Operands.size(); ++I) {
    if (isa<CXXDefaultArgExpr>(Operands[I]))
      continue;
    if (!First)
      Inner += ", ";
    First = false;
    Inner += Operand(Operands[I]);
  }
  Inner += ")";
  return vb("per_example(\"") + Name +
         "\", [&](std::vector<::vmap::Tensor> " + ArgsName + ") { return " +
         Inner +
         "; }, {" + Batched + "})";
}

std::string Printer::call(const CallExpr *Call, Lowering How) {
  std::string Name = calleeName(Call);
  switch (How) {
  case Lowering::AsWritten:
    return spliceChildren(Call);
  case Lowering::At: {
    const auto *Operator = cast<CXXOperatorCallExpr>(Call);
    if (isTensorType(Operator->getArg(1)->getType()))
      return vb("Value(") + expr(Operator->getArg(0)) + ")[" +
             expr(Operator->getArg(1)) + "]";
    return vb("at(") + expr(Operator->getArg(0)) + ", " +
           expr(Operator->getArg(1)) + ")";
  }
  case Lowering::Qualified: {
    llvm::SmallVector<const Expr *, 4> Args(Call->arguments());
    return vb("") + Name + "(" + args(Args) + ")";
  }
  case Lowering::MemberAsFree: {
    const auto *Member = cast<CXXMemberCallExpr>(Call);
    llvm::SmallVector<const Expr *, 4> Args(Member->arguments());
    std::string Object = expr(Member->getImplicitObjectArgument());
    if (hasFreeForm(Name) || Name == "select") { // vb::select is a place
      std::string Rest = args(Args);
      return vb("") + Name + "(" + Object + (Rest.empty() ? "" : ", ") + Rest +
             ")";
    }
    return vb("Value(") + Object + ")." + Name + "(" + args(Args) + ")";
  }
  case Lowering::PerExample:
    return perExample(Call);
  case Lowering::UserRule: {
    // Note [User batching rules] (vmap/vmap.hpp): the arguments of the
    // batched function's Tensor parameters stacked, the others as written
    // (loop-invariant: batch() refused the rest).
    const FunctionDecl *Batched = Plan.UserRules.lookup(Call);
    std::string Args;
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      std::string Arg = expr(Call->getArg(I));
      if (isTensorType(Batched->getParamDecl(I)->getType()))
        Arg = vb("stacked(") + Arg + ")";
      Args += (I == 0 ? "" : ", ") + Arg;
    }
    const DeclContext *Scope = Batched->getDeclContext()->getRedeclContext();
    bool Qualify = Scope->isFileContext() && !Scope->isInlineNamespace() &&
                   llvm::none_of(Batched->getQualifiedNameAsString(),
                                 [](char C) { return C == '('; });
    std::string Name = (Qualify ? "::" + Batched->getQualifiedNameAsString()
                                : Batched->getNameAsString());
    return vb("unstacked<") +
           qualifiedTypeName(Call->getDirectCallee()->getReturnType(),
                             Context) +
           ">(\"" + Batched->getNameAsString() + "\", " + Name + "(" + Args +
           "))";
  }
  case Lowering::Clone: {
    // Note [Helpers in kernels] in fuse_helpers.cpp.
    if (Kernel && HelpersInKernels->count(Call))
      return inlinedHelper(Call);
    llvm::SmallVector<const Expr *, 4> Args(parameterArguments(Call));
    // A member's clone is a member: `obj.f(x)` calls `obj._b_f(x)`,
    // `Class::f(x)` calls `Class::_b_f(x)`.
    std::string Object;
    const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
    if (const auto *Member = dyn_cast<MemberExpr>(Callee)) {
      if (!Member->isImplicitAccess())
        Object = expr(Member->getBase()) + (Member->isArrow() ? "->" : ".");
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(Callee)) {
      if (isa<CXXMethodDecl>(Ref->getDecl()))
        Object = sourceText(Context, Ref->getQualifierLoc().getSourceRange())
                     .str();
    }
    const BatchPlan *Clone = Plan.CloneOf.lookup(Call);
    return Object +
           Names.name(Call->getDirectCallee(), Clone->Analysis.BatchedParams) +
           "(" + args(Args) + ")";
  }
  }
  llvm_unreachable("unknown lowering");
}

/// A `+`, `-` or `*` of unsigned integers, which C++ wraps around (Note
/// [Unsigned per-example integers] in batched.hpp): printed as a scalar_cast
/// to its type.
static bool wrapsAround(const Expr *E) {
  QualType T = E->getType();
  if (!T->isUnsignedIntegerType() || T->isBooleanType())
    return false;
  if (const auto *Binary = dyn_cast<BinaryOperator>(E))
    return Binary->getOpcode() == BO_Add || Binary->getOpcode() == BO_Sub ||
           Binary->getOpcode() == BO_Mul;
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    return Unary->getOpcode() == UO_Minus;
  return false;
}

/// The type of \p Cast as spelled in the source: `T` in a function template,
/// also when printing one of its specializations (Note [Loops in templates]).
std::string Printer::writtenType(const ExplicitCastExpr *Cast) {
  if (const TypeSourceInfo *Written = Cast->getTypeInfoAsWritten()) {
    StringRef Text =
        sourceText(Context, Written->getTypeLoc().getSourceRange());
    if (!Text.empty())
      return Text.str();
  }
  return Cast->getTypeAsWritten().getAsString(Context.getPrintingPolicy());
}

std::string Printer::expr(const Expr *E) {
  if (!E)
    return "";
  if (std::optional<std::string> Text = fromScratch(E))
    return std::move(*Text);
  return spliceChildren(E);
}

/// The forms printed anew rather than spliced from the source (Note [Printing
/// by splicing]); std::nullopt for the others.
std::optional<std::string> Printer::fromScratch(const Expr *E) {
  if (std::optional<std::string> Text = fused(E))
    return Text;
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    auto It = Plan.Calls.find(Call);
    if (It != Plan.Calls.end() && It->second != Lowering::AsWritten)
      return call(Call, It->second);
    return std::nullopt;
  }
  if (!batched(E))
    return std::nullopt;
  if (std::optional<std::string> Text = unsignedForm(E))
    return Text;
  if (wrapsAround(E))
    return vb("scalar_cast<") +
           E->getType().getCanonicalType().getAsString(
               Context.getPrintingPolicy()) +
           ">(" + spliceChildren(E) + ")";
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E))
    if (isArithmeticConversion(Cast, Context))
      return vb("scalar_cast<") +
             Cast->getType().getCanonicalType().getAsString(
                 Context.getPrintingPolicy()) +
             ">(" + expr(Cast->getSubExpr()) + ")";
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
    if (isScalarType(Cast->getType()))
      return vb("scalar_cast<") + writtenType(Cast) + ">(" +
             expr(Cast->getSubExprAsWritten()) + ")";
  if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
    if (Unary->getOpcode() == UO_LNot)
      return vb("logical_not(") + expr(Unary->getSubExpr()) + ")";
    // `k++` whose value is used (`while (k++ < n)`) is the value before the
    // step; `++k`, the variable after it.
    if (Unary->isIncrementDecrementOp()) {
      bool Increment = Unary->isIncrementOp();
      std::string Step =
          expr(Unary->getSubExpr()) + (Increment ? " += 1" : " -= 1");
      if (E == DiscardedValue)
        return Step;
      if (Unary->isPrefix())
        return "(" + Step + ")";
      return vb(Increment ? "post_increment(" : "post_decrement(") +
             expr(Unary->getSubExpr()) + ")";
    }
  }
  // Note [Masked operands] in batched.hpp: an operand C++ may skip is passed
  // as a lambda where evaluating it for every example could raise or write,
  // or where what C++ evaluates before it writes.
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (Binary->isLogicalOp()) {
      const Expr *Rhs = Binary->getRHS();
      return vb(Binary->getOpcode() == BO_LAnd ? "logical_and("
                                               : "logical_or(") +
             expr(Binary->getLHS()) + ", " +
             (masked(Rhs) || writes(Binary->getLHS()) ? maskedOperand(Rhs)
                                                      : expr(Rhs)) +
             ")";
    }
  }
  if (const auto *Conditional = dyn_cast<ConditionalOperator>(E)) {
    const Expr *Then = Conditional->getTrueExpr();
    const Expr *Else = Conditional->getFalseExpr();
    if (batched(Conditional->getCond())) {
      bool Masked =
          masked(Then) || masked(Else) || writes(Conditional->getCond());
      return vb("where(") + expr(Conditional->getCond()) + ", " +
             (Masked ? maskedOperand(Then) : expr(Then)) + ", " +
             (Masked ? maskedOperand(Else) : expr(Else)) + ")";
    }
    return "(" + expr(Conditional->getCond()) + " ? " + vb("Value(") +
           expr(Conditional->getTrueExpr()) + ") : " + vb("Value(") +
           expr(Conditional->getFalseExpr()) + "))";
  }
  return std::nullopt;
}

/// Note [Unsigned per-example integers] in batched.hpp: a comparison, `/` or
/// `%` of size_t operands, or a conversion of a size_t to floating point,
/// whose int64 reading of the bits differs from C++'s value, as the runtime's
/// unsigned form; std::nullopt for the others.
std::optional<std::string> Printer::unsignedForm(const Expr *E) {
  auto Call = [&](StringRef Name, const Expr *First, const Expr *Second) {
    return vb(Name) + "(" + expr(First) + ", " + expr(Second) + ")";
  };
  if (const auto *Compound = dyn_cast<CompoundAssignOperator>(E)) {
    if (!dividesNamedSize(Compound, Context))
      return std::nullopt;
    std::string Assign =
        expr(Compound->getLHS()) + " = " +
        Call(Compound->getOpcode() == BO_DivAssign ? "unsigned_divide"
                                                   : "unsigned_remainder",
             Compound->getLHS(), Compound->getRHS());
    return E == DiscardedValue ? Assign : "(" + Assign + ")";
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (!isUnsigned64(Context, Binary->getLHS()->getType()))
      return std::nullopt;
    const Expr *L = Binary->getLHS(), *R = Binary->getRHS();
    switch (Binary->getOpcode()) {
    case BO_LT: return Call("unsigned_less", L, R);
    case BO_GT: return Call("unsigned_less", R, L);
    case BO_LE: return Call("unsigned_less_equal", L, R);
    case BO_GE: return Call("unsigned_less_equal", R, L);
    case BO_Div: return Call("unsigned_divide", L, R);
    case BO_Rem: return Call("unsigned_remainder", L, R);
    default: return std::nullopt;
    }
  }
  // `static_cast<double>(u)` holds the conversion as an implicit cast inside.
  const auto *Cast = dyn_cast<CastExpr>(E);
  if (!Cast || !Cast->getType()->isRealFloatingType())
    return std::nullopt;
  const auto *Explicit = dyn_cast<ExplicitCastExpr>(Cast);
  const Expr *From =
      Explicit ? Explicit->getSubExprAsWritten() : Cast->getSubExpr();
  if (!isUnsigned64(Context, From->getType()))
    return std::nullopt;
  return vb("from_unsigned<") +
         (Explicit ? writtenType(Explicit)
                   : Cast->getType().getCanonicalType().getAsString(
                         Context.getPrintingPolicy())) +
         ">(" + expr(From) + ")";
}

/// Whether evaluating \p E for an example that C++ would not evaluate it for
/// could raise an error (Note [Masked operands] in batched.hpp): an integer
/// `/` or `%` of per-example values, a per-example index other than an
/// induction variable, a checked `.item<T>()` conversion, or a call of a
/// function of the user's with a per-example argument. Inside a compiled
/// kernel nothing is masked.
bool Printer::mayRaise(const Expr *E) const {
  if (Kernel || !E || !batched(E))
    return false;
  E = E->IgnoreParenImpCasts();
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    BinaryOperatorKind Op = Binary->getOpcode();
    if (Op == BO_Div || Op == BO_Rem || Op == BO_DivAssign ||
        Op == BO_RemAssign) {
      QualType T = isa<CompoundAssignOperator>(Binary)
                       ? cast<CompoundAssignOperator>(Binary)
                             ->getComputationResultType()
                       : Binary->getType();
      if (T->isIntegralOrEnumerationType() && batched(Binary->getRHS()))
        return true;
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    // A call of the user's own function: its batched clone may divide or
    // index (and it takes the mask as a loop's body would).
    bool UsersFunction = Callee && !isInVmapNamespace(Callee) &&
                         !Callee->isInStdNamespace() && Callee->hasBody();
    // A runtime op whose per-example values may make it raise (the op
    // table's raises_on_values: an index, an integer divisor, ...).
    std::string Name = calleeName(Call);
    const unsigned Arguments =
        Call->getNumArgs() - (isa<CXXOperatorCallExpr>(Call) &&
                                      isa_and_nonnull<CXXMethodDecl>(Callee)
                                  ? 1
                                  : 0);
    bool Indexes = Callee && isInVmapNamespace(Callee) &&
                   vmap::rules::raises_on_values(Name, Arguments);
    // `.item<T>()` converts checked: a NaN or a value out of T's range raises
    // (only double and bool take every value).
    if (Name == "item" && Callee && isInVmapNamespace(Callee))
      if (const TemplateArgumentList *Args =
              Callee->getTemplateSpecializationArgs();
          Args && Args->size() == 1 &&
          Args->get(0).getKind() == TemplateArgument::Type) {
        QualType T = Args->get(0).getAsType().getCanonicalType();
        if (!T->isSpecificBuiltinType(BuiltinType::Double) &&
            !T->isBooleanType())
          return true;
      }
    unsigned First = isa<CXXOperatorCallExpr>(Call) &&
                             isa<CXXMethodDecl>(Callee)
                         ? 1 // the object of a member operator
                         : 0;
    for (unsigned Arg = First; Arg < Call->getNumArgs(); ++Arg) {
      const Expr *Argument = Call->getArg(Arg);
      if (!batched(Argument))
        continue;
      if (UsersFunction)
        return true;
      const VarDecl *Var = referencedVar(Argument);
      bool Induction = Var && llvm::any_of(A.Levels, [&](const VmapLevel &L) {
                         return L.Induction == Var;
                       });
      if (Indexes && !Induction)
        return true;
    }
  }
  for (const Stmt *Child : E->children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      if (!isa<LambdaExpr>(ChildExpr) && mayRaise(ChildExpr))
        return true;
  return false;
}

/// Whether evaluating \p E assigns, steps or writes in place (a tensor
/// member ending in `_`).
bool Printer::writes(const Expr *E) const {
  if (!E)
    return false;
  if (const auto *Binary = dyn_cast<BinaryOperator>(E);
      Binary && Binary->isAssignmentOp())
    return true;
  if (const auto *Unary = dyn_cast<UnaryOperator>(E);
      Unary && Unary->isIncrementDecrementOp())
    return true;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
      Operator && Operator->isAssignmentOp())
    return true;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
    if (const CXXMethodDecl *Method = Member->getMethodDecl();
        Method && vmap::rules::writes_object(Method->getNameAsString()))
      return true;
  return llvm::any_of(E->children(), [&](const Stmt *Child) {
    const auto *ChildExpr = dyn_cast_or_null<Expr>(Child);
    return ChildExpr && !isa<LambdaExpr>(ChildExpr) && writes(ChildExpr);
  });
}

/// `[&] { return e; }`: an operand run under a mask (Note [Masked operands]).
std::string Printer::maskedOperand(const Expr *E) {
  return "[&] { return " + expr(E) + "; }";
}

} // namespace emit_detail
} // namespace clang_vmap
