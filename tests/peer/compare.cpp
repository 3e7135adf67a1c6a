// vmap_peer_compare OURS TORCH PROGRAM KNOWN_FILE: runs a peer program's two builds (against
// vmap::runtime and against LibTorch), compares their records (peer.hpp) and prints every
// difference with both outputs. Floats agree within 1e-5 relative (1e-6 absolute near 0),
// integers, bools, scalars and printed text exactly; an expression must throw in both builds
// or in neither.
// Differences listed in KNOWN_FILE ("PROGRAM PATTERN  reason", PATTERN a shell wildcard over
// record names) are reported, not failed; a listed pattern that no longer matches any
// difference fails, so the list stays true.
// vmap_peer_compare --skip REASON: exits 77 (CTest's SKIP_RETURN_CODE) after saying why.
#include <fnmatch.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kSkipped = 77;

struct Record {
  std::string name;
  std::string text;  // the whole record, as printed
};

// Runs `program`, returns its records in order (a "text NAME" block is one record).
std::vector<Record> records_of(const std::string& program, int& exit_status) {
  std::vector<Record> records;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(program.c_str(), "r"), pclose);
  if (!pipe) return records;
  std::string output;
  char buffer[65536];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0;)
    output.append(buffer, n);
  exit_status = pclose(pipe.release());
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string kind, name;
    words >> kind >> name;
    Record record{name, line};
    if (kind == "text") {  // a printed tensor: lines up to "end NAME"
      for (std::string next; std::getline(lines, next) && next != "end " + name;)
        record.text += '\n' + next;
    }
    records.push_back(std::move(record));
  }
  return records;
}

bool floats_agree(double a, double b) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  return std::abs(a - b) <= 1e-5 * std::max({std::abs(a), std::abs(b), 0.1});
}

// "value NAME DTYPE [SIZES] : V V ...": dtype and sizes exactly, values by dtype.
bool values_agree(const std::string& ours, const std::string& theirs) {
  const size_t colon = ours.find(" :");
  if (colon != theirs.find(" :") || ours.compare(0, colon, theirs, 0, colon) != 0) return false;
  const bool floating = ours.find(" float") != std::string::npos && ours.find(" float") < colon;
  std::istringstream a(ours.substr(colon + 2)), b(theirs.substr(colon + 2));
  double x, y;
  while (a >> x) {
    if (!(b >> y)) return false;
    if (floating ? !floats_agree(x, y) : x != y) return false;
  }
  return !(b >> y);
}

bool agree(const Record& ours, const Record& theirs) {
  if (ours.text.rfind("value ", 0) == 0 && theirs.text.rfind("value ", 0) == 0)
    return values_agree(ours.text, theirs.text);
  return ours.text == theirs.text;
}

std::string shortened(const std::string& text) {
  return text.size() <= 600 ? text : text.substr(0, 600) + " ...";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--skip") {
    std::cout << "skipped: " << argv[2] << '\n';
    return kSkipped;
  }
  if (argc != 5) {
    std::cerr << "usage: " << argv[0] << " OURS TORCH PROGRAM KNOWN_FILE | --skip REASON\n";
    return 2;
  }
  const std::string program = argv[3];
  std::map<std::string, int> known;  // pattern -> differences it matched
  std::ifstream known_file(argv[4]);
  for (std::string line; std::getline(known_file, line);) {
    std::istringstream words(line);
    std::string listed_program, pattern;
    if (words >> listed_program >> pattern && listed_program == program) known[pattern] = 0;
  }
  const auto known_pattern = [&](const std::string& name) -> int* {
    for (auto& [pattern, matched] : known)
      if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return &matched;
    return nullptr;
  };

  int ours_status = 0, torch_status = 0;
  const std::vector<Record> ours = records_of(argv[1], ours_status);
  const std::vector<Record> theirs = records_of(argv[2], torch_status);
  if (ours_status != 0 || torch_status != 0 || ours.empty()) {
    std::cout << "a build failed to run: ours exit " << ours_status << ", LibTorch exit "
              << torch_status << ", " << ours.size() << " records\n";
    return 1;
  }
  std::map<std::string, const Record*> by_name;
  for (const Record& record : theirs) by_name[record.name] = &record;

  int failures = 0, known_seen = 0;
  std::set<std::string> compared;
  for (const Record& record : ours) {
    compared.insert(record.name);
    const auto found = by_name.find(record.name);
    if (found != by_name.end() && agree(record, *found->second)) continue;
    int* const listed = known_pattern(record.name);
    if (listed) ++*listed;
    std::cout << (listed ? "KNOWN MISMATCH " : "MISMATCH ") << record.name
              << "\n  vmap:     " << shortened(record.text) << "\n  LibTorch: "
              << (found == by_name.end() ? "(no record)" : shortened(found->second->text)) << '\n';
    ++(listed ? known_seen : failures);
  }
  for (const auto& [pattern, matched] : known) {
    if (matched) continue;
    std::cout << "FIXED " << pattern << ": no difference matches it now; remove it from " << argv[4]
              << '\n';
    ++failures;
  }
  for (const Record& record : theirs) {
    if (compared.count(record.name)) continue;
    std::cout << "MISMATCH " << record.name << ": only LibTorch's build printed it\n";
    ++failures;
  }
  std::cout << ours.size() << " records compared, " << failures << " mismatches, " << known_seen
            << " known\n";
  return failures == 0 ? 0 : 1;
}
