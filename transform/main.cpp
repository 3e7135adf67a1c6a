//===- main.cpp - The clang-vmap driver -----------------------------------===//
//
// Parses the command line of SPEC section 3, runs the passes on each input
// (find -> analyse -> batch -> emit per top-level vmap loop -> rewrite) and
// writes the requested outputs. Exit status: 0 when every annotated loop was
// rewritten, 1 when a loop was refused or a source has errors, 2 for bad
// usage.
//
//===----------------------------------------------------------------------===//

#include "ast_util.h"
#include "diagnostics.h"
#include "dump.h"
#include "emit.h"
#include "find.h"
#include "passes.h"
#include "pipeline.h"
#include "remarks.h"
#include "rewrite.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Sarif.h"
#include "clang/Basic/Version.h"
#include "clang/Basic/Stack.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/SARIFDiagnostic.h"
#include "clang/Frontend/SARIFDiagnosticPrinter.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <csignal>
#include <set>

using namespace clang;
using namespace clang_vmap;
namespace cl = llvm::cl;

namespace {

enum ExitStatus { Success = 0, Refused = 1, BadUsage = 2 };

cl::OptionCategory ToolCategory("clang-vmap options");

cl::list<std::string> SourcePaths(cl::Positional, cl::desc("<source>..."),
                                  cl::cat(ToolCategory));
cl::opt<std::string> BuildPath("p",
                               cl::desc("Use <build-dir>/compile_commands.json"),
                               cl::value_desc("build-dir"),
                               cl::cat(ToolCategory));
cl::list<std::string> ExtraArgs("extra-arg",
                                cl::desc("Add a compiler flag (after the "
                                         "others)"),
                                cl::value_desc("flag"), cl::cat(ToolCategory));
cl::list<std::string>
    ExtraArgsBefore("extra-arg-before",
                    cl::desc("Add a compiler flag (before the others)"),
                    cl::value_desc("flag"), cl::cat(ToolCategory));
cl::opt<std::string>
    OutputPath("o", cl::desc("Write the rewritten source here (one input)"),
               cl::value_desc("file"), cl::cat(ToolCategory));
cl::opt<bool> InPlace("i",
                      cl::desc("Rewrite in place (atomic: the original is "
                               "intact on any failure)"),
                      cl::cat(ToolCategory));
cl::opt<bool> PrintDiff("diff", cl::desc("Print a unified diff of the rewrite"),
                        cl::cat(ToolCategory));
cl::opt<std::string>
    ExportFixesPath("export-fixes",
                    cl::desc("Write the replacements in "
                             "clang-apply-replacements' format"),
                    cl::value_desc("yaml"), cl::cat(ToolCategory));
cl::opt<bool> Remarks("remarks",
                      cl::desc("Report each loop batched or not, and how "
                               "each statement runs, and why (-Rpass=vmap, "
                               "-Rpass-missed=vmap and -Rpass-analysis=vmap)"),
                      cl::cat(ToolCategory));
cl::opt<std::string> RemarksFile(
    "remarks-file",
    cl::desc("Write the remarks as LLVM optimization records (YAML, for "
             "opt-viewer)"),
    cl::value_desc("yaml"), cl::cat(ToolCategory));
cl::opt<bool> WriteDepfile("MD", cl::desc("Write a make-style depfile"),
                           cl::cat(ToolCategory));
cl::opt<std::string> DepfilePath("MF", cl::desc("The depfile -MD writes"),
                                 cl::value_desc("file"), cl::cat(ToolCategory));
cl::opt<std::string> RewriteHeader(
    "rewrite-header",
    cl::desc("Rewrite the loops of this header, as the sources that include "
             "it compile it, instead of the sources' own"),
    cl::value_desc("header"), cl::cat(ToolCategory));
cl::list<std::string> RewrittenElsewhere(
    "rewritten-elsewhere",
    cl::desc("A header rewritten by another run (--rewrite-header): its "
             "loops are left to it"),
    cl::value_desc("header"), cl::cat(ToolCategory));
cl::opt<bool> KeepGoing("keep-going",
                        cl::desc("Rewrite the loops that can be; leave the "
                                 "refused ones as written, with a warning"),
                        cl::cat(ToolCategory));

cl::opt<bool> CheckMode(
    "check",
    cl::desc("Also run each batched loop as written, from the same state, and "
             "throw vmap::Error where an output or accumulator differs"),
    cl::cat(ToolCategory));

// For the tool's own tests and developers: listed by --help-hidden.
cl::opt<Pass> DumpAfter(
    "dump-after", cl::desc("Print the state after a pass to stderr"),
    cl::Hidden,
    cl::values(clEnumValN(Pass::Find, "find", "the annotated loops"),
               clEnumValN(Pass::Analyse, "analyse", "the loop analyses"),
               clEnumValN(Pass::Batch, "batch", "the batch plans"),
               clEnumValN(Pass::Fuse, "fuse", "the compiled kernels"),
               clEnumValN(Pass::Emit, "emit", "the emitted text"),
               clEnumValN(Pass::Rewrite, "rewrite", "the replacements")),
    cl::init(Pass::None), cl::cat(ToolCategory));

// What --help says after the options, as clang-tidy explains its own.
cl::extrahelp MoreHelp(R"(
Compile flags:
  The flags each source is parsed with come from, in order: the flags after
  `--` (the same for every source), else the compile_commands.json of -p
  <build-dir>, else one found in a parent directory of the first source, else
  plain C++20. <vmap/vmap.hpp> is found next to the tool if no -I names it.
  --extra-arg and --extra-arg-before add flags to whichever is used.

Output:
  Without -o, -i or --diff the rewritten source goes to standard output. A
  file with a refused loop writes nothing (unless --keep-going); outputs are
  checked before anything is written, and files are replaced atomically.

Warnings and remarks:
  -Wvmap-fallback, -Wvmap-refused, -Wvmap-pragma-extra-tokens,
  -Wvmap-pragma-in-header (-Wvmap: all), given as --extra-arg or after `--`,
  as clang's own (-Werror=..., -Wno-...). --remarks prints -Rpass=vmap,
  -Rpass-missed=vmap and -Rpass-analysis=vmap remarks.

Exit status:
  0  every annotated loop was rewritten
  1  a loop was refused (--keep-going included), a source has errors, or an
     output could not be written
  2  bad usage (unknown option, outputs naming an input, ...)
  If standard output is closed early (a pipe into `head`), the rest of what
  it would print is dropped and the status is the same.

Example:
  clang-vmap model.cpp -o model.vmap.cpp -- -std=c++20 -I/opt/vmap/include
  clang-vmap -p build --diff src/model.cpp
)");

void printVersion(llvm::raw_ostream &OS) {
  OS << "clang-vmap version " CLANG_VMAP_VERSION "\n  built on Clang "
     << CLANG_VERSION_STRING << " LibTooling\n";
}

/// One input file and, once it is rewritten, the result.
struct Job {
  std::string Path;         ///< as given
  std::string AbsolutePath;
  /// The file rewritten: the source, or the header of --rewrite-header (as
  /// given, and as named in replacements).
  std::string RewrittenPath;
  std::string RewrittenAbsolutePath;
  std::optional<RewrittenFile> Result;
  unsigned LoopsLeftAsWritten = 0; ///< refused under --keep-going
  /// The compile command's -W flags of the tool's own warnings.
  std::vector<std::string> WarningFlags;
  std::vector<tooling::Diagnostic> Diagnostics; ///< for --export-fixes
  /// --rewrite-header: whether the source includes the header, and the
  /// header's loops (their pragmas' offsets) this source batched, or left
  /// to the others as templates it never instantiates.
  bool IncludesHeader = true;
  std::vector<unsigned> HeaderLoopsBatched;
  std::vector<unsigned> HeaderLoopsNotCompiled;
};

/// Every file the parse read, system headers included.
class AllDependencies : public DependencyCollector {
  bool needSystemDependencies() override { return true; }
};

/// --export-fixes: every diagnostic of the file, as clang-tidy exports them
/// (notes attached to the diagnostic before them), forwarded unchanged.
class DiagnosticCollector : public DiagnosticConsumer {
public:
  DiagnosticCollector(DiagnosticsEngine &Engine, const Diagnostics &Diags,
                      std::vector<tooling::Diagnostic> &Out)
      : Next(*Engine.getClient()), OwnedNext(Engine.takeClient()),
        Diags(Diags), Out(Out) {}

  void BeginSourceFile(const LangOptions &LangOpts,
                       const Preprocessor *PP) override {
    Next.BeginSourceFile(LangOpts, PP);
  }
  void EndSourceFile() override { Next.EndSourceFile(); }
  void finish() override { Next.finish(); }
  bool IncludeInDiagnosticCounts() const override {
    return Next.IncludeInDiagnosticCounts();
  }
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    Next.HandleDiagnostic(Level, Info);
    llvm::SmallString<128> Text;
    Info.FormatDiagnostic(Text);
    tooling::DiagnosticMessage Message(Text);
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      SourceManager &SM = Info.getSourceManager();
      Message = tooling::DiagnosticMessage(Text, SM,
                                           SM.getFileLoc(Info.getLocation()));
      llvm::SmallString<256> Path(Message.FilePath);
      SM.getFileManager().makeAbsolutePath(Path);
      llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
      Message.FilePath = std::string(Path);
    }
    if (Level == DiagnosticsEngine::Note) {
      if (!Out.empty())
        Out.back().Notes.push_back(Message);
      return;
    }
    llvm::StringRef Flag = Diags.warningFlagOf(Info.getID());
    if (Flag.empty())
      Flag = DiagnosticIDs::getWarningOptionForDiag(Info.getID());
    tooling::Diagnostic::Level As =
        Level >= DiagnosticsEngine::Error     ? tooling::Diagnostic::Error
        : Level == DiagnosticsEngine::Warning ? tooling::Diagnostic::Warning
                                              : tooling::Diagnostic::Remark;
    std::string Name = "clang-diagnostic";
    if (!Flag.empty())
      Name += "-" + Flag.str();
    else if (As == tooling::Diagnostic::Error)
      Name += "-error";
    Out.emplace_back(Name, Message,
                     llvm::SmallVector<tooling::DiagnosticMessage, 1>(), As,
                     "");
  }

private:
  DiagnosticConsumer &Next;
  std::unique_ptr<DiagnosticConsumer> OwnedNext;
  const Diagnostics &Diags;
  std::vector<tooling::Diagnostic> &Out;
};

class VmapConsumer : public ASTConsumer {
public:
  VmapConsumer(CompilerInstance &Compiler, Job &Job,
               std::shared_ptr<AllDependencies> Dependencies, RemarkLog *Log)
      : Diags(Compiler.getDiagnostics(), KeepGoing, Job.WarningFlags),
        Remarks(Compiler, Log), TheJob(Job),
        Dependencies(std::move(Dependencies)) {
    // Note [Warnings printed once]: the compiler prints the warnings of the
    // user's code when it compiles the rewrite, so the tool's parse prints
    // none. The tool's own warnings are custom diagnostics, which clang's
    // warning switches do not reach (its -W flags are read by Diagnostics).
    Compiler.getDiagnostics().setIgnoreAllWarnings(true);
    registerVmapPragma(Compiler.getPreprocessor(), Pragmas, Diags);
    registerSkippedPragmas(Compiler.getPreprocessor(), SkippedPragmas);
    registerConditionals(Compiler.getPreprocessor(), Conditionals);
    if (!ExportFixesPath.empty())
      Compiler.getDiagnostics().setClient(
          new DiagnosticCollector(Compiler.getDiagnostics(), Diags,
                                  Job.Diagnostics),
          /*ShouldOwnClient=*/true);
  }

  void HandleTranslationUnit(ASTContext &Context) override {
    DiagnosticsEngine &Engine = Context.getDiagnostics();
    if (Engine.hasErrorOccurred())
      return; // the source itself does not compile
    const SourceManager &SM = Context.getSourceManager();
    FileID Rewritten = rewrittenFileID(SM);
    if (Rewritten.isInvalid()) { // --rewrite-header: not included here
      TheJob.IncludesHeader = false;
      return;
    }
    std::vector<VmapLoop> Loops = find(Context, Pragmas, Diags);
    if (DumpAfter == Pass::Find)
      dumpLoops(Loops, SM, llvm::errs());
    std::vector<LoopOutcome> Outcomes;
    for (unsigned Index = 0; Index < Loops.size(); ++Index) {
      if (Loops[Index].Parent >= 0)
        continue;
      unsigned PragmaOffset =
          SM.getFileOffset(SM.getExpansionLoc(Loops[Index].PragmaLoc));
      // Note [Rewriting a header]: a template another source instantiates.
      if (!RewriteHeader.empty() && isTemplatePattern(Loops[Index].Function) &&
          compiledSpecializations(Loops[Index].Function).empty()) {
        TheJob.HeaderLoopsNotCompiled.push_back(PragmaOffset);
        continue;
      }
      Outcomes.push_back(transformLoop(Context, Loops, Index));
      if (Outcomes.back().Batched)
        TheJob.HeaderLoopsBatched.push_back(PragmaOffset);
    }
    Remarks.cloneRoles(Names);
    if (Engine.hasErrorOccurred())
      return; // refused (or -Werror): the file gets no output
    auto IsBatched = [](const LoopOutcome &Outcome) { return Outcome.Batched; };
    if (llvm::any_of(Outcomes, IsBatched) && refuseGlobalNamedBatched(Context))
      return;
    TheJob.LoopsLeftAsWritten = static_cast<unsigned>(llvm::count_if(
        Outcomes, [](const LoopOutcome &Outcome) { return !Outcome.Batched; }));
    std::optional<tooling::Replacements> Replacements =
        rewrite(Context, Outcomes, TheJob.RewrittenAbsolutePath, Diags);
    if (!Replacements)
      return;
    // Note [Pragmas in skipped code]
    for (auto [Loc, Length] : SkippedPragmas)
      // Named as the loops' replacements are: one file, one path.
      if (llvm::Error Error = Replacements->add(tooling::Replacement(
              TheJob.RewrittenAbsolutePath, SM.getFileOffset(Loc), Length,
              "#error \"clang-vmap: this '#pragma vmap' loop was not rewritten: "
              "the tool saw this code excluded by the preprocessor (give it the "
              "compiler's flags)\""))) {
        Diags.report(clang_vmap::diag::err_cannot_rewrite, Loc)
            << llvm::toString(std::move(Error));
        return;
      }
    if (DumpAfter == Pass::Rewrite)
      dumpReplacements(*Replacements, llvm::errs());
    llvm::StringRef Original = SM.getBufferData(Rewritten);
    llvm::Expected<std::string> RewrittenText =
        tooling::applyAllReplacements(Original, *Replacements);
    if (!RewrittenText) {
      Diags.report(clang_vmap::diag::err_cannot_rewrite,
                   SM.getLocForStartOfFile(Rewritten))
          << llvm::toString(RewrittenText.takeError());
      return;
    }
    TheJob.Result = RewrittenFile{TheJob.RewrittenPath,
                                  TheJob.RewrittenAbsolutePath,
                                  Original.str(),
                                  std::move(*RewrittenText),
                                  std::move(*Replacements),
                                  Dependencies->getDependencies().vec()};
  }

private:
  /// analyse -> batch -> emit for one top-level loop and its nested loops;
  /// makes sure a loop that is not batched is reported.
  LoopOutcome transformLoop(ASTContext &Context,
                            llvm::ArrayRef<VmapLoop> Loops, unsigned Top) {
    DiagnosticsEngine &Engine = Context.getDiagnostics();
    unsigned RefusalsBefore = Diags.numRefusals();
    unsigned ErrorsBefore = Engine.getNumErrors();
    SourceLocation PragmaLoc = Loops[Top].PragmaLoc;
    LoopOutcome Outcome;
    Outcome.Loop = &Loops[Top];
    // Note [Conditionals in a loop]: from the pragma to the loop's end.
    SourceLocation Directive = firstDirectiveIn(
        Conditionals, {PragmaLoc, Loops[Top].For->getEndLoc()},
        Context.getSourceManager());
    if (Directive.isValid()) {
      Diags.report(clang_vmap::diag::refuse_conditional_in_loop, Directive)
          << 0 << "";
      Diags.report(clang_vmap::diag::note_conditional_in_loop, Directive)
          << 0 << "";
    } else {
      Outcome = runLoopPasses(Context, Loops, Top, Conditionals, Diags,
                              Remarks, Names, {DumpAfter, CheckMode});
    }
    if (!Outcome.Batched) {
      if (Diags.numRefusals() != RefusalsBefore && Outcome.WhyNot.empty())
        Outcome.WhyNot = Diags.lastRefusal().Text;
      if (Diags.numRefusals() == RefusalsBefore &&
          Engine.getNumErrors() == ErrorsBefore)
        reportEmitRefusal(Outcome, PragmaLoc);
      // The remark stands where the refusal does (the offending code).
      SourceLocation WhyNotLoc = Diags.numRefusals() != RefusalsBefore
                                     ? Diags.lastRefusal().Loc
                                     : PragmaLoc;
      if (KeepGoing)
        Diags.report(clang_vmap::diag::note_loop_left_as_written, PragmaLoc);
      Remarks.notBatched(Loops[Top],
                         Outcome.WhyNot.empty() ? "refused" : Outcome.WhyNot,
                         WhyNotLoc.isValid() ? WhyNotLoc : PragmaLoc);
    }
    return Outcome;
  }

  /// Note [A global named batched]: the rewrite includes <vmap/batched.hpp>,
  /// which adds the one name `batched` to namespace vmap (vmap.hpp declares
  /// the rest). Under `using namespace vmap;` an unqualified use of a
  /// global-namespace `batched` then becomes ambiguous and the rewritten file
  /// would not compile: reported at the first such use, nothing written.
  bool refuseGlobalNamedBatched(ASTContext &Context) {
    const SourceManager &SM = Context.getSourceManager();
    const DeclContext *Global = Context.getTranslationUnitDecl();
    bool UsesVmap = false;
    for (const Decl *D : Global->decls())
      if (const auto *Directive = dyn_cast<UsingDirectiveDecl>(D))
        UsesVmap |= Directive->getNominatedNamespace()->getName() == "vmap";
    if (!UsesVmap)
      return false;
    struct FirstUse : RecursiveASTVisitor<FirstUse> {
      const SourceManager &SM;
      const DeclContext *Global;
      const DeclRefExpr *Found = nullptr;
      FirstUse(const SourceManager &SM, const DeclContext *Global)
          : SM(SM), Global(Global) {}
      bool VisitDeclRefExpr(DeclRefExpr *Ref) {
        const NamedDecl *D = Ref->getDecl();
        if (!Found && !Ref->hasQualifier() && D->getName() == "batched" &&
            D->getDeclContext()->getRedeclContext() == Global &&
            isInRewrittenFile(SM, Ref->getLocation()))
          Found = Ref;
        return !Found;
      }
    } Visitor(SM, Global);
    for (Decl *D : Global->decls())
      if (isInRewrittenFile(SM, D->getLocation()) && !Visitor.Found)
        Visitor.TraverseDecl(D);
    if (!Visitor.Found)
      return false;
    std::string Name = Visitor.Found->getDecl()->getQualifiedNameAsString();
    Diags.report(clang_vmap::diag::err_global_named_batched,
                 Visitor.Found->getLocation())
        << Name;
    Diags.report(clang_vmap::diag::note_global_named_batched,
                 Visitor.Found->getLocation())
        << Name;
    return true;
  }

  /// A loop the printer could not rewrite faithfully (Note [Macros] in
  /// emit.cpp), at the code that stopped it when it knows.
  void reportEmitRefusal(const LoopOutcome &Outcome, SourceLocation PragmaLoc) {
    std::string Why = Outcome.WhyNot.empty() ? "refused" : Outcome.WhyNot;
    if (Outcome.WhyNotRange.isInvalid()) {
      Diags.report(clang_vmap::diag::refuse_loop, PragmaLoc) << Why;
      return;
    }
    Diags.report(clang_vmap::diag::refuse_loop,
                 Outcome.WhyNotRange.getBegin(), {Outcome.WhyNotRange}, Why);
    Diags.report(clang_vmap::diag::note_macro, Outcome.WhyNotRange.getBegin());
  }

  std::vector<VmapPragma> Pragmas;
  std::vector<std::pair<SourceLocation, unsigned>> SkippedPragmas;
  std::vector<SourceLocation> Conditionals;
  Diagnostics Diags;
  LoopRemarks Remarks;
  CloneNames Names; ///< of this file's clones, shared by its loops
  Job &TheJob;
  std::shared_ptr<AllDependencies> Dependencies;
};

class VmapAction : public ASTFrontendAction {
public:
  VmapAction(Job &Job, RemarkLog *Log) : TheJob(Job), Log(Log) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &Compiler,
                                                 llvm::StringRef) override {
    auto Dependencies = std::make_shared<AllDependencies>();
    Dependencies->attachToPreprocessor(Compiler.getPreprocessor());
    return std::make_unique<VmapConsumer>(Compiler, TheJob,
                                          std::move(Dependencies), Log);
  }

private:
  Job &TheJob;
  RemarkLog *Log;
};

/// Include directories holding <vmap/vmap.hpp>, searched after the user's
/// own: the installed tree next to the tool, else the source tree it was
/// built from.
std::vector<std::string> fallbackIncludeDirs(const char *Argv0) {
  std::string Executable =
      llvm::sys::fs::getMainExecutable(Argv0, (void *)&fallbackIncludeDirs);
  llvm::SmallString<256> Installed(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(Executable)));
  llvm::sys::path::append(Installed, "include");
  llvm::SmallString<256> Header(Installed);
  llvm::sys::path::append(Header, "vmap", "vmap.hpp");
  if (llvm::sys::fs::exists(Header))
    return {std::string(Installed)};
  llvm::SmallVector<llvm::StringRef> SourceDirs;
  llvm::StringRef(CLANG_VMAP_SOURCE_INCLUDE_DIRS).split(SourceDirs, ':');
  return {SourceDirs.begin(), SourceDirs.end()};
}

/// The compile command as the tool runs it: syntax only, no outputs, with
/// the extra flags, Clang's resource directory, C++20 unless the command
/// names a standard, and the fallback include dirs.
std::vector<std::string>
toolCommandLine(const tooling::CompileCommand &Command,
                llvm::ArrayRef<std::string> FallbackIncludes) {
  using namespace tooling;
  std::vector<std::string> Before{"-resource-dir=" CLANG_VMAP_RESOURCE_DIR};
  bool NamesStandard = llvm::any_of(Command.CommandLine, [](llvm::StringRef A) {
    return A.starts_with("-std=") || A.starts_with("--std");
  });
  if (!NamesStandard)
    Before.push_back("-std=c++20");
  Before.insert(Before.end(), ExtraArgsBefore.begin(), ExtraArgsBefore.end());
  std::vector<std::string> After(ExtraArgs.begin(), ExtraArgs.end());
  if (Remarks)
    After.insert(After.end(), {"-Rpass=vmap", "-Rpass-missed=vmap",
                               "-Rpass-analysis=vmap"});
  for (const std::string &Dir : FallbackIncludes) {
    After.push_back("-idirafter");
    After.push_back(Dir);
  }
  ArgumentsAdjuster Adjust = combineAdjusters(
      combineAdjusters(getClangStripOutputAdjuster(),
                       getClangStripDependencyFileAdjuster()),
      combineAdjusters(getClangSyntaxOnlyAdjuster(),
                       combineAdjusters(
                           getInsertArgumentAdjuster(
                               Before, ArgumentInsertPosition::BEGIN),
                           getInsertArgumentAdjuster(
                               After, ArgumentInsertPosition::END))));
  return Adjust(Command.CommandLine, Command.Filename);
}

std::string absolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

/// -fdiagnostics-format=sarif: clang's SARIF printer, given its document
/// writer here. Clang hands it one only when it makes the SourceManager, which
/// a ToolInvocation has made already, so its own printer crashed. What comes
/// outside the source file (the driver's diagnostics) is printed as text.
class SarifPrinter : public SARIFDiagnosticPrinter {
public:
  explicit SarifPrinter(DiagnosticOptions *Options)
      : SARIFDiagnosticPrinter(llvm::errs(), Options),
        Text(llvm::errs(), Options) {}
  void BeginSourceFile(const LangOptions &LangOpts,
                       const Preprocessor *PP) override {
    if (!hasSarifWriter())
      setSarifWriter(
          std::make_unique<SarifDocumentWriter>(PP->getSourceManager()));
    SARIFDiagnosticPrinter::BeginSourceFile(LangOpts, PP);
    InSourceFile = true;
  }
  void EndSourceFile() override {
    InSourceFile = false;
    SARIFDiagnosticPrinter::EndSourceFile();
  }
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    if (InSourceFile)
      SARIFDiagnosticPrinter::HandleDiagnostic(Level, Info);
    else
      Text.HandleDiagnostic(Level, Info);
  }

private:
  TextDiagnosticPrinter Text;
  bool InSourceFile = false;
};

/// -fdiagnostics-format=sarif, the last -fdiagnostics-format= winning.
bool asksForSarif(llvm::ArrayRef<std::string> CommandLine) {
  std::optional<llvm::StringRef> Format;
  for (llvm::StringRef Arg : CommandLine)
    if (Arg.consume_front("-fdiagnostics-format="))
      Format = Arg;
  return Format == "sarif" || Format == "SARIF";
}

/// Parses the job's file with its compile command; fills Job.Result when the
/// file was rewritten (possibly to itself). False when it was not.
bool runJob(Job &Job, const tooling::CompileCommand &Command,
            llvm::ArrayRef<std::string> FallbackIncludes, RemarkLog *Log) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FileSystem(
      llvm::vfs::createPhysicalFileSystem().release());
  FileSystem->setCurrentWorkingDirectory(Command.Directory);
  // Reference counted: the compiler instance holds on to it too.
  llvm::IntrusiveRefCntPtr<FileManager> Files(
      new FileManager(FileSystemOptions(), FileSystem));
  // Clang does not know the tool's -W names: they go to its Diagnostics.
  std::vector<std::string> CommandLine =
      toolCommandLine(Command, FallbackIncludes);
  Job.WarningFlags.clear();
  llvm::erase_if(CommandLine, [&](const std::string &Arg) {
    if (!isVmapWarningFlag(Arg))
      return false;
    Job.WarningFlags.push_back(Arg);
    return true;
  });
  std::optional<SarifPrinter> Sarif;
  if (asksForSarif(CommandLine)) {
    std::vector<const char *> Argv;
    for (const std::string &Arg : CommandLine)
      Argv.push_back(Arg.c_str());
    Sarif.emplace(CreateAndPopulateDiagOpts(Argv).release());
  }
  tooling::ToolInvocation Invocation(std::move(CommandLine),
                                     std::make_unique<VmapAction>(Job, Log),
                                     Files.get());
  if (Sarif)
    Invocation.setDiagnosticConsumer(&*Sarif);
  if (!Invocation.run())
    return false;
  if (!Job.Result)
    return !Job.IncludesHeader; // --rewrite-header: nothing to do here
  // Dependencies relative to the command's directory become absolute.
  std::string Directory = absolutePath(Command.Directory);
  for (std::string &Dependency : Job.Result->Dependencies) {
    llvm::SmallString<256> Path(Dependency);
    llvm::sys::fs::make_absolute(Directory, Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
    Dependency = std::string(Path);
  }
  return true;
}

/// Note [Deep expressions]
/// Clang parses a chain of 10,000 `+` (its parser loops over binary operators),
/// but the analysis, batch and emit passes recurse over the expression tree,
/// a few frames per node. Each file is therefore processed on a thread with a
/// 1 GiB stack (address space, used only as deep as the recursion goes), and
/// the analysis refuses a statement nested deeper than kMaxExpressionDepth
/// nodes (analyse.cpp), which that stack holds with a wide margin.
constexpr unsigned JobStackBytes = 1u << 30;

int usageError(const llvm::Twine &Message) {
  llvm::errs() << "clang-vmap: error: " << Message << "\n";
  return BadUsage;
}

/// Prints \p Err, if any; true when there was none.
bool succeeded(llvm::Error Err) {
  if (!Err)
    return true;
  llvm::errs() << "clang-vmap: error: " << llvm::toString(std::move(Err))
               << "\n";
  return false;
}

std::string fileIdentity(llvm::StringRef Path);

/// \p Text without the `#line` directives that name \p Path (Note [Line
/// directives]); a directive's line keeps what followed it (a comment).
std::string withoutLineDirectives(llvm::StringRef Text, llvm::StringRef Path) {
  const std::string Tail = " " + stringLiteral(absolutePath(Path));
  std::string Out;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    bool HasNewline = Line.size() < Text.size();
    Text = Rest;
    llvm::StringRef Number = Line;
    if (Number.consume_front("#line ")) {
      Number = Number.drop_while(llvm::isDigit);
      if (Number.size() < Line.size() - 6 && Number.consume_front(Tail)) {
        if (Number.trim().empty())
          continue; // the whole line was the directive
        Line = Number;
      }
    }
    Out += Line;
    if (HasNewline)
      Out += '\n';
  }
  return Out;
}

/// Writes what the options ask for one rewritten file; false on failure.
bool writeOutputs(const RewrittenFile &File) {
  bool Changed = File.Rewritten != File.Original;
  // Written over its own source (-i, or -o naming it), the rewrite is the
  // file the compiler reads: a `#line` naming that file would point its
  // messages at lines that now hold other code.
  const bool OverItsSource =
      InPlace || (!OutputPath.empty() &&
                  fileIdentity(OutputPath) == fileIdentity(File.Path));
  const std::string Rewritten =
      OverItsSource ? withoutLineDirectives(File.Rewritten, File.Path)
                    : File.Rewritten;
  if (PrintDiff)
    llvm::outs() << unifiedDiff(File.Path, File.Original, Rewritten);
  if (!OutputPath.empty())
    return succeeded(writeOutputFile(OutputPath, Rewritten));
  if (InPlace)
    return !Changed || succeeded(writeOutputFile(File.Path, Rewritten));
  if (!PrintDiff && ExportFixesPath.empty())
    llvm::outs() << Rewritten;
  return true;
}

/// "file:line:col" of \p Offset in \p Text, as a diagnostic starts.
std::string locationText(llvm::StringRef Path, llvm::StringRef Text,
                         unsigned Offset) {
  llvm::StringRef Before = Text.take_front(Offset);
  size_t LineStart = Before.rfind('\n');
  unsigned Column = LineStart == llvm::StringRef::npos
                        ? Offset + 1
                        : Offset - static_cast<unsigned>(LineStart);
  return (Path + ":" + llvm::Twine(Before.count('\n') + 1) + ":" +
          llvm::Twine(Column))
      .str();
}

/// Note [Rewriting a header]: the header's rewrites by the sources that
/// include it (\p Files, from \p Jobs), as one file. A loop in a template
/// is batched by the sources that instantiate it; one that none does is
/// refused, as in a source.
std::optional<RewrittenFile>
mergeHeaderRewrites(llvm::ArrayRef<Job> Jobs,
                    llvm::ArrayRef<RewrittenFile> Files) {
  if (Files.empty()) {
    llvm::errs() << "clang-vmap: error: none of the sources includes "
                 << RewriteHeader << "\n";
    return std::nullopt;
  }
  llvm::DenseSet<unsigned> Batched;
  for (const Job &Job : Jobs)
    Batched.insert(Job.HeaderLoopsBatched.begin(),
                   Job.HeaderLoopsBatched.end());
  std::set<unsigned> NeverCompiled;
  for (const Job &Job : Jobs)
    for (unsigned Offset : Job.HeaderLoopsNotCompiled)
      if (!Batched.contains(Offset))
        NeverCompiled.insert(Offset);
  for (unsigned Offset : NeverCompiled)
    llvm::errs() << locationText(RewriteHeader, Files.front().Original, Offset)
                 << ": error: this loop is in a function template that none "
                    "of the sources instantiates: there is no code of it to "
                    "batch\n";
  if (!NeverCompiled.empty())
    return std::nullopt;
  llvm::Expected<RewrittenFile> Merged = mergeRewrites(Files);
  if (!succeeded(Merged.takeError()))
    return std::nullopt;
  return std::move(*Merged);
}

/// Where \p Path leads: the file's identity when it exists (through symbolic
/// links and hard links), else its name in its directory's real path; for
/// comparing the paths the user gave in any spelling.
std::string fileIdentity(llvm::StringRef Path) {
  llvm::sys::fs::UniqueID ID;
  if (!llvm::sys::fs::getUniqueID(Path, ID))
    return "file " + std::to_string(ID.getDevice()) + ":" +
           std::to_string(ID.getFile());
  std::string Absolute = absolutePath(Path);
  llvm::SmallString<256> Directory;
  if (llvm::sys::fs::real_path(llvm::sys::path::parent_path(Absolute),
                               Directory))
    return "path " + Absolute;
  llvm::sys::path::append(Directory, llvm::sys::path::filename(Absolute));
  return "path " + std::string(Directory);
}

/// Note [Outputs checked first]: the output files of the options, checked
/// before anything is parsed or written. One that names an input, or another
/// output, is bad usage (it would overwrite the user's source or the other
/// output); -o may name the file rewritten, as -i does. One that cannot be
/// written (a missing directory, a device, a read-only file) fails the run
/// with nothing written. Returns the exit status, or nothing to go on.
std::optional<int> checkOutputs() {
  std::vector<std::pair<std::string, std::string>> Outputs; // option, path
  const std::pair<llvm::StringRef, llvm::StringRef> Named[] = {
      {"-o", OutputPath},
      {"-MF", DepfilePath},
      {"--remarks-file", RemarksFile},
      {"--export-fixes", ExportFixesPath}};
  for (auto [Option, Path] : Named)
    if (!Path.empty() && Path != "-")
      Outputs.push_back({Option.str(), Path.str()});
  std::vector<std::string> Inputs(SourcePaths.begin(), SourcePaths.end());
  if (!RewriteHeader.empty())
    Inputs.push_back(RewriteHeader);
  std::string Rewritten =
      RewriteHeader.empty()
          ? (SourcePaths.size() == 1 ? fileIdentity(SourcePaths.front()) : "")
          : fileIdentity(RewriteHeader);
  for (auto [Index, Output] : llvm::enumerate(Outputs)) {
    auto &[Option, Path] = Output;
    std::string Identity = fileIdentity(Path);
    for (const std::string &Input : Inputs)
      if (Identity == fileIdentity(Input) &&
          !(Option == "-o" && Identity == Rewritten))
        return usageError(Option + " '" + Path + "' names the input file '" +
                          Input + "', which it would overwrite");
    for (const auto &[OtherOption, OtherPath] :
         llvm::ArrayRef(Outputs).take_front(Index))
      if (Identity == fileIdentity(OtherPath))
        return usageError(Option + " '" + Path + "' and " + OtherOption +
                          " '" + OtherPath + "' name the same file");
  }
  for (const auto &[Option, Path] : Outputs)
    if (!succeeded(checkOutputFile(Path)))
      return Refused;
  return std::nullopt;
}

int runTool(int argc, const char **argv) {
  cl::HideUnrelatedOptions(ToolCategory);
  cl::SetVersionPrinter(printVersion);
  // Flags after `--` are the compile command for every input.
  std::string ErrorMessage;
  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      tooling::FixedCompilationDatabase::loadFromCommandLine(argc, argv,
                                                             ErrorMessage);
  if (!ErrorMessage.empty())
    return usageError(ErrorMessage);
  bool FixedFlags = Compilations != nullptr;
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "rewrites `#pragma vmap` per-example loops into batched calls\n",
          &llvm::errs()))
    return BadUsage;

  if (SourcePaths.empty())
    return usageError("no input files");
  if (!OutputPath.empty() && SourcePaths.size() > 1 && RewriteHeader.empty())
    return usageError("-o needs exactly one input file (or --rewrite-header)");
  if (!RewriteHeader.empty() && !llvm::sys::fs::exists(RewriteHeader))
    return usageError("no such header: " + RewriteHeader);
  if (!OutputPath.empty() && InPlace)
    return usageError("-o and -i cannot be used together");
  if (WriteDepfile && DepfilePath.empty()) {
    if (OutputPath.empty())
      return usageError("-MD needs -MF <file> or -o <file>");
    DepfilePath = OutputPath + ".d";
  }
  if (std::optional<int> Status = checkOutputs())
    return *Status;

  if (!Compilations && !BuildPath.empty()) {
    Compilations = tooling::CompilationDatabase::autoDetectFromDirectory(
        BuildPath, ErrorMessage);
    if (!Compilations)
      return usageError(ErrorMessage);
  }
  if (!Compilations)
    Compilations = tooling::CompilationDatabase::autoDetectFromSource(
        absolutePath(SourcePaths.front()), ErrorMessage);
  if (!Compilations) { // no flags anywhere: plain C++20
    Compilations = std::make_unique<tooling::FixedCompilationDatabase>(
        ".", std::vector<std::string>());
    FixedFlags = true;
  }

  std::vector<std::string> FallbackIncludes = fallbackIncludeDirs(argv[0]);
  bool ShowProgress =
      SourcePaths.size() > 1 && llvm::sys::Process::StandardErrIsDisplayed();
  std::vector<std::string> Elsewhere;
  for (const std::string &Header : RewrittenElsewhere)
    Elsewhere.push_back(absolutePath(Header));
  setRewrittenFile(RewriteHeader.empty() ? "" : absolutePath(RewriteHeader),
                   std::move(Elsewhere));
  std::vector<Job> Jobs;
  for (const std::string &Path : SourcePaths) {
    Job &Job = Jobs.emplace_back();
    Job.Path = Path;
    Job.AbsolutePath = absolutePath(Path);
    Job.RewrittenPath = RewriteHeader.empty() ? Path : RewriteHeader;
    Job.RewrittenAbsolutePath = absolutePath(Job.RewrittenPath);
  }
  bool AllRewritten = true;
  unsigned LoopsLeftAsWritten = 0;
  RemarkLog Log; // --remarks-file: the loops of every input, refused included
  for (auto [Index, Job] : llvm::enumerate(Jobs)) {
    if (ShowProgress)
      llvm::errs() << "[" << Index + 1 << "/" << Jobs.size() << "] "
                   << Job.Path << "\n";
    if (!llvm::sys::fs::exists(Job.Path)) {
      llvm::errs() << "clang-vmap: error: no such file: " << Job.Path << "\n";
      AllRewritten = false;
      continue;
    }
    // -i rewrites regular files only: a FIFO or device is not even read.
    llvm::SmallString<256> Target;
    llvm::sys::fs::file_status Status;
    if (InPlace && !succeeded(checkRegularFile(Job.Path, Target, Status))) {
      AllRewritten = false;
      continue;
    }
    // A fixed command names the file as given, so diagnostics do too.
    std::vector<tooling::CompileCommand> Commands =
        Compilations->getCompileCommands(FixedFlags ? Job.Path
                                                    : Job.AbsolutePath);
    if (Commands.empty()) {
      llvm::errs() << "clang-vmap: error: no compile command for " << Job.Path
                   << "\n";
      AllRewritten = false;
      continue;
    }
    // A crash in the tool fails this file (left as it was), not the run.
    // Note [Deep expressions]: the passes recurse over expressions, so the
    // job runs on a thread with a stack for what clang parses.
    bool Rewritten = false;
    llvm::CrashRecoveryContext Recovery;
    if (!Recovery.RunSafelyOnThread(
            [&] {
              clang::noteBottomOfStack(); // clang's own checks measure from here
              Rewritten = runJob(Job, Commands.front(), FallbackIncludes,
                                 RemarksFile.empty() ? nullptr : &Log);
            },
            JobStackBytes))
      llvm::errs() << "clang-vmap: error: internal error while rewriting "
                   << Job.Path << "; it is left as it was\n";
    if (!Rewritten)
      AllRewritten = false;
    else if (!Job.Result)
      continue; // --rewrite-header: a source that does not include it
    else if (RewriteHeader.empty() && !writeOutputs(*Job.Result))
      AllRewritten = false;
    // --keep-going writes what it could and still fails the run, as `make -k`
    // does: SPEC's status 0 means every annotated loop was rewritten.
    else
      LoopsLeftAsWritten += Job.LoopsLeftAsWritten;
  }
  if (!RemarksFile.empty() && !succeeded(Log.writeYaml(RemarksFile)))
    return Refused;
  // The fixes of the files rewritten and the diagnostics of all, refusals
  // included, as clang-tidy exports them.
  if (!ExportFixesPath.empty()) {
    std::vector<RewrittenFile> Rewritten;
    std::vector<tooling::Diagnostic> Diagnostics;
    for (Job &Job : Jobs) {
      if (Job.Result)
        Rewritten.push_back(*Job.Result);
      llvm::append_range(Diagnostics, Job.Diagnostics);
    }
    if (!succeeded(exportFixes(ExportFixesPath, Rewritten, Diagnostics)))
      return Refused;
  }
  if (!AllRewritten)
    return Refused;

  std::vector<RewrittenFile> Files;
  for (Job &Job : Jobs)
    if (Job.Result)
      Files.push_back(std::move(*Job.Result));
  if (!RewriteHeader.empty()) {
    std::optional<RewrittenFile> Header = mergeHeaderRewrites(Jobs, Files);
    if (!Header || !writeOutputs(*Header))
      return Refused;
    Files = {std::move(*Header)};
  }
  if (!DepfilePath.empty()) {
    std::vector<std::pair<std::string, const RewrittenFile *>> Targets;
    for (const RewrittenFile &File : Files)
      Targets.push_back({OutputPath.empty() ? File.Path : OutputPath, &File});
    if (!succeeded(writeDepfile(DepfilePath, Targets)))
      return Refused;
  }
  if (LoopsLeftAsWritten > 0) {
    // The refusals' warnings may be silenced (-Wno-vmap-refused): this line
    // still says why the status is 1.
    llvm::errs() << "clang-vmap: " << LoopsLeftAsWritten
                 << (LoopsLeftAsWritten == 1 ? " loop was" : " loops were")
                 << " left as written (--keep-going): exit status 1\n";
    return Refused;
  }
  return Success;
}

} // namespace

int main(int argc, const char **argv) {
  llvm::InitLLVM Init(argc, argv);
  llvm::CrashRecoveryContext::Enable();
  // A reader that closes standard output early (`| head`) makes writes to it
  // fail, not end the run: the other outputs (--remarks-file, -MF) are still
  // written and the status is the rewrite's. LLVM's own handler would exit 74.
  std::signal(SIGPIPE, SIG_IGN);
  int Status = runTool(argc, argv);
  llvm::outs().flush();
  llvm::outs().clear_error(); // the dropped output is not a failure
  return Status;
}
