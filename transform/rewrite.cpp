//===- rewrite.cpp - Pass 5: replacements and the tool's output modes -----===//

#include "rewrite.h"
#include "ast_util.h"
#include "diagnostics.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/YAMLTraits.h"
#include <set>

using namespace clang;
using clang::tooling::Replacement;
using clang::tooling::Replacements;

namespace clang_vmap {

//===----------------------------------------------------------------------===//
// rewrite
//===----------------------------------------------------------------------===//

namespace {

/// Adds \p Insertion; a second insertion at the same offset goes after the
/// first (two loops asking for batched clones before one function).
llvm::Error addInsertion(Replacements &Result, const Replacement &Insertion) {
  llvm::Error Err = Result.add(Insertion);
  if (!Err)
    return Err;
  bool SameOffset = false;
  llvm::Error Other = llvm::handleErrors(
      std::move(Err), [&](const tooling::ReplacementError &Conflict) {
        SameOffset =
            Conflict.get() == tooling::replacement_error::insert_conflict;
        return SameOffset ? llvm::Error::success()
                          : llvm::make_error<tooling::ReplacementError>(
                                Conflict.get(), *Conflict.getNewReplacement(),
                                *Conflict.getExistingReplacement());
      });
  if (Other)
    return Other;
  unsigned Shifted = Result.getShiftedCodePosition(Insertion.getOffset());
  Result = Result.merge(Replacements(Replacement(
      Insertion.getFilePath(), Shifted, 0, Insertion.getReplacementText())));
  return llvm::Error::success();
}

/// Rewritten code calls vmap::batched; the user's file includes only
/// <vmap/vmap.hpp>, so the rewrite adds the batched API's header.
/// An #include line of it, not a mention in a comment or string (the header
/// has #pragma once, so a second include would be harmless, a missing one not).
bool includesBatchedApi(const SourceManager &SM) {
  llvm::SmallVector<llvm::StringRef> Lines;
  SM.getBufferData(SM.getMainFileID()).split(Lines, '\n');
  return llvm::any_of(Lines, [](llvm::StringRef Line) {
    Line = Line.trim();
    return Line.consume_front("#") &&
           Line.ltrim().starts_with("include") &&
           Line.contains("vmap/batched.hpp");
  });
}

/// Just after the line including <vmap/vmap.hpp> (where a reader looks for
/// it), else at the top of the file.
unsigned batchedIncludeOffset(const SourceManager &SM) {
  llvm::StringRef Text = SM.getBufferData(SM.getMainFileID());
  size_t LineStart = 0;
  while (LineStart < Text.size()) {
    size_t LineEnd = Text.find('\n', LineStart);
    if (LineEnd == llvm::StringRef::npos)
      break; // a last line without a newline: insert at the top instead
    llvm::StringRef Line = Text.slice(LineStart, LineEnd).trim();
    if (Line.starts_with("#") && Line.contains("include") &&
        Line.contains("vmap/vmap.hpp"))
      return LineEnd + 1;
    LineStart = LineEnd + 1;
  }
  // After a UTF-8 byte-order mark, which must stay the file's first bytes.
  return Text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
}

} // namespace

std::optional<Replacements> rewrite(ASTContext &Context,
                                    llvm::ArrayRef<LoopOutcome> Outcomes,
                                    llvm::StringRef MainFilePath,
                                    Diagnostics &Diags) {
  const SourceManager &SM = Context.getSourceManager();
  Replacements Result;
  std::set<std::pair<unsigned, std::string>> Inserted;
  auto Fail = [&](SourceLocation Loc, std::string Why) {
    Diags.report(diag::err_cannot_rewrite, Loc) << Why;
    return std::nullopt;
  };
  for (const LoopOutcome &Outcome : Outcomes) {
    if (!Outcome.Batched)
      continue;
    SourceLocation PragmaLoc =
        Outcome.Loop ? Outcome.Loop->PragmaLoc : Outcome.Range.getBegin();
    CharSourceRange Range =
        Lexer::makeFileCharRange(Outcome.Range, SM, Context.getLangOpts());
    if (Range.isInvalid() || !SM.isInMainFile(Range.getBegin()))
      return Fail(PragmaLoc, "the loop's text is not in the main file");
    unsigned Begin = SM.getFileOffset(Range.getBegin());
    unsigned End = SM.getFileOffset(Range.getEnd());
    if (llvm::Error Err = Result.add(
            Replacement(MainFilePath, Begin, End - Begin, Outcome.Text)))
      return Fail(PragmaLoc, llvm::toString(std::move(Err)));
    for (const auto &[Loc, Text] : Outcome.Insertions) {
      SourceLocation FileLoc = SM.getExpansionLoc(Loc);
      if (!SM.isInMainFile(FileLoc))
        return Fail(PragmaLoc, "an insertion point is not in the main file");
      unsigned Offset = SM.getFileOffset(FileLoc);
      if (!Inserted.insert({Offset, Text}).second)
        continue; // the same clone, asked for by another loop
      if (llvm::Error Err = addInsertion(
              Result, Replacement(MainFilePath, Offset, 0, Text)))
        return Fail(PragmaLoc, llvm::toString(std::move(Err)));
    }
  }
  if (!Result.empty() && !includesBatchedApi(SM)) {
    unsigned Offset = batchedIncludeOffset(SM);
    unsigned Line = SM.getLineNumber(SM.getMainFileID(), Offset);
    if (llvm::Error Err = addInsertion(
            Result, Replacement(MainFilePath, Offset, 0,
                                "#include <vmap/batched.hpp>\n" +
                                    lineDirective(Context, Line) + "\n")))
      return Fail(SM.getLocForStartOfFile(SM.getMainFileID()),
                  llvm::toString(std::move(Err)));
  }
  return Result;
}

void dumpReplacements(const Replacements &Replacements,
                      llvm::raw_ostream &OS) {
  for (const Replacement &R : Replacements)
    OS << "replace " << R.getFilePath() << " offset " << R.getOffset()
       << " length " << R.getLength() << " with:\n"
       << R.getReplacementText() << "\n";
}

//===----------------------------------------------------------------------===//
// unified diff
//===----------------------------------------------------------------------===//

namespace {

/// Lines with their terminators, so a missing final newline is a difference.
std::vector<llvm::StringRef> splitLines(llvm::StringRef Text) {
  std::vector<llvm::StringRef> Lines;
  while (!Text.empty()) {
    size_t End = Text.find('\n');
    End = End == llvm::StringRef::npos ? Text.size() : End + 1;
    Lines.push_back(Text.take_front(End));
    Text = Text.drop_front(End);
  }
  return Lines;
}

enum class EditKind { Keep, Remove, Add };
struct Edit {
  EditKind Kind;
  llvm::StringRef Line;
};

/// Myers' O((N+M)D) shortest edit script. Keeps one frontier per edit count
/// for the walk back; past MaxEdits the middle is one remove-all/add-all.
std::vector<Edit> shortestEdits(llvm::ArrayRef<llvm::StringRef> Old,
                                llvm::ArrayRef<llvm::StringRef> New) {
  constexpr int MaxEdits = 4000;
  const int N = Old.size(), M = New.size();
  // Frontiers[D][K + D]: furthest Old index reached on diagonal K with D edits.
  std::vector<std::vector<int>> Frontiers;
  int Edits = -1;
  for (int D = 0; D <= std::min(N + M, MaxEdits) && Edits < 0; ++D) {
    std::vector<int> Frontier(2 * D + 1);
    for (int K = -D; K <= D; K += 2) {
      int X;
      if (D == 0)
        X = 0;
      else if (K == -D || (K != D && Frontiers[D - 1][K - 1 + D - 1] <
                                         Frontiers[D - 1][K + 1 + D - 1]))
        X = Frontiers[D - 1][K + 1 + D - 1]; // step down: an added line
      else
        X = Frontiers[D - 1][K - 1 + D - 1] + 1; // step right: a removed line
      int Y = X - K;
      while (X < N && Y < M && Old[X] == New[Y])
        ++X, ++Y;
      Frontier[K + D] = X;
      if (X >= N && Y >= M)
        Edits = D;
    }
    Frontiers.push_back(std::move(Frontier));
  }
  std::vector<Edit> Script;
  if (Edits < 0) {
    for (llvm::StringRef Line : Old)
      Script.push_back({EditKind::Remove, Line});
    for (llvm::StringRef Line : New)
      Script.push_back({EditKind::Add, Line});
    return Script;
  }
  // Walk back from (N, M), collecting the script in reverse.
  int X = N, Y = M;
  for (int D = Edits; D > 0; --D) {
    const std::vector<int> &Previous = Frontiers[D - 1];
    int K = X - Y;
    bool Down = K == -D || (K != D && Previous[K - 1 + D - 1] <
                                          Previous[K + 1 + D - 1]);
    int PreviousK = Down ? K + 1 : K - 1;
    int PreviousX = Previous[PreviousK + D - 1];
    int PreviousY = PreviousX - PreviousK;
    int SnakeX = Down ? PreviousX : PreviousX + 1;
    while (X > SnakeX)
      Script.push_back({EditKind::Keep, Old[--X]}), --Y;
    if (Down)
      Script.push_back({EditKind::Add, New[PreviousY]});
    else
      Script.push_back({EditKind::Remove, Old[PreviousX]});
    X = PreviousX;
    Y = PreviousY;
  }
  while (X > 0)
    Script.push_back({EditKind::Keep, Old[--X]});
  std::reverse(Script.begin(), Script.end());
  return Script;
}

void printLine(llvm::raw_ostream &OS, char Prefix, llvm::StringRef Line) {
  OS << Prefix << Line;
  if (!Line.ends_with("\n"))
    OS << "\n\\ No newline at end of file\n";
}

/// `@@ -start,count +start,count @@`, with diff's conventions for counts of
/// one (omitted) and zero (start is the line before).
void printRange(llvm::raw_ostream &OS, char Sign, int Start, int Count) {
  OS << Sign << (Count == 0 ? Start : Start + 1);
  if (Count != 1)
    OS << "," << Count;
}

} // namespace

std::string unifiedDiff(llvm::StringRef Path, llvm::StringRef Old,
                        llvm::StringRef New) {
  constexpr int Context = 3;
  std::vector<llvm::StringRef> OldLines = splitLines(Old);
  std::vector<llvm::StringRef> NewLines = splitLines(New);
  std::vector<Edit> Script = shortestEdits(OldLines, NewLines);
  std::string Diff;
  llvm::raw_string_ostream OS(Diff);
  const int Size = Script.size();
  // Line numbers in Old and New before each script position.
  std::vector<int> OldAt(Size + 1), NewAt(Size + 1);
  for (int I = 0; I < Size; ++I) {
    OldAt[I + 1] = OldAt[I] + (Script[I].Kind != EditKind::Add);
    NewAt[I + 1] = NewAt[I] + (Script[I].Kind != EditKind::Remove);
  }
  int I = 0;
  while (I < Size) {
    if (Script[I].Kind == EditKind::Keep) {
      ++I;
      continue;
    }
    // A hunk: changes closer than 2 * Context keep lines apart, with context.
    int Begin = std::max(0, I - Context);
    int End = I;
    int LastChange = I;
    while (End < Size && End - LastChange <= 2 * Context) {
      if (Script[End].Kind != EditKind::Keep)
        LastChange = End;
      ++End;
    }
    End = std::min(Size, LastChange + 1 + Context);
    if (Diff.empty())
      OS << "--- " << Path << "\n+++ " << Path << "\n";
    OS << "@@ ";
    printRange(OS, '-', OldAt[Begin], OldAt[End] - OldAt[Begin]);
    OS << " ";
    printRange(OS, '+', NewAt[Begin], NewAt[End] - NewAt[Begin]);
    OS << " @@\n";
    for (int J = Begin; J < End; ++J)
      printLine(OS,
                Script[J].Kind == EditKind::Keep     ? ' '
                : Script[J].Kind == EditKind::Remove ? '-'
                                                     : '+',
                Script[J].Line);
    I = End;
  }
  return Diff;
}

//===----------------------------------------------------------------------===//
// files
//===----------------------------------------------------------------------===//

llvm::Error writeFileAtomically(llvm::StringRef Path,
                                llvm::StringRef Contents) {
  llvm::sys::fs::file_status Status;
  bool Existed = !llvm::sys::fs::status(Path, Status) &&
                 llvm::sys::fs::exists(Status);
  if (llvm::Error Err =
          llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
            OS << Contents;
            return llvm::Error::success();
          }))
    return Err;
  if (!Existed)
    return llvm::Error::success();
  return llvm::errorCodeToError(
      llvm::sys::fs::setPermissions(Path, Status.permissions()));
}

llvm::Error exportFixes(llvm::StringRef YamlPath,
                        llvm::ArrayRef<RewrittenFile> Files,
                        llvm::ArrayRef<tooling::Diagnostic> Diagnostics) {
  tooling::TranslationUnitDiagnostics Fixes;
  if (!Files.empty())
    Fixes.MainSourceFile = Files.front().AbsolutePath;
  else if (!Diagnostics.empty())
    Fixes.MainSourceFile = Diagnostics.front().Message.FilePath;
  for (const RewrittenFile &File : Files) {
    if (File.Replacements.empty())
      continue;
    tooling::DiagnosticMessage Message("rewritten by clang-vmap");
    Message.FilePath = File.AbsolutePath;
    Message.FileOffset = File.Replacements.begin()->getOffset();
    Message.Fix[File.AbsolutePath] = File.Replacements;
    Fixes.Diagnostics.emplace_back(
        "clang-vmap-rewrite", Message,
        llvm::SmallVector<tooling::DiagnosticMessage, 1>(),
        tooling::Diagnostic::Remark, "");
  }
  llvm::append_range(Fixes.Diagnostics, Diagnostics);
  std::string Yaml;
  llvm::raw_string_ostream OS(Yaml);
  llvm::yaml::Output Out(OS);
  Out << Fixes;
  return writeFileAtomically(YamlPath, Yaml);
}

namespace {

/// Make's escaping of a file name in a rule.
std::string escapeForMake(llvm::StringRef Name) {
  std::string Escaped;
  for (char C : Name) {
    if (C == ' ' || C == '#')
      Escaped += '\\';
    if (C == '$')
      Escaped += '$';
    Escaped += C;
  }
  return Escaped;
}

} // namespace

llvm::Error writeDepfile(
    llvm::StringRef DepfilePath,
    llvm::ArrayRef<std::pair<std::string, const RewrittenFile *>>
        TargetsAndFiles) {
  std::string Rules;
  llvm::raw_string_ostream OS(Rules);
  for (const auto &[Target, File] : TargetsAndFiles) {
    OS << escapeForMake(Target) << ":";
    for (const std::string &Dependency : File->Dependencies)
      OS << " \\\n  " << escapeForMake(Dependency);
    OS << "\n";
  }
  return writeFileAtomically(DepfilePath, Rules);
}

} // namespace clang_vmap
