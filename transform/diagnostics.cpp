//===- diagnostics.cpp - clang-vmap's own diagnostics ---------------------===//

#include "diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"

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

/// Custom diagnostics in Clang 19 have a fixed severity, untouched by -Werror
/// and -w, so those flags are applied here, once per translation unit.
DiagnosticIDs::Level severity(DiagLevel Level, const DiagnosticsEngine &Engine,
                              bool KeepGoing) {
  auto Warning = [&] {
    if (Engine.getIgnoreAllWarnings())
      return DiagnosticIDs::Ignored;
    return Engine.getWarningsAsErrors() ? DiagnosticIDs::Error
                                        : DiagnosticIDs::Warning;
  };
  switch (Level) {
  case DiagLevel::Error:
    return DiagnosticIDs::Error;
  case DiagLevel::Warning:
    return Warning();
  case DiagLevel::Remark:
    return DiagnosticIDs::Remark;
  case DiagLevel::Note:
    return DiagnosticIDs::Note;
  case DiagLevel::Refusal:
    return KeepGoing ? Warning() : DiagnosticIDs::Error;
  }
  llvm_unreachable("unknown diagnostic level");
}

/// Forwards every diagnostic to the engine's own consumer (clang's printer),
/// keeping the text of the latest refusal.
class RefusalRecorder : public DiagnosticConsumer {
public:
  RefusalRecorder(DiagnosticConsumer &Next,
                  std::unique_ptr<DiagnosticConsumer> OwnedNext,
                  llvm::DenseSet<unsigned> RefusalIDs,
                  std::shared_ptr<std::string> LastRefusal)
      : Next(Next), OwnedNext(std::move(OwnedNext)),
        RefusalIDs(std::move(RefusalIDs)), LastRefusal(std::move(LastRefusal)) {}

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
    if (RefusalIDs.contains(Info.getID())) {
      llvm::SmallString<128> Text;
      Info.FormatDiagnostic(Text);
      *LastRefusal = std::string(Text);
    }
    Next.HandleDiagnostic(Level, Info);
  }

private:
  DiagnosticConsumer &Next;
  std::unique_ptr<DiagnosticConsumer> OwnedNext;
  llvm::DenseSet<unsigned> RefusalIDs;
  std::shared_ptr<std::string> LastRefusal;
};

} // namespace

Diagnostics::Diagnostics(DiagnosticsEngine &Engine, bool KeepGoing)
    : Engine(Engine), KeepGoing(KeepGoing),
      LastRefusal(std::make_shared<std::string>()) {
  DiagnosticIDs &IDs = *Engine.getDiagnosticIDs();
  CustomIDs.reserve(diag::NumKinds);
  llvm::DenseSet<unsigned> RefusalIDs;
  for (const Entry &E : Entries) {
    CustomIDs.push_back(
        IDs.getCustomDiagID(severity(E.Level, Engine, KeepGoing), E.Format));
    if (E.Level == DiagLevel::Refusal)
      RefusalIDs.insert(CustomIDs.back());
  }
  DiagnosticConsumer &Next = *Engine.getClient();
  std::unique_ptr<DiagnosticConsumer> OwnedNext = Engine.takeClient();
  Engine.setClient(new RefusalRecorder(Next, std::move(OwnedNext),
                                       std::move(RefusalIDs), LastRefusal),
                   /*ShouldOwnClient=*/true);
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
