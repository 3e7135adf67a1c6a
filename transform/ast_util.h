//===- ast_util.h - Small AST queries shared by analyse, batch and emit ---===//
#ifndef CLANG_VMAP_AST_UTIL_H
#define CLANG_VMAP_AST_UTIL_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include <string>
#include <vector>

namespace clang_vmap {

/// \p E without the nodes that are not spelled in the source (implicit
/// casts, temporaries, implicit constructors) and without parentheses.
const clang::Expr *stripImplicit(const clang::Expr *E);

/// The variable \p E names (after stripImplicit), or null.
const clang::VarDecl *referencedVar(const clang::Expr *E);

/// True for declarations inside `namespace vmap` (any nesting below it).
bool isInVmapNamespace(const clang::Decl *D);

/// True for vmap::Tensor (through references and cv-qualifiers).
bool isTensorType(clang::QualType T);

/// True for std::tuple<vmap::Tensor, ...> (through references and
/// cv-qualifiers): what sort and topk return.
bool isTensorTupleType(clang::QualType T);

/// Arithmetic scalar types a batched value may have besides Tensor.
bool isScalarType(clang::QualType T);

/// A 64-bit unsigned integer type (size_t, uint64_t), held by the batched
/// code as int64 bits (Note [Unsigned per-example integers] in batched.hpp).
bool isUnsigned64(const clang::ASTContext &Context, clang::QualType T);
/// A signed integer type narrower than int (`short`), whose arithmetic C++ does
/// in int and converts back keeping the low bits.
bool isNarrowSigned(const clang::ASTContext &Context, clang::QualType T);

/// `u /= e` or `u %= e` of a size_t variable `u`: printed as `u =
/// vb::unsigned_divide(u, e)` (`vb::unsigned_remainder`).
bool dividesNamedSize(const clang::CompoundAssignOperator *Compound,
                      const clang::ASTContext &Context);

/// The name a call is spelled with: "sum", "operator+", "select".
std::string calleeName(const clang::CallExpr *Call);

/// The source text of \p Range (a token range), following macro expansions
/// to where they are spelled in the file.
llvm::StringRef sourceText(const clang::ASTContext &Context,
                           clang::SourceRange Range);

/// Note [Rewriting a header]: a run of the tool rewrites the loops of one
/// file of each translation unit: the main file, or with --rewrite-header
/// the header it names (parsed as each source including it compiles it, so
/// a template's loop is analysed in the instantiations of those sources).
/// The passes ask these instead of the SourceManager's main file.
/// \p Header: the absolute path of the header to rewrite, "" for the main
/// file; \p Elsewhere: headers another run rewrites, whose loops this run
/// leaves to it.
void setRewrittenFile(std::string Header, std::vector<std::string> Elsewhere);

/// The file this run rewrites in \p SM's translation unit: the main file,
/// or the header of --rewrite-header (invalid when the unit does not
/// include it).
clang::FileID rewrittenFileID(const clang::SourceManager &SM);

/// True if \p Loc (its expansion) is in the file this run rewrites.
bool isInRewrittenFile(const clang::SourceManager &SM,
                       clang::SourceLocation Loc);

/// True if \p Loc is in a file whose loops another run rewrites: with
/// --rewrite-header any other file, else a header of --rewritten-elsewhere.
bool isRewrittenElsewhere(const clang::SourceManager &SM,
                          clang::SourceLocation Loc);

/// 1-based line of \p Loc in the file (expansion location).
unsigned lineOf(const clang::ASTContext &Context, clang::SourceLocation Loc);

/// Note [Line directives]: rewritten code carries `#line N "file"` before
/// each statement printed from the user's (and after each inserted text),
/// so compiler errors, warnings, debuggers, sanitizers and coverage name the
/// user's file and line. The directive giving the next line the number
/// \p Line of the file rewritten (its absolute path).
std::string lineDirective(const clang::ASTContext &Context, unsigned Line);

/// \p Text as a C++ string literal (quotes, backslashes and newlines escaped).
std::string stringLiteral(llvm::StringRef Text);

/// The directive that ends a text replacing or inserted into the file
/// up to \p End (which is on line E): when only blanks or a `//` comment
/// follow \p End on its line, "\n#line E+1" (that rest completes the
/// directive's line); else "\n#line E\n".
std::string lineDirectiveAfter(const clang::ASTContext &Context,
                               clang::SourceLocation End);

/// What \p S is, as a diagnostic names it to a C++ user: "a 'while' loop",
/// "a lambda"; other nodes by clang's class name.
std::string describeStmt(const clang::Stmt *S);

/// Note [Lambdas the loop calls]
/// A lambda stored in a local variable (`auto squared = [&](const Tensor& v)
/// { ... };`) and called in a vmap loop with a per-example argument is batched
/// as a function of this file is: its call operator's body is a clone, printed
/// as a lambda of the same captures right after the variable's declaration
/// (`auto _b_squared = [&](const ::vmap::batched::Value& v) -> ... { ... };`),
/// so that it reads the variables the lambda reads, and the call calls it
/// (`_b_squared(vb::at(x, i))`); a lambda of C++ numbers, reading numbers it
/// captures, is called as written by a scalar kernel, which captures it
/// (`[&squared]`). batch.cpp refuses what this cannot express:
/// a mutable lambda, an init-capture (evaluated again), a lambda not stored in
/// a local variable of the function that holds the loop, or one whose
/// captured variables the loop writes.

/// The local variable \p F, a lambda's call operator, is stored in (`squared`
/// of `auto squared = [](...) {...};`), or null: a lambda's call operator
/// whose lambda initialises a local variable of the function around it.
const clang::VarDecl *lambdaVariable(const clang::FunctionDecl *F);

/// The lambda expression \p F, a lambda's call operator, is the body of, or
/// null (lambdaVariable's initialiser).
const clang::LambdaExpr *lambdaOf(const clang::FunctionDecl *F);

/// \p F's name as a C++ user knows it: a lambda's variable (`squared`), else
/// the function's name.
std::string functionName(const clang::FunctionDecl *F);

/// The arguments \p Call passes to its function's parameters: a call
/// operator's object (`f` of `f(x)`) left out.
llvm::ArrayRef<const clang::Expr *> parameterArguments(const clang::CallExpr *Call);

/// The name of the batched clone of \p F (a function of this file): `_b_f`,
/// and for a function template's specialization its template arguments
/// spelled in too (`_b_scaled_float`), so each specialization gets its own.
std::string cloneName(const clang::FunctionDecl *F);

/// \p T as C++ text that names it from any scope (`vmap::Tensor`,
/// `const std::vector<float> &`).
std::string qualifiedTypeName(clang::QualType T,
                              const clang::ASTContext &Context);

/// The template arguments of \p F, a specialization of a function template,
/// as C++ text (`float`, `vmap::Tensor`, `3`).
llvm::SmallVector<std::string, 4>
templateArgumentTexts(const clang::FunctionDecl *F);

/// Every name \p F spells or refers to: the identifiers of its text and the
/// names of the declarations its body refers to (also through macros), so
/// generated names can avoid them (Note [Generated names]).
llvm::StringSet<> namesUsedIn(const clang::FunctionDecl *F);

/// Generated names that a user's name can neither collide with nor be hidden
/// by: \p Base itself unless \p Taken holds it, else `Base_1`, `Base_2`...;
/// the name picked is added to \p Taken.
std::string freshName(llvm::StringRef Base, llvm::StringSet<> &Taken);

/// Whether the Tensor \p E evaluates to has elements of its own (Note [Aliases
/// in the body] in analyse.cpp): a factory's, clone's or a computing op's
/// result. Views, `to` and `contiguous` (which return their input when nothing
/// changes), in-place ops (which return their object) and calls of other
/// functions may not.
bool hasOwnElements(const clang::Expr *E);

/// A <cmath> function the batched API provides on per-example C++ scalars
/// (the op table's kCmathFunctions), by name and argument count: one of std's,
/// or a global one a system header declares (the C library's), not the user's.
bool isCmath(const clang::FunctionDecl *Callee, unsigned NumArgs);

/// Whether a kernel calling \p Callee, a standard math function, does not
/// compile with a compiler the project supports (std::signbit, GCC 12).
bool breaksKernelCompiler(const clang::FunctionDecl *Callee);

/// A function of numbers of the standard library's math or algorithm headers
/// (`std::round`, `std::clamp`, `::hypotf`) that is not isCmath's: the
/// batched layer has no op for it, and only a scalar kernel runs it (Note
/// [Kernel-only code] in analyse.h). Numbers in (by value or const
/// reference) and out.
bool isKernelOnlyFunction(const clang::FunctionDecl *Callee);

/// Whether \p Cast changes a C++ scalar's value or its held dtype: a
/// conversion the batched code spells out (`vb::scalar_cast<T>`), one batched
/// op.
bool isArithmeticConversion(const clang::ImplicitCastExpr *Cast,
                            const clang::ASTContext &Context);

/// True if a metadata member of Tensor (`size`, `dim`, ... : the same for
/// every example, so the result is never batched).
bool isMetadataCall(const clang::Expr *E);

/// A call of a random factory of vmap that draws numbers (`randn`,
/// `bernoulli`, ...; not `manual_seed`): Note [Randomness] in vmap/batched.hpp.
bool isRandomDraw(const clang::CallExpr *Call);

} // namespace clang_vmap

#endif
