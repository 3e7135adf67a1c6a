//===- rewrite.cpp - Pass 5: replacements and the tool's output modes -----===//

#include "rewrite.h"
#include "ast_util.h"
#include "diagnostics.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/YAMLTraits.h"
#include <map>
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
  SM.getBufferData(rewrittenFileID(SM)).split(Lines, '\n');
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
  llvm::StringRef Text = SM.getBufferData(rewrittenFileID(SM));
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
  // Clones by place and heading, and the loop that asked for each first.
  std::map<std::pair<unsigned, std::string>, std::pair<std::string, SourceLocation>>
      Clones;
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
    if (Range.isInvalid() || !isInRewrittenFile(SM, Range.getBegin()))
      return Fail(PragmaLoc, "the loop's text is not in the file rewritten");
    unsigned Begin = SM.getFileOffset(Range.getBegin());
    unsigned End = SM.getFileOffset(Range.getEnd());
    if (llvm::Error Err = Result.add(
            Replacement(MainFilePath, Begin, End - Begin, Outcome.Text)))
      return Fail(PragmaLoc, llvm::toString(std::move(Err)));
    for (const auto &[Loc, Text] : Outcome.Insertions) {
      SourceLocation FileLoc = SM.getExpansionLoc(Loc);
      if (!isInRewrittenFile(SM, FileLoc))
        return Fail(PragmaLoc,
                    "an insertion point is not in the file rewritten");
      unsigned Offset = SM.getFileOffset(FileLoc);
      if (!Inserted.insert({Offset, Text}).second)
        continue; // the same clone, asked for by another loop
      // Two specializations of a class template that need different code
      // of one member would get two clones of one name.
      auto [Clone, New] = Clones.try_emplace(
          {Offset, insertionHeading(Text).str()}, Text, PragmaLoc);
      if (!New) {
        StringRef Heading = insertionHeading(Text);
        std::string Name =
            ("'" + Heading.split('\'').second.split('\'').first + "'").str();
        SourceLocation FirstLoop = Clone->second.second;
        Diags.report(diag::refuse_member_specializations_differ, PragmaLoc)
            << Name << (FirstLoop != PragmaLoc)
            << SM.getPresumedLineNumber(FirstLoop);
        // Each call of the two clones, in the loops' order.
        for (const LoopOutcome &Caller : Outcomes)
          for (const auto &[CalleeHeading, Call] : Caller.CloneCalls)
            if (CalleeHeading == Heading)
              Diags.report(diag::note_clone_called_here, Call) << Name;
        Diags.report(diag::note_member_specializations_differ, PragmaLoc)
            << Name;
        return std::nullopt;
      }
      if (llvm::Error Err = addInsertion(
              Result, Replacement(MainFilePath, Offset, 0, Text)))
        return Fail(PragmaLoc, llvm::toString(std::move(Err)));
    }
  }
  if (!Result.empty() && !includesBatchedApi(SM)) {
    unsigned Offset = batchedIncludeOffset(SM);
    unsigned Line = SM.getLineNumber(rewrittenFileID(SM), Offset);
    if (llvm::Error Err = addInsertion(
            Result, Replacement(MainFilePath, Offset, 0,
                                "#include <vmap/batched.hpp>\n" +
                                    lineDirective(Context, Line) + "\n")))
      return Fail(SM.getLocForStartOfFile(rewrittenFileID(SM)),
                  llvm::toString(std::move(Err)));
  }
  return Result;
}

llvm::Expected<RewrittenFile>
mergeRewrites(llvm::ArrayRef<RewrittenFile> Files) {
  RewrittenFile Merged = Files.front();
  Merged.Replacements = Replacements();
  std::vector<Replacement> Distinct;
  std::set<std::string> Dependencies;
  for (const RewrittenFile &File : Files) {
    for (const Replacement &R : File.Replacements)
      if (!llvm::is_contained(Distinct, R))
        Distinct.push_back(R);
    Dependencies.insert(File.Dependencies.begin(), File.Dependencies.end());
  }
  for (const Replacement &R : Distinct)
    if (llvm::Error Err = R.getLength() == 0
                              ? addInsertion(Merged.Replacements, R)
                              : Merged.Replacements.add(R)) {
      llvm::consumeError(std::move(Err));
      return llvm::createStringError(
          "the sources including " + Merged.Path +
          " rewrite its loops differently (do they compile it with different "
          "flags?)");
    }
  llvm::Expected<std::string> Rewritten =
      tooling::applyAllReplacements(Merged.Original, Merged.Replacements);
  if (!Rewritten)
    return Rewritten.takeError();
  Merged.Rewritten = std::move(*Rewritten);
  Merged.Dependencies.assign(Dependencies.begin(), Dependencies.end());
  return Merged;
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

namespace {

llvm::Error refuseToWrite(llvm::StringRef Path, llvm::StringRef Why) {
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument),
      ("'" + Path + "' " + Why + "; nothing written").str().c_str());
}

/// Writes all of \p Contents to \p FD from its current offset.
std::error_code writeAll(int FD, llvm::StringRef Contents) {
  llvm::raw_fd_ostream OS(FD, /*shouldClose=*/false);
  OS << Contents;
  OS.flush();
  std::error_code EC = OS.error();
  OS.clear_error(); // reported here, not by the stream's destructor
  return EC;
}

/// Note [Writing over a file]: a file with other hard links is rewritten in
/// its own inode, so every name keeps seeing it. The new contents are complete
/// in memory before the file is opened; they go over the old bytes, then the
/// file is cut to their length, so the only failure window is a short write.
llvm::Error writeInPlace(llvm::StringRef Path, llvm::StringRef ShownPath,
                         llvm::StringRef Contents) {
  int FD;
  if (std::error_code EC = llvm::sys::fs::openFileForWrite(
          Path, FD, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_None))
    return llvm::createFileError(ShownPath, EC);
  llvm::sys::fs::file_status Opened;
  std::error_code EC = llvm::sys::fs::status(FD, Opened);
  if (!EC && Opened.type() != llvm::sys::fs::file_type::regular_file) {
    llvm::sys::Process::SafelyCloseFileDescriptor(FD);
    return refuseToWrite(ShownPath, "is not a regular file");
  }
  if (!EC)
    EC = writeAll(FD, Contents);
  if (!EC)
    EC = llvm::sys::fs::resize_file(FD, Contents.size());
  std::error_code CloseEC = llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  if (!EC)
    EC = CloseEC;
  return EC ? llvm::createFileError(ShownPath, EC) : llvm::Error::success();
}

/// A temporary file in \p Path's directory, with \p Original's mode and, when
/// it can be given, its owner, renamed over \p Path. A temporary that cannot
/// take the owner is dropped and the file written in place instead.
llvm::Error replaceFile(llvm::StringRef Path, llvm::StringRef ShownPath,
                        llvm::StringRef Contents,
                        const llvm::sys::fs::file_status *Original) {
  llvm::Expected<llvm::sys::fs::TempFile> Temp =
      llvm::sys::fs::TempFile::create(Path + ".vmap-%%%%%%.tmp",
                                      llvm::sys::fs::all_read |
                                          llvm::sys::fs::all_write);
  if (!Temp)
    return llvm::createFileError(ShownPath, Temp.takeError());
  std::error_code EC = writeAll(Temp->FD, Contents);
  if (!EC && Original) {
    llvm::sys::fs::file_status Created;
    EC = llvm::sys::fs::status(Temp->FD, Created);
    if (!EC &&
        (Created.getUser() != Original->getUser() ||
         Created.getGroup() != Original->getGroup()) &&
        llvm::sys::fs::changeFileOwnership(Temp->FD, Original->getUser(),
                                           Original->getGroup())) {
      if (llvm::Error Err = Temp->discard())
        return Err;
      return writeInPlace(Path, ShownPath, Contents);
    }
    if (!EC)
      EC = llvm::sys::fs::setPermissions(Temp->FD, Original->permissions());
  }
  if (EC) {
    llvm::consumeError(Temp->discard());
    return llvm::createFileError(ShownPath, EC);
  }
  if (llvm::Error Err = Temp->keep(Path))
    return llvm::createFileError(ShownPath, std::move(Err));
  return llvm::Error::success();
}

} // namespace

llvm::Error checkRegularFile(llvm::StringRef Path,
                             llvm::SmallVectorImpl<char> &Target,
                             llvm::sys::fs::file_status &Status) {
  namespace fs = llvm::sys::fs;
  if (std::error_code EC = fs::real_path(Path, Target)) {
    fs::file_status Link;
    if (!fs::status(Path, Link, /*Follow=*/false) &&
        Link.type() == fs::file_type::symlink_file)
      return refuseToWrite(Path, "is a symbolic link to no file");
    return llvm::createFileError(Path, EC);
  }
  if (std::error_code EC = fs::status(Target, Status))
    return llvm::createFileError(Path, EC);
  if (Status.type() != fs::file_type::regular_file)
    return refuseToWrite(Path, "is not a regular file");
  return llvm::Error::success();
}

namespace {

/// Refuses \p Path, an existing path, unless writeOutputFile may write over
/// it; the file it names and its status go to \p Target and \p Status.
llvm::Error checkWritableFile(llvm::StringRef Path,
                              llvm::SmallVectorImpl<char> &Target,
                              llvm::sys::fs::file_status &Status) {
  namespace fs = llvm::sys::fs;
  // A symbolic link is followed: its target is the file rewritten.
  if (llvm::Error Err = checkRegularFile(Path, Target, Status))
    return Err;
  // As editors do: a file without write permission (root included) is the
  // user's choice to keep as it is.
  if ((Status.permissions() &
       (fs::owner_write | fs::group_write | fs::others_write)) == 0 ||
      fs::access(Target, fs::AccessMode::Write))
    return refuseToWrite(Path, "is not writable");
  return llvm::Error::success();
}

} // namespace

llvm::Error checkOutputFile(llvm::StringRef Path) {
  namespace fs = llvm::sys::fs;
  if (Path == "-")
    return llvm::Error::success();
  fs::file_status Link;
  if (std::error_code EC = fs::status(Path, Link, /*Follow=*/false)) {
    if (EC != std::errc::no_such_file_or_directory)
      return llvm::createFileError(Path, EC);
    // A new file: its directory must exist and take a new entry.
    llvm::SmallString<256> Directory(llvm::sys::path::parent_path(Path));
    if (Directory.empty())
      Directory = ".";
    fs::file_status DirectoryStatus;
    if (fs::status(Directory, DirectoryStatus) ||
        DirectoryStatus.type() != fs::file_type::directory_file)
      return refuseToWrite(Path, "is in a directory that does not exist");
    if (fs::access(Directory, fs::AccessMode::Write))
      return refuseToWrite(Path, "is in a directory that is not writable");
    return llvm::Error::success();
  }
  llvm::SmallString<256> Target;
  fs::file_status Status;
  return checkWritableFile(Path, Target, Status);
}

llvm::Error writeOutputFile(llvm::StringRef Path, llvm::StringRef Contents) {
  if (Path == "-") {
    llvm::outs() << Contents;
    llvm::outs().flush();
    return llvm::Error::success();
  }
  namespace fs = llvm::sys::fs;
  fs::file_status Link;
  if (std::error_code EC = fs::status(Path, Link, /*Follow=*/false)) {
    if (EC != std::errc::no_such_file_or_directory)
      return llvm::createFileError(Path, EC);
    return replaceFile(Path, Path, Contents, nullptr); // a new file
  }
  llvm::SmallString<256> Target;
  fs::file_status Status;
  if (llvm::Error Err = checkWritableFile(Path, Target, Status))
    return Err;
  if (Status.getLinkCount() > 1)
    return writeInPlace(Target, Path, Contents);
  return replaceFile(Target, Path, Contents, &Status);
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
  return writeOutputFile(YamlPath, Yaml);
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
  return writeOutputFile(DepfilePath, Rules);
}

} // namespace clang_vmap
