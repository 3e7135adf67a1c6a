//===- emit.cpp - Print the batched C++ of a vmap loop --------------------===//
//
// The Printer's loop (run(): the block that replaces the pragma and the loop,
// with the overlap guard's copy of the loop as written) and its batched
// clones of called functions (clone(), Note [Clones of function templates]),
// their names by role (Note [Clones in several roles]), and emit() itself.
// Expressions are printed by splicing (emit_expr.cpp), statements in
// emit_statements.cpp, emit_control.cpp and emit_kernel.cpp.
//
//===----------------------------------------------------------------------===//

#include "emit.h"
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
namespace emit_detail {

std::string fallbackCopy(StringRef Original) {
  llvm::SmallVector<StringRef, 16> Lines;
  Original.split(Lines, '\n');
  std::string Copy;
  for (StringRef Line : Lines) {
    StringRef Directive = Line.ltrim();
    if (Directive.consume_front("#") &&
        (Directive = Directive.ltrim()).consume_front("pragma") &&
        Directive.ltrim().starts_with("vmap"))
      continue;
    if (!Copy.empty())
      Copy += "\n  ";
    Copy += Line.str();
  }
  return Copy;
}

//===-- control flow ------------------------------------------------------===//

LoopOutcome Printer::run() {
  LoopOutcome Outcome;
  Outcome.Loop = A.Loop;
  const ForStmt *For = A.Loop->For;

  // Replace from the start of the pragma's line when only blanks precede it,
  // so the block takes the loop's indentation.
  SourceLocation Begin = SM.getExpansionLoc(A.Loop->PragmaLoc);
  SourceLocation ForBegin = SM.getExpansionLoc(For->getBeginLoc());
  unsigned Indent = SM.getExpansionColumnNumber(ForBegin) - 1;
  std::pair<FileID, unsigned> Decomposed = SM.getDecomposedLoc(Begin);
  StringRef Buffer = SM.getBufferData(Decomposed.first);
  unsigned LineStart = Decomposed.second;
  while (LineStart > 0 && (Buffer[LineStart - 1] == ' ' || Buffer[LineStart - 1] == '\t'))
    --LineStart;
  bool AtLineStart = LineStart == 0 || Buffer[LineStart - 1] == '\n';
  if (AtLineStart)
    Begin = Begin.getLocWithOffset(static_cast<int>(LineStart) -
                                   static_cast<int>(Decomposed.second));
  SourceLocation End = Lexer::getLocForEndOfToken(
      SM.getExpansionLoc(For->getEndLoc()), 0, SM, Context.getLangOpts());
  // A body that is not a block ends before its `;`, which goes too.
  std::optional<Token> Next =
      Lexer::findNextToken(End.getLocWithOffset(-1), SM, Context.getLangOpts());
  if (Next && Next->is(tok::semi))
    End = Next->getEndLoc();
  Outcome.Range = CharSourceRange::getCharRange(Begin, End);
  std::string Original =
      Lexer::getSourceText(CharSourceRange::getCharRange(
                               SM.getExpansionLoc(For->getBeginLoc()), End),
                           SM, Context.getLangOpts())
          .str();

  // Under --check the batched loop (and its guard) sits in the check's `try`.
  unsigned LoopIndent = Check ? Indent + 4 : Indent;
  if (Check)
    Out += checkPrologue(Indent, Original);
  if (!A.OverlapChecks.empty()) {
    std::string Condition;
    for (const OverlapCheck &Guard : A.OverlapChecks) {
      if (!Condition.empty())
        Condition += " ||\n" + std::string(LoopIndent + 4, ' ');
      switch (Guard.Check) {
      case OverlapCheck::Kind::SameObject: // two C++ scalars: their addresses
        Condition += "static_cast<const void *>(&" + Guard.Written +
                     ") == static_cast<const void *>(&" + Guard.Read + ")";
        continue;
      case OverlapCheck::Kind::ScalarInTensor: // the scalar's bytes
        Condition += "::vmap::batched::any_overlap(" + Guard.Written +
                     ", ::vmap::from_blob(const_cast<void *>(static_cast<const "
                     "void *>(&" +
                     Guard.Read + ")), {static_cast<int64_t>(sizeof(" +
                     Guard.Read + "))}, ::vmap::kBool))";
        continue;
      case OverlapCheck::Kind::UnlessSameView:
        Condition += "::vmap::batched::unsafe_overlap(";
        break;
      case OverlapCheck::Kind::Any:
        Condition += "::vmap::batched::any_overlap(";
        break;
      case OverlapCheck::Kind::Internal:
        Condition += "::vmap::batched::internal_overlap(";
        break;
      }
      Condition += Guard.Written +
                   (Guard.Read.empty() ? "" : ", " + Guard.Read) + ")";
    }
    Out += std::string(LoopIndent, ' ') + "if (" + Condition +
           ") { // clang-vmap: inputs may overlap outputs, run as written\n";
    Out += lineDirective(Context, lineOf(Context, For->getBeginLoc())) + "\n";
    Out += std::string(LoopIndent + 2, ' ') + fallbackCopy(Original) + "\n";
    Out += std::string(LoopIndent, ' ') + "} else ";
  }
  std::size_t BlockStart = Out.size();
  level(For, LoopIndent, true);
  if (!A.OverlapChecks.empty())
    Out.erase(BlockStart, LoopIndent); // `} else {` on one line
  if (Check)
    Out += checkEpilogue(Indent);
  if (!Error.empty()) {
    Outcome.WhyNot = Error;
    Outcome.WhyNotRange = ErrorRange;
    return Outcome;
  }
  // The replaced range ends after the loop's last token: no trailing newline,
  // and the first line's indentation is already in the file if we start at
  // the pragma itself.
  if (!Out.empty() && Out.back() == '\n')
    Out.pop_back();
  if (!AtLineStart)
    Out = Out.substr(Indent);
  Out += lineDirectiveAfter(Context, End);
  Outcome.Text = std::move(Out);
  Outcome.Batched = true;
  Outcome.NumOps = Plan.NumOps;
  Outcome.FallbackOps = Plan.FallbackOps;
  return Outcome;
}

// Note [Clones of function templates]
// A specialization of a function template of this file is cloned as a plain
// function of its own name (`_b_scaled_float`): the body is printed from the
// template's text, so each template parameter is bound at the top of the body
// (`using T = float;`, `constexpr int N = 3;`, marked [[maybe_unused]]), and
// the parameters that stay unbatched are spelled with their instantiated
// types, which the aliases do not reach. batch.cpp refuses the templates this
// cannot express.
std::vector<std::pair<SourceLocation, std::string>> Printer::clone() {
  const FunctionDecl *F = A.Callee;
  const FunctionTemplateDecl *Template = F->getPrimaryTemplate();
  // Note [Lambdas the loop calls] in ast_util.h; a generic one's template
  // parameters are invented (`auto v`): nothing to bind.
  const VarDecl *LambdaVariable = lambdaVariable(F);
  llvm::SmallVector<std::string, 4> TemplateArgs = templateArgumentTexts(F);
  std::string Params;
  for (unsigned I = 0; I < F->getNumParams(); ++I) {
    const ParmVarDecl *Param = F->getParamDecl(I);
    if (!Params.empty())
      Params += ", ";
    // A by-value parameter stays one: the body may rebind it.
    std::string BatchedType = Param->getType()->isReferenceType()
                                  ? "const ::vmap::batched::Value& "
                                  : "::vmap::batched::Value ";
    if (A.BatchedParams[I])
      Params += BatchedType + Param->getNameAsString();
    else if (Template)
      Params += qualifiedTypeName(Param->getType(), Context) + " " +
                Param->getNameAsString();
    else
      Params += sourceText(Context, Param->getSourceRange()).str();
  }
  std::string Result =
      F->getReturnType()->isVoidType() ? "void" : "::vmap::batched::Value";
  std::string Shown = functionName(F);
  if (Template)
    Shown += "<" + llvm::join(TemplateArgs, ", ") + ">";
  std::string Role = Names.roleText(F, A.BatchedParams);
  Out += std::string(LambdaVariable ? "\n" : "\n\n") +
         "// clang-vmap: batched clone of '" + Shown + "' (line " +
         std::to_string(lineOf(Context, F->getBeginLoc())) + ")" +
         (Role.empty() ? "" : " " + Role) + "\n";
  // A member function's clone is a member beside it, const as it is: it
  // reads the members the function reads.
  const auto *Method = dyn_cast<CXXMethodDecl>(F);
  bool Static = !Method || Method->isStatic();
  std::string Head =
      LambdaVariable
          ? "auto " + Names.name(F, A.BatchedParams) + " = " +
                sourceText(Context, lambdaOf(F)->getIntroducerRange()).str() +
                "(" + Params + ") -> " + Result
          : (Static ? "static " : "") + Result + " " +
                Names.name(F, A.BatchedParams) + "(" + Params + ")" +
                (Method && Method->isConst() ? " const" : "");
  Out += Head + " {\n";
  Out += "  namespace " + Alias + " = ::vmap::batched;\n";
  if (Template && !LambdaVariable) {
    const TemplateParameterList *Names = Template->getTemplateParameters();
    for (unsigned I = 0; I < Names->size(); ++I) {
      const NamedDecl *Name = Names->getParam(I);
      if (const auto *Value = dyn_cast<NonTypeTemplateParmDecl>(Name))
        Out += "  [[maybe_unused]] constexpr " +
               qualifiedTypeName(Value->getType(), Context) + " " +
               Name->getNameAsString() + " = " + TemplateArgs[I] + ";\n";
      else
        Out += "  using " + Name->getNameAsString() + " [[maybe_unused]] = " +
               TemplateArgs[I] + ";\n";
    }
  }
  if (A.MaskedControls.count(F->getBody()))
    Out += "  " + vb("Returns ") + ReturnsName +
           ";  // clang-vmap: early returns per example\n";
  block(F->getBody(), 2);
  // A body whose every path returns before its end (a `switch` returning in
  // each case, `while (true)`): the examples' results, as they returned; 0
  // of the function's type when it runs for no example (a loop no example
  // enters returns nothing). The analysis refuses other result types.
  const auto *Body = cast<CompoundStmt>(F->getBody());
  if (A.MaskedControls.count(Body) && !F->getReturnType()->isVoidType() &&
      (Body->body_empty() || !isa<ReturnStmt>(Body->body_back())))
    Out += "  return " + ReturnsName + ".result(" + vb("scalar_cast<") +
           qualifiedTypeName(F->getReturnType(), Context) +
           ">(0));  // clang-vmap: every example returned above\n";
  Out += LambdaVariable ? "};" : "}";
  if (LambdaVariable) { // indented as its variable's declaration
    std::string Indented, Indent(SM.getExpansionColumnNumber(
                                     LambdaVariable->getBeginLoc()) - 1, ' ');
    bool First = true;
    for (StringRef Line : llvm::split(Out, '\n')) {
      Indented += (First ? "" : "\n") +
                  (Line.empty() || Line.starts_with("#") ? "" : Indent) +
                  Line.str();
      First = false;
    }
    Out = std::move(Indented);
  }
  // A lambda's clone goes after its variable's declaration, `;` included.
  SourceLocation After = Lexer::getLocForEndOfToken(
      SM.getExpansionLoc(LambdaVariable ? LambdaVariable->getEndLoc()
                                        : F->getEndLoc()),
      0, SM, Context.getLangOpts());
  if (LambdaVariable) {
    std::optional<Token> Semi = Lexer::findNextToken(
        SM.getExpansionLoc(LambdaVariable->getEndLoc()), SM,
        Context.getLangOpts());
    if (!Semi || !Semi->is(tok::semi))
      return {};
    After = Semi->getEndLoc();
  }
  Out += lineDirectiveAfter(Context, After);
  if (!Error.empty())
    return {};
  std::vector<std::pair<SourceLocation, std::string>> Texts{
      {After, std::move(Out)}};
  const FunctionDecl *First = F->getFirstDecl();
  if (First != F && !Method && !Template && !LambdaVariable) {
    // After the declaration's `;`.
    SourceLocation End = Lexer::getLocForEndOfToken(
        SM.getExpansionLoc(First->getEndLoc()), 0, SM, Context.getLangOpts());
    std::optional<Token> Semi = Lexer::findNextToken(
        SM.getExpansionLoc(First->getEndLoc()), SM, Context.getLangOpts());
    if (Semi && Semi->is(tok::semi))
      End = Semi->getEndLoc();
    Texts.push_back({End, "\n// clang-vmap: batched clone of '" +
                              F->getNameAsString() + "', defined below\n" +
                              Head + ";" + lineDirectiveAfter(Context, End)});
  }
  return Texts;
}

} // namespace emit_detail

namespace {

using emit_detail::Printer;

void addClones(const BatchPlan &Plan, CloneNames &Names,
               LoopOutcome &Outcome) {
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones) {
    if (Clone->OnlyInKernels) // printed in them, its callees too
      continue;
    addClones(*Clone, Names, Outcome); // its own callees go first
    std::vector<std::pair<SourceLocation, std::string>> Texts =
        Printer(*Clone, Names).clone();
    if (Texts.empty()) {
      Outcome.Batched = false;
      Outcome.WhyNot = "cannot print the clone of '" +
                       functionName(Clone->Analysis.Callee) + "'";
      return;
    }
    for (const auto &[Call, Target] : Plan.CloneOf)
      if (Target == Clone.get())
        Outcome.CloneCalls.push_back(
            {insertionHeading(Texts.front().second).str(), Call->getBeginLoc()});
    for (auto &Text : Texts)
      Outcome.Insertions.push_back(std::move(Text));
    Outcome.NumOps += Clone->NumOps;
  }
}

} // namespace

LoopOutcome emit(const BatchPlan &Plan, CloneNames &Names, bool Check) {
  LoopOutcome Outcome = emit_detail::Printer(Plan, Names, Check).run();
  if (Outcome.Batched)
    addClones(Plan, Names, Outcome);
  return Outcome;
}

// Note [Clones in several roles]
// A function of this file may be called from vmap loops with per-example
// values for different parameters: `quantile(v, q)` with both per-example,
// `quantile(v, 0.5f)` with v only. Each role is its own clone, as its
// parameters differ (vb::Value or the type written). The first role the file
// meets keeps the plain name (`_b_quantile`), so a function used in one role
// reads as before; every other role is named by its per-example parameters
// (`_b_quantile_per_example_v`), and its heading says which. Roles are keyed
// by the clone's base name and the function's place, as rewrite() keys the
// clones it inserts: the specializations of a class template's member share
// a key (and a clone name), those of a function template do not.
const CloneNames::Role &CloneNames::role(const FunctionDecl *F,
                                         llvm::ArrayRef<bool> PerExample) {
  std::string Base = cloneName(F);
  Function &Entry =
      Functions
          .try_emplace({Base, F->getLocation().getRawEncoding()},
                       Function{F, {}})
          .first->second;
  for (const Role &Known : Entry.Roles)
    if (llvm::ArrayRef<bool>(Known.PerExample) == PerExample)
      return Known;
  std::string Name = Base;
  if (!Entry.Roles.empty()) {
    Name += "_per_example";
    for (unsigned I = 0; I < PerExample.size(); ++I)
      if (PerExample[I])
        Name += "_" + (F->getParamDecl(I)->getName().empty()
                           ? "arg" + std::to_string(I + 1)
                           : F->getParamDecl(I)->getNameAsString());
    // A user's own identifier of that name keeps it (Note [Generated names]).
    const IdentifierTable &Idents = F->getASTContext().Idents;
    std::string Stem = Name;
    for (unsigned Suffix = 1; Idents.find(Name) != Idents.end(); ++Suffix)
      Name = Stem + "_" + std::to_string(Suffix);
  }
  Entry.Roles.push_back(
      {llvm::SmallVector<bool, 4>(PerExample.begin(), PerExample.end()),
       std::move(Name)});
  return Entry.Roles.back();
}

std::string CloneNames::name(const FunctionDecl *F,
                             llvm::ArrayRef<bool> PerExample) {
  return role(F, PerExample).Name;
}

std::string CloneNames::roleText(const FunctionDecl *F,
                                 llvm::ArrayRef<bool> PerExample) {
  const Role &Found = role(F, PerExample);
  if (Found.Name == cloneName(F))
    return "";
  std::string Params = perExampleParams(F, PerExample);
  if (Params.empty())
    return "for calls with no per-example argument";
  bool Some = llvm::is_contained(PerExample, false);
  return "for calls with per-example " + Params + (Some ? " only" : "");
}

std::string perExampleParams(const FunctionDecl *F,
                             llvm::ArrayRef<bool> PerExample) {
  std::string Params;
  for (unsigned I = 0; I < PerExample.size(); ++I) {
    if (!PerExample[I])
      continue;
    if (!Params.empty())
      Params += ", ";
    const ParmVarDecl *Param = F->getParamDecl(I);
    Params += Param->getName().empty()
                  ? "argument " + std::to_string(I + 1)
                  : "'" + Param->getNameAsString() + "'";
  }
  return Params;
}

} // namespace clang_vmap
