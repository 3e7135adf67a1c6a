//===- diagnostics.cpp - clang-vmap's own diagnostics ---------------------===//

#include "diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include <array>
#include <cstring>
#include <optional>

using namespace clang;

namespace clang_vmap {
namespace {

enum class DiagLevel { Error, Warning, Remark, Note, Refusal };

struct Entry {
  DiagLevel Level;
  const char *Format;
};

constexpr Entry Entries[] = {
#define VMAP_DIAG(Name, Lvl, Format) {DiagLevel::Lvl, Format},
#define VMAP_REFUSAL(Name, Format) {DiagLevel::Refusal, Format},
#include "diagnostics.def"
};
static_assert(std::size(Entries) == diag::NumKinds);

/// The -W name of each warning (null for the other levels); refusals, which
/// --keep-going makes warnings, share one.
constexpr const char *RefusalFlag = "vmap-refused";
/// The group of all of them: -Wno-vmap, -Werror=vmap.
constexpr llvm::StringLiteral GroupFlag = "vmap";

constexpr std::array<const char *, diag::NumKinds> warningFlags() {
  std::array<const char *, diag::NumKinds> Flags{};
#define VMAP_WARNING_FLAG(Name, Flag) Flags[diag::Name] = Flag;
#include "diagnostics.def"
  for (unsigned Kind = 0; Kind < diag::NumKinds; ++Kind)
    if (Entries[Kind].Level == DiagLevel::Refusal)
      Flags[Kind] = RefusalFlag;
  return Flags;
}
constexpr std::array<const char *, diag::NumKinds> FlagOf = warningFlags();

constexpr bool everyWarningHasAFlag() {
  for (unsigned Kind = 0; Kind < diag::NumKinds; ++Kind) {
    bool Warns = Entries[Kind].Level == DiagLevel::Warning ||
                 Entries[Kind].Level == DiagLevel::Refusal;
    if (Warns != (FlagOf[Kind] != nullptr))
      return false;
  }
  return true;
}
static_assert(everyWarningHasAFlag(),
              "each Warning in diagnostics.def needs one VMAP_WARNING_FLAG");

/// `-W[no-][error=]<name>`, split.
struct WarningFlag {
  bool No = false;
  bool ErrorForm = false;
  llvm::StringRef Name;
};

std::optional<WarningFlag> parseWarningFlag(llvm::StringRef Arg) {
  WarningFlag Flag;
  if (!Arg.consume_front("-W"))
    return std::nullopt;
  Flag.No = Arg.consume_front("no-");
  Flag.ErrorForm = Arg.consume_front("error=");
  Flag.Name = Arg;
  bool Known = Arg == GroupFlag || llvm::any_of(FlagOf, [&](const char *F) {
                 return F && Arg == F;
               });
  if (!Known)
    return std::nullopt;
  return Flag;
}

/// The severity of a warning named \p Name, as clang maps its own: the -W
/// flags in order (-Wx, -Wno-x, -Werror=x, -Wno-error=x, x or the group),
/// then -Werror, then -w over everything.
DiagnosticIDs::Level warningSeverity(llvm::StringRef Name,
                                     llvm::ArrayRef<std::string> Flags,
                                     const DiagnosticsEngine &Engine) {
  if (Engine.getIgnoreAllWarnings())
    return DiagnosticIDs::Ignored;
  DiagnosticIDs::Level Mapped = DiagnosticIDs::Warning;
  bool NoWarningAsError = false;
  for (const std::string &Arg : Flags) {
    std::optional<WarningFlag> Flag = parseWarningFlag(Arg);
    if (!Flag || (Flag->Name != Name && Flag->Name != GroupFlag))
      continue;
    if (!Flag->ErrorForm) {
      Mapped = Flag->No ? DiagnosticIDs::Ignored : DiagnosticIDs::Warning;
    } else if (!Flag->No) {
      Mapped = DiagnosticIDs::Error;
    } else {
      NoWarningAsError = true;
      if (Mapped == DiagnosticIDs::Error)
        Mapped = DiagnosticIDs::Warning;
    }
  }
  if (Mapped == DiagnosticIDs::Warning && Engine.getWarningsAsErrors() &&
      !NoWarningAsError)
    return DiagnosticIDs::Error;
  return Mapped;
}

/// Custom diagnostics in Clang 19 have a fixed severity and no -W group, so
/// the flags are applied here, once per translation unit, and the format
/// carries the `[-Wname]` clang's printer would add.
std::pair<DiagnosticIDs::Level, std::string>
severityAndFormat(diag::Kind Kind, const DiagnosticsEngine &Engine,
                  bool KeepGoing, llvm::ArrayRef<std::string> WarningFlags) {
  const Entry &E = Entries[Kind];
  switch (E.Level) {
  case DiagLevel::Error:
    return {DiagnosticIDs::Error, E.Format};
  case DiagLevel::Remark:
    return {DiagnosticIDs::Remark, E.Format};
  case DiagLevel::Note:
    return {DiagnosticIDs::Note, E.Format};
  case DiagLevel::Refusal:
    if (!KeepGoing)
      return {DiagnosticIDs::Error, E.Format};
    [[fallthrough]];
  case DiagLevel::Warning: {
    DiagnosticIDs::Level Level =
        warningSeverity(FlagOf[Kind], WarningFlags, Engine);
    std::string Format = E.Format;
    if (Engine.getDiagnosticOptions().ShowOptionNames)
      Format += std::string(Level == DiagnosticIDs::Error ? " [-Werror,-W"
                                                          : " [-W") +
                FlagOf[Kind] + "]";
    return {Level, Format};
  }
  }
  llvm_unreachable("unknown diagnostic level");
}

/// Forwards every diagnostic to the engine's own consumer (clang's printer),
/// keeping the latest refusal (its text formatted without its `[-W...]`).
class RefusalRecorder : public DiagnosticConsumer {
public:
  RefusalRecorder(DiagnosticConsumer &Next,
                  std::unique_ptr<DiagnosticConsumer> OwnedNext,
                  llvm::DenseMap<unsigned, const char *> RefusalFormats,
                  std::shared_ptr<Diagnostics::Refusal> LastRefusal)
      : Next(Next), OwnedNext(std::move(OwnedNext)),
        RefusalFormats(std::move(RefusalFormats)),
        LastRefusal(std::move(LastRefusal)) {}

  void BeginSourceFile(const LangOptions &LangOpts,
                       const Preprocessor *PP) override {
    Next.BeginSourceFile(LangOpts, PP);
  }
  void EndSourceFile() override { Next.EndSourceFile(); }
  void finish() override { Next.finish(); }
  void clear() override {
    DiagnosticConsumer::clear();
    Next.clear();
  }
  bool IncludeInDiagnosticCounts() const override {
    return Next.IncludeInDiagnosticCounts();
  }
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (const char *Format = RefusalFormats.lookup(Info.getID())) {
      llvm::SmallString<128> Text;
      Info.FormatDiagnostic(Format, Format + std::strlen(Format), Text);
      *LastRefusal = {std::string(Text), Info.getLocation()};
    }
    Next.HandleDiagnostic(Level, Info);
  }

private:
  DiagnosticConsumer &Next;
  std::unique_ptr<DiagnosticConsumer> OwnedNext;
  llvm::DenseMap<unsigned, const char *> RefusalFormats;
  std::shared_ptr<Diagnostics::Refusal> LastRefusal;
};

} // namespace

bool isVmapWarningFlag(llvm::StringRef Arg) {
  return parseWarningFlag(Arg).has_value();
}

Diagnostics::Diagnostics(DiagnosticsEngine &Engine, bool KeepGoing,
                         llvm::ArrayRef<std::string> WarningFlags)
    : Engine(Engine), KeepGoing(KeepGoing),
      LastRefusal(std::make_shared<Refusal>()) {
  DiagnosticIDs &IDs = *Engine.getDiagnosticIDs();
  CustomIDs.reserve(diag::NumKinds);
  llvm::DenseMap<unsigned, const char *> RefusalFormats;
  for (unsigned Kind = 0; Kind < diag::NumKinds; ++Kind) {
    auto [Level, Format] = severityAndFormat(static_cast<diag::Kind>(Kind),
                                             Engine, KeepGoing, WarningFlags);
    CustomIDs.push_back(IDs.getCustomDiagID(Level, Format));
    if (Entries[Kind].Level == DiagLevel::Refusal)
      RefusalFormats[CustomIDs.back()] = Entries[Kind].Format;
  }
  DiagnosticConsumer &Next = *Engine.getClient();
  std::unique_ptr<DiagnosticConsumer> OwnedNext = Engine.takeClient();
  Engine.setClient(new RefusalRecorder(Next, std::move(OwnedNext),
                                       std::move(RefusalFormats), LastRefusal),
                   /*ShouldOwnClient=*/true);
}

llvm::StringRef Diagnostics::warningFlagOf(unsigned DiagID) const {
  for (unsigned Kind = 0; Kind < diag::NumKinds; ++Kind)
    if (CustomIDs[Kind] == DiagID && FlagOf[Kind] &&
        (Entries[Kind].Level == DiagLevel::Warning || KeepGoing))
      return FlagOf[Kind];
  return "";
}

bool Diagnostics::isRefusal(diag::Kind Kind) {
  return Entries[Kind].Level == DiagLevel::Refusal;
}

DiagnosticBuilder Diagnostics::report(diag::Kind Kind, SourceLocation Loc) {
  if (isRefusal(Kind))
    ++NumRefusals;
  return Engine.Report(Loc, CustomIDs[Kind]);
}

} // namespace clang_vmap
