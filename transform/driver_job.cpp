//===- driver_job.cpp - One input: its parse and the passes over it -------===//
//
// Parses one source with its compile command (the tool's flags added, its own
// -W flags taken out, SARIF where asked) and, in the AST consumer, runs the
// passes on each top-level vmap loop (find -> analyse -> batch -> emit ->
// rewrite): the Job's rewritten text, dependencies and diagnostics.
//
//===----------------------------------------------------------------------===//

#include "driver.h"
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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;
using namespace clang_vmap;

namespace {

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
  /// emit_expr.cpp), at the code that stopped it when it knows.
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

} // namespace

namespace clang_vmap {

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

} // namespace clang_vmap
