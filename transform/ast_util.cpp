//===- ast_util.cpp - Small AST queries shared by the passes --------------===//

#include "ast_util.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <vmap/rules/op_table.hpp>
#include <cctype>

using namespace clang;

namespace clang_vmap {

const Expr *stripImplicit(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreUnlessSpelledInSource()->IgnoreParens();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const VarDecl *referencedVar(const Expr *E) {
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E)))
    return dyn_cast<VarDecl>(Ref->getDecl());
  return nullptr;
}

bool isInVmapNamespace(const Decl *D) {
  for (const DeclContext *Context = D->getDeclContext(); Context;
       Context = Context->getParent()) {
    const auto *Namespace = dyn_cast<NamespaceDecl>(Context);
    if (Namespace && Namespace->getName() == "vmap" &&
        Namespace->getParent()->getRedeclContext()->isTranslationUnit())
      return true;
  }
  return false;
}

bool isTensorType(QualType T) {
  const CXXRecordDecl *Record =
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return Record && Record->getName() == "Tensor" && isInVmapNamespace(Record);
}

bool isTensorTupleType(QualType T) {
  const auto *Tuple = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  if (!Tuple || Tuple->getName() != "tuple" || !Tuple->isInStdNamespace())
    return false;
  const TemplateArgumentList &Args = Tuple->getTemplateArgs();
  if (Args.size() != 1 || Args[0].getKind() != TemplateArgument::Pack ||
      Args[0].pack_size() == 0)
    return false;
  return llvm::all_of(Args[0].pack_elements(),
                      [](const TemplateArgument &Element) {
                        return Element.getKind() == TemplateArgument::Type &&
                               isTensorType(Element.getAsType());
                      });
}

bool isScalarType(QualType T) {
  QualType Canonical = T.getNonReferenceType().getCanonicalType();
  return Canonical->isArithmeticType() && !Canonical->isAnyCharacterType();
}

std::string calleeName(const CallExpr *Call) {
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call))
    return std::string("operator") +
           getOperatorSpelling(Operator->getOperator());
  if (const FunctionDecl *Callee = Call->getDirectCallee())
    return Callee->getNameAsString();
  return "";
}

StringRef sourceText(const ASTContext &Context, SourceRange Range) {
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange Chars = CharSourceRange::getTokenRange(Range);
  if (Range.getBegin().isMacroID() || Range.getEnd().isMacroID())
    Chars = SM.getExpansionRange(Range);
  return Lexer::getSourceText(Chars, SM, Context.getLangOpts());
}

unsigned lineOf(const ASTContext &Context, SourceLocation Loc) {
  const SourceManager &SM = Context.getSourceManager();
  return SM.getExpansionLineNumber(Loc);
}

std::string describeStmt(const Stmt *S) {
  switch (S->getStmtClass()) {
  case Stmt::WhileStmtClass: return "a 'while' loop";
  case Stmt::DoStmtClass: return "a 'do' loop";
  case Stmt::CXXForRangeStmtClass: return "a range-based 'for' loop";
  case Stmt::SwitchStmtClass: return "a 'switch'";
  case Stmt::CXXTryStmtClass: return "a 'try' block";
  case Stmt::LabelStmtClass: return "a label";
  case Stmt::GCCAsmStmtClass: return "inline assembly";
  case Stmt::LambdaExprClass: return "a lambda";
  case Stmt::CXXNewExprClass: return "'new'";
  case Stmt::CXXDeleteExprClass: return "'delete'";
  case Stmt::CXXThrowExprClass: return "'throw'";
  case Stmt::StmtExprClass: return "a statement expression";
  case Stmt::CoawaitExprClass: return "'co_await'";
  case Stmt::CoyieldExprClass: return "'co_yield'";
  default: return std::string("'") + S->getStmtClassName() + "'";
  }
}

std::string qualifiedTypeName(QualType T, const ASTContext &Context) {
  PrintingPolicy Policy = Context.getPrintingPolicy();
  Policy.SuppressTagKeyword = true;
  return TypeName::getFullyQualifiedName(T, Context, Policy);
}

llvm::SmallVector<std::string, 4>
templateArgumentTexts(const FunctionDecl *F) {
  llvm::SmallVector<std::string, 4> Texts;
  const TemplateArgumentList *Args = F->getTemplateSpecializationArgs();
  if (!Args)
    return Texts;
  const ASTContext &Context = F->getASTContext();
  for (const TemplateArgument &Arg : Args->asArray()) {
    if (Arg.getKind() == TemplateArgument::Type) {
      Texts.push_back(qualifiedTypeName(Arg.getAsType(), Context));
    } else {
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      Arg.print(Context.getPrintingPolicy(), OS, /*IncludeType=*/false);
      Texts.push_back(std::move(Text));
    }
  }
  return Texts;
}

std::string cloneName(const FunctionDecl *F) {
  std::string Name = "_b_" + F->getNameAsString();
  for (const std::string &Arg : templateArgumentTexts(F)) {
    Name += '_';
    for (char C : Arg) // `vmap::Tensor` -> `vmap_Tensor`, `-1` -> `neg1`
      if (std::isalnum(static_cast<unsigned char>(C)))
        Name += C;
      else if (C == '-')
        Name += "neg";
      else if (Name.back() != '_')
        Name += '_';
  }
  // A user's own `_b_f` keeps its name (Note [Generated names]).
  const IdentifierTable &Idents = F->getASTContext().Idents;
  std::string Base = Name;
  for (unsigned Suffix = 1; Idents.find(Name) != Idents.end(); ++Suffix)
    Name = Base + "_" + std::to_string(Suffix);
  return Name;
}

std::string lineDirective(const ASTContext &Context, unsigned Line) {
  const SourceManager &SM = Context.getSourceManager();
  llvm::SmallString<256> Path;
  if (OptionalFileEntryRef File = SM.getFileEntryRefForID(SM.getMainFileID()))
    Path = File->getName();
  llvm::sys::fs::make_absolute(Path);
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  std::string Escaped;
  for (char C : Path) {
    if (C == '\\' || C == '"')
      Escaped += '\\';
    Escaped += C;
  }
  return "#line " + std::to_string(Line) + " \"" + Escaped + "\"";
}

std::string lineDirectiveAfter(const ASTContext &Context, SourceLocation End) {
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation FileEnd = SM.getExpansionLoc(End);
  auto [File, Offset] = SM.getDecomposedLoc(FileEnd);
  StringRef Rest = SM.getBufferData(File).substr(Offset);
  Rest = Rest.take_until([](char C) { return C == '\n'; }).trim();
  unsigned Line = SM.getExpansionLineNumber(FileEnd);
  if (Rest.empty() || Rest.starts_with("//"))
    return "\n" + lineDirective(Context, Line + 1);
  return "\n" + lineDirective(Context, Line) + "\n";
}

// Note [Generated names]
// Rewritten code declares names of its own in the user's function: the alias
// `vb` of the batched API, `_b_level0`, `_b_where0`, `_b_args`. Each is the
// fixed name (so goldens stay stable) unless the function already spells or
// refers to it, in which case a suffix makes it fresh: a user's `vb` or
// `_b_level0`, local or global, is then neither hidden nor redeclared. The
// alias names `::vmap::batched`, which no user `vmap` or `batched` can hide.
namespace {
class NameCollector : public RecursiveASTVisitor<NameCollector> {
public:
  explicit NameCollector(llvm::StringSet<> &Names) : Names(Names) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitNamedDecl(NamedDecl *D) { return add(D); }
  bool VisitDeclRefExpr(DeclRefExpr *E) { return add(E->getDecl()); }
  bool VisitMemberExpr(MemberExpr *E) { return add(E->getMemberDecl()); }

private:
  bool add(const NamedDecl *D) {
    if (D && D->getDeclName().isIdentifier())
      Names.insert(D->getName());
    return true;
  }
  llvm::StringSet<> &Names;
};
} // namespace

llvm::StringSet<> namesUsedIn(const FunctionDecl *F) {
  llvm::StringSet<> Names;
  if (!F)
    return Names;
  NameCollector(Names).TraverseDecl(const_cast<FunctionDecl *>(F));
  const ASTContext &Context = F->getASTContext();
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(F->getSourceRange()), SM,
      Context.getLangOpts());
  if (Range.isInvalid())
    return Names;
  // The raw lexer wants a NUL after its buffer: lex a copy.
  std::string Text =
      Lexer::getSourceText(Range, SM, Context.getLangOpts()).str();
  Lexer Raw(Range.getBegin(), Context.getLangOpts(), Text.data(), Text.data(),
            Text.data() + Text.size());
  Token Tok;
  for (bool AtEnd = false; !AtEnd;) {
    AtEnd = Raw.LexFromRawLexer(Tok);
    if (Tok.is(tok::raw_identifier))
      Names.insert(Tok.getRawIdentifier());
  }
  return Names;
}

std::string freshName(llvm::StringRef Base, llvm::StringSet<> &Taken) {
  std::string Name = Base.str();
  for (unsigned Suffix = 1; Taken.contains(Name); ++Suffix)
    Name = (Base + "_" + llvm::Twine(Suffix)).str();
  Taken.insert(Name);
  return Name;
}

bool isMetadataCall(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(stripImplicit(E));
  if (!Call || !Call->getMethodDecl() ||
      !isInVmapNamespace(Call->getMethodDecl()))
    return false;
  std::string Name = Call->getMethodDecl()->getNameAsString();
  for (const vmap::rules::OpEntry &Entry : vmap::rules::kOpTable)
    if (Entry.family == vmap::rules::Family::metadata && Entry.name == Name)
      return true;
  return false;
}

} // namespace clang_vmap
