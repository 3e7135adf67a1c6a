//===- find.cpp - Pass 1: every `#pragma vmap` and the loop it annotates --===//

#include "find.h"
#include "ast_util.h"
#include "diagnostics.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;

namespace clang_vmap {
namespace {

class VmapPragmaHandler : public PragmaHandler {
public:
  VmapPragmaHandler(std::vector<VmapPragma> &Pragmas, Diagnostics &Diags)
      : PragmaHandler("vmap"), Pragmas(Pragmas), Diags(Diags) {}

  void HandlePragma(Preprocessor &PP, PragmaIntroducer Introducer,
                    Token &) override {
    Token Tok;
    PP.Lex(Tok);
    Randomness Random = Randomness::Refused;
    if (Tok.is(tok::identifier) && PP.LookAhead(0).is(tok::l_paren))
      Random = clause(PP, Tok);
    if (Tok.isNot(tok::eod))
      Diags.report(diag::warn_pragma_extra_tokens, Tok.getLocation());
    while (Tok.isNot(tok::eod) && Tok.isNot(tok::eof))
      PP.Lex(Tok);
    Pragmas.push_back(
        {Introducer.Kind, Introducer.Loc, Tok.getLocation(), Random});
  }

private:
  /// `randomness(different)` or `randomness(same)`, from \p Tok (the clause's
  /// name) to the token after it, left in \p Tok. Anything else written as a
  /// clause, `name(...)`, is an error naming the valid ones.
  Randomness clause(Preprocessor &PP, Token &Tok) {
    SourceLocation Loc = Tok.getLocation();
    std::string Name = PP.getSpelling(Tok);
    PP.Lex(Tok); // `(`
    llvm::SmallVector<std::string, 2> Words;
    for (PP.Lex(Tok);
         Tok.isNot(tok::r_paren) && Tok.isNot(tok::eod) && Tok.isNot(tok::eof);
         PP.Lex(Tok))
      Words.push_back(PP.getSpelling(Tok));
    bool Closed = Tok.is(tok::r_paren);
    if (Closed)
      PP.Lex(Tok);
    if (Name == "randomness" && Closed && Words.size() == 1) {
      if (Words[0] == "different")
        return Randomness::Different;
      if (Words[0] == "same")
        return Randomness::Same;
    }
    Diags.report(diag::err_pragma_clause, Loc)
        << (Name + "(" + llvm::join(Words, " ") + (Closed ? ")" : ""));
    return Randomness::Refused;
  }

  std::vector<VmapPragma> &Pragmas;
  Diagnostics &Diags;
};

/// Raw-lexes the file holding \p Loc from there and returns the location of
/// the token after the first \p Skip tokens (invalid at the end of the file).
SourceLocation rawTokenAfter(SourceLocation Loc, unsigned Skip,
                             const SourceManager &SM,
                             const LangOptions &LangOpts) {
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  bool Invalid = false;
  StringRef Buffer = SM.getBufferData(File, &Invalid);
  if (Invalid)
    return {};
  Lexer Lex(SM.getLocForStartOfFile(File), LangOpts, Buffer.begin(),
            Buffer.begin() + Offset, Buffer.end());
  Token Tok;
  for (unsigned I = 0; I <= Skip; ++I) {
    Lex.LexFromRawLexer(Tok);
    if (Tok.is(tok::eof))
      return {};
  }
  return Tok.getLocation();
}

/// Where the annotated statement must start: the first token after the
/// pragma, as a file location.
SourceLocation statementLocAfter(const VmapPragma &Pragma,
                                 const SourceManager &SM,
                                 const LangOptions &LangOpts) {
  if (Pragma.Kind == PIK_HashPragma) // the next line's first token
    return rawTokenAfter(Pragma.EndLoc, 0, SM, LangOpts);
  if (Pragma.Loc.isMacroID()) // the token after the whole macro expansion
    return rawTokenAfter(SM.getExpansionRange(Pragma.Loc).getEnd(), 1, SM,
                         LangOpts);
  // `_Pragma("vmap")` or `__pragma(vmap)` written out: skip its 4 tokens.
  return rawTokenAfter(Pragma.Loc, 4, SM, LangOpts);
}

/// Walks the AST in source order, binding `for` statements to the pragmas
/// whose statement location they start at, and tracking the enclosing
/// function and vmap loop.
class LoopBinder : public RecursiveASTVisitor<LoopBinder> {
  using Base = RecursiveASTVisitor<LoopBinder>;

public:
  LoopBinder(const SourceManager &SM, llvm::ArrayRef<VmapPragma> Pragmas)
      : SM(SM), Pragmas(Pragmas), Bound(Pragmas.size(), false) {}

  /// \p ForStartLoc is where the `for` must begin; with \p InSameMacro the
  /// pragma and the `for` come from one macro expansion starting there.
  void expect(unsigned PragmaIndex, SourceLocation ForStartLoc,
              bool InSameMacro) {
    if (ForStartLoc.isValid())
      Expected[ForStartLoc.getRawEncoding()].push_back(
          {PragmaIndex, InSameMacro});
  }

  bool TraverseDecl(Decl *D) {
    auto *Function = dyn_cast_or_null<FunctionDecl>(D);
    if (!Function)
      return Base::TraverseDecl(D);
    return withFunction(Function, [&] { return Base::TraverseDecl(D); });
  }

  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    return withFunction(Lambda->getCallOperator(),
                        [&] { return Base::TraverseLambdaExpr(Lambda); });
  }

  bool TraverseForStmt(ForStmt *For) {
    std::optional<unsigned> PragmaIndex = pragmaFor(For);
    if (!PragmaIndex)
      return Base::TraverseForStmt(For);
    Bound[*PragmaIndex] = true;
    int Index = static_cast<int>(Loops.size());
    Loops.push_back({Pragmas[*PragmaIndex].Loc, For, CurrentFunction,
                     CurrentLoop, Pragmas[*PragmaIndex].Random});
    int SavedLoop = CurrentLoop;
    CurrentLoop = Index;
    bool Result = Base::TraverseForStmt(For);
    CurrentLoop = SavedLoop;
    return Result;
  }

  std::vector<VmapLoop> Loops;
  std::vector<bool> Bound; ///< per pragma

private:
  struct Expectation {
    unsigned PragmaIndex;
    bool InSameMacro;
  };

  template <typename Fn>
  bool withFunction(const FunctionDecl *Function, Fn Traverse) {
    const FunctionDecl *Saved = CurrentFunction;
    CurrentFunction = Function;
    bool Result = Traverse();
    CurrentFunction = Saved;
    return Result;
  }

  std::optional<unsigned> pragmaFor(const ForStmt *For) const {
    SourceLocation ForLoc = For->getForLoc();
    auto It = Expected.find(SM.getExpansionLoc(ForLoc).getRawEncoding());
    if (It == Expected.end())
      return std::nullopt;
    for (const Expectation &E : It->second)
      if (!Bound[E.PragmaIndex] && (!E.InSameMacro || ForLoc.isMacroID()))
        return E.PragmaIndex;
    return std::nullopt;
  }

  const SourceManager &SM;
  llvm::ArrayRef<VmapPragma> Pragmas;
  llvm::DenseMap<SourceLocation::UIntTy, std::vector<Expectation>> Expected;
  const FunctionDecl *CurrentFunction = nullptr;
  int CurrentLoop = -1;
};

} // namespace

namespace {
class SkippedPragmas : public PPCallbacks {
public:
  SkippedPragmas(const SourceManager &SM,
                 std::vector<std::pair<SourceLocation, unsigned>> &Skipped)
      : SM(SM), Skipped(Skipped) {}

  void SourceRangeSkipped(SourceRange Range, SourceLocation) override {
    if (!isInRewrittenFile(SM, Range.getBegin()))
      return;
    auto [File, Begin] = SM.getDecomposedLoc(Range.getBegin());
    unsigned End = SM.getFileOffset(Range.getEnd());
    StringRef Text = SM.getBufferData(File).slice(Begin, End);
    for (size_t LineStart = 0; LineStart < Text.size();) {
      size_t LineEnd = Text.find('\n', LineStart);
      if (LineEnd == StringRef::npos)
        LineEnd = Text.size();
      StringRef Line = Text.slice(LineStart, LineEnd);
      StringRef Rest = Line.ltrim();
      size_t Hash = Line.size() - Rest.size();
      if (Rest.consume_front("#") && (Rest = Rest.ltrim()).consume_front("pragma") &&
          (Rest = Rest.ltrim()).consume_front("vmap") &&
          (Rest.empty() || !isAsciiIdentifierContinue(Rest.front())))
        Skipped.push_back(
            {Range.getBegin().getLocWithOffset(LineStart + Hash),
             static_cast<unsigned>(Line.size() - Rest.size() - Hash)});
      LineStart = LineEnd + 1;
    }
  }

private:
  const SourceManager &SM;
  std::vector<std::pair<SourceLocation, unsigned>> &Skipped;
};
} // namespace

void registerSkippedPragmas(
    Preprocessor &PP, std::vector<std::pair<SourceLocation, unsigned>> &Skipped) {
  PP.addPPCallbacks(
      std::make_unique<SkippedPragmas>(PP.getSourceManager(), Skipped));
}

namespace {
class Conditionals : public PPCallbacks {
public:
  explicit Conditionals(std::vector<SourceLocation> &Directives)
      : Directives(Directives) {}
  void If(SourceLocation Loc, SourceRange, ConditionValueKind) override {
    Directives.push_back(Loc);
  }
  void Ifdef(SourceLocation Loc, const Token &, const MacroDefinition &) override {
    Directives.push_back(Loc);
  }
  void Ifndef(SourceLocation Loc, const Token &,
              const MacroDefinition &) override {
    Directives.push_back(Loc);
  }
  void Elif(SourceLocation Loc, SourceRange, ConditionValueKind,
            SourceLocation) override {
    Directives.push_back(Loc);
  }
  void Elifdef(SourceLocation Loc, const Token &,
               const MacroDefinition &) override {
    Directives.push_back(Loc);
  }
  void Elifdef(SourceLocation Loc, SourceRange, SourceLocation) override {
    Directives.push_back(Loc); // in skipped code
  }
  void Elifndef(SourceLocation Loc, const Token &,
                const MacroDefinition &) override {
    Directives.push_back(Loc);
  }
  void Elifndef(SourceLocation Loc, SourceRange, SourceLocation) override {
    Directives.push_back(Loc); // in skipped code
  }
  void Else(SourceLocation Loc, SourceLocation) override {
    Directives.push_back(Loc);
  }
  void Endif(SourceLocation Loc, SourceLocation) override {
    Directives.push_back(Loc);
  }

private:
  std::vector<SourceLocation> &Directives;
};
} // namespace

void registerConditionals(Preprocessor &PP,
                          std::vector<SourceLocation> &Directives) {
  PP.addPPCallbacks(std::make_unique<Conditionals>(Directives));
}

SourceLocation firstDirectiveIn(llvm::ArrayRef<SourceLocation> Directives,
                                SourceRange Range, const SourceManager &SM) {
  SourceLocation Begin = SM.getExpansionLoc(Range.getBegin());
  SourceLocation End = SM.getExpansionRange(Range.getEnd()).getEnd();
  auto [File, BeginOffset] = SM.getDecomposedLoc(Begin);
  auto [EndFile, EndOffset] = SM.getDecomposedLoc(End);
  if (File != EndFile)
    return {};
  for (SourceLocation Directive : Directives) {
    auto [DirectiveFile, Offset] = SM.getDecomposedLoc(Directive);
    if (DirectiveFile == File && Offset >= BeginOffset && Offset <= EndOffset)
      return Directive;
  }
  return {};
}

void registerVmapPragma(Preprocessor &PP, std::vector<VmapPragma> &Pragmas,
                        Diagnostics &Diags) {
  PP.AddPragmaHandler(new VmapPragmaHandler(Pragmas, Diags));
}

std::vector<VmapLoop> find(ASTContext &Context,
                           llvm::ArrayRef<VmapPragma> Pragmas,
                           Diagnostics &Diags) {
  const SourceManager &SM = Context.getSourceManager();
  LoopBinder Binder(SM, Pragmas);
  for (auto [Index, Pragma] : llvm::enumerate(Pragmas)) {
    if (!isInRewrittenFile(SM, Pragma.Loc)) {
      if (!isRewrittenElsewhere(SM, Pragma.Loc))
        Diags.report(diag::warn_pragma_in_header, Pragma.Loc);
      Binder.Bound[Index] = true;
      continue;
    }
    Binder.expect(Index, statementLocAfter(Pragma, SM, Context.getLangOpts()),
                  /*InSameMacro=*/false);
    if (Pragma.Loc.isMacroID())
      Binder.expect(Index, SM.getExpansionLoc(Pragma.Loc),
                    /*InSameMacro=*/true);
  }
  // Pragmas bind only to loops of the file rewritten (Note [Rewriting a
  // header]): the other files' declarations (most of the AST) are not walked.
  if (!Pragmas.empty())
    for (Decl *D : Context.getTranslationUnitDecl()->decls())
      if (isInRewrittenFile(SM, D->getLocation()))
        Binder.TraverseDecl(D);
  for (auto [Index, Pragma] : llvm::enumerate(Pragmas))
    if (!Binder.Bound[Index])
      Diags.report(diag::err_pragma_without_loop, Pragma.Loc);
  // One clause covers a nest (the batched code of a nest is one block).
  for (const VmapLoop &Loop : Binder.Loops)
    if (Loop.Parent >= 0 && Loop.Random != Randomness::Refused)
      Diags.report(diag::err_randomness_nested, Loop.PragmaLoc);
  return std::move(Binder.Loops);
}

namespace {
/// The function whose body holds \p Function's class (a lambda's, a local
/// class's), if any.
const FunctionDecl *enclosingFunction(const FunctionDecl *Function) {
  for (const DeclContext *Context = Function->getParent(); Context;
       Context = Context->getParent())
    if (const auto *Outer = dyn_cast<FunctionDecl>(Context))
      return Outer;
  return nullptr;
}

/// The functions of \p Body's lambdas and local classes instantiated from
/// \p Pattern.
class InstantiationsOf : public RecursiveASTVisitor<InstantiationsOf> {
public:
  explicit InstantiationsOf(const FunctionDecl *Pattern) : Pattern(Pattern) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitLambdaExpr(LambdaExpr *Lambda) {
    check(Lambda->getCallOperator());
    return true;
  }
  bool VisitFunctionDecl(FunctionDecl *Function) {
    check(Function);
    return true;
  }
  llvm::SmallVector<const FunctionDecl *, 4> Found;

private:
  void check(const FunctionDecl *Function) {
    if (Function && Function->getBody() &&
        Function->getTemplateInstantiationPattern() == Pattern &&
        !llvm::is_contained(Found, Function))
      Found.push_back(Function);
  }
  const FunctionDecl *Pattern;
};
} // namespace

llvm::SmallVector<const FunctionDecl *, 4>
compiledSpecializations(const FunctionDecl *Function) {
  llvm::SmallVector<const FunctionDecl *, 4> Specializations;
  if (!isTemplatePattern(Function))
    return Specializations;
  const auto *Method = dyn_cast<CXXMethodDecl>(Function);
  if (!Function->getDescribedFunctionTemplate() &&
      !(Method && Method->getParent()->getDescribedClassTemplate())) {
    // A lambda's or local class's function in a template: its counterpart in
    // each compiled specialization of the enclosing function.
    for (const FunctionDecl *Outer :
         compiledSpecializations(enclosingFunction(Function))) {
      InstantiationsOf Instantiations(Function);
      Instantiations.TraverseDecl(const_cast<FunctionDecl *>(Outer));
      llvm::append_range(Specializations, Instantiations.Found);
    }
    return Specializations;
  }
  if (const FunctionTemplateDecl *Template =
          Function->getDescribedFunctionTemplate()) {
    for (const FunctionDecl *Specialization : Template->specializations())
      if (Specialization->getBody())
        Specializations.push_back(Specialization);
    // A member template of a class template: the specializations of its
    // counterpart in each specialization of the class.
    const ClassTemplateDecl *Class =
        Method ? Method->getParent()->getDescribedClassTemplate() : nullptr;
    if (!Class)
      return Specializations;
    for (const ClassTemplateSpecializationDecl *Instance :
         Class->specializations())
      for (const Decl *Member : Instance->decls())
        if (const auto *Counterpart = dyn_cast<FunctionTemplateDecl>(Member))
          if (Counterpart->getInstantiatedFromMemberTemplate() == Template)
            for (const FunctionDecl *Specialization :
                 Counterpart->specializations())
              if (Specialization->getBody())
                Specializations.push_back(Specialization);
    return Specializations;
  }
  // A member function of a class template: its counterpart in each
  // specialization of the class that instantiated it.
  for (const ClassTemplateSpecializationDecl *Class :
       Method->getParent()->getDescribedClassTemplate()->specializations())
    for (const CXXMethodDecl *Member : Class->methods())
      if (Member->getInstantiatedFromMemberFunction() == Method &&
          Member->getBody())
        Specializations.push_back(Member);
  return Specializations;
}


bool isTemplatePattern(const FunctionDecl *Function) {
  if (!Function)
    return false;
  if (Function->getDescribedFunctionTemplate())
    return true;
  const auto *Method = dyn_cast<CXXMethodDecl>(Function);
  if (Method && Method->getParent()->getDescribedClassTemplate())
    return true;
  // A (non-generic) lambda or a local class's member in a template's body.
  const FunctionDecl *Outer = enclosingFunction(Function);
  return Function->isDependentContext() && Outer && isTemplatePattern(Outer);
}

namespace {
/// The `for` statements of an instantiated body, by where they are written.
class ForsByLocation : public RecursiveASTVisitor<ForsByLocation> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitForStmt(ForStmt *For) {
    Fors[For->getForLoc().getRawEncoding()] = For;
    return true;
  }
  llvm::DenseMap<SourceLocation::UIntTy, const ForStmt *> Fors;
};
} // namespace

std::vector<VmapLoop> inSpecialization(llvm::ArrayRef<VmapLoop> Loops,
                                       unsigned Top,
                                       const FunctionDecl *Specialization) {
  ForsByLocation Instantiated;
  Instantiated.TraverseDecl(const_cast<FunctionDecl *>(Specialization));
  std::vector<VmapLoop> Result(Loops.begin(), Loops.end());
  for (unsigned Index = Top; Index < Result.size(); ++Index) {
    int Ancestor = static_cast<int>(Index);
    while (Ancestor > static_cast<int>(Top))
      Ancestor = Result[Ancestor].Parent;
    if (Ancestor != static_cast<int>(Top))
      continue;
    VmapLoop &Loop = Result[Index];
    Loop.For = Instantiated.Fors.lookup(Loop.For->getForLoc().getRawEncoding());
    Loop.Function = Specialization;
    if (!Loop.For)
      return {};
  }
  return Result;
}

void dumpLoops(llvm::ArrayRef<VmapLoop> Loops, const SourceManager &SM,
               llvm::raw_ostream &OS) {
  for (auto [Index, Loop] : llvm::enumerate(Loops)) {
    OS << "vmap loop " << Index << ": pragma at ";
    SM.getExpansionLoc(Loop.PragmaLoc).print(OS, SM);
    OS << ", for at ";
    SM.getExpansionLoc(Loop.For->getForLoc()).print(OS, SM);
    if (Loop.Function)
      OS << ", in '" << Loop.Function->getQualifiedNameAsString() << "'";
    if (Loop.Parent >= 0)
      OS << ", nested in vmap loop " << Loop.Parent;
    OS << "\n";
  }
}

} // namespace clang_vmap
