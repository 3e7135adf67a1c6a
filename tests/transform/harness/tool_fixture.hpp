// The fixture of the command-line tests: runs the built clang-vmap (CLANG_VMAP_TOOL) on
// files in a fresh directory, with the include flags of VMAP_INCLUDE_DIRS after `--`.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace vmap_tool_test {

namespace fs = std::filesystem;

struct tool_run {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The flags the tool needs to find <vmap/vmap.hpp>, as after `--`.
inline std::string include_flags() {
  std::string flags;
  std::stringstream dirs(VMAP_INCLUDE_DIRS);
  for (std::string dir; std::getline(dirs, dir, ':');) flags += " " + quote("-I" + dir);
  return flags;
}

class ToolTest : public testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("clang-vmap-cli-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  fs::path file(const std::string& name, const std::string& text) {
    fs::path path = dir_ / name;
    write_file(path, text);
    return path;
  }

  // Runs clang-vmap with `args` (already quoted), then `--` and the include flags
  // unless `with_flags` is false.
  tool_run run(const std::string& args, bool with_flags = true) {
    fs::path out = dir_ / "stdout.txt";
    fs::path err = dir_ / "stderr.txt";
    std::string command = "cd " + quote(dir_.string()) + " && " + quote(CLANG_VMAP_TOOL) + " " +
                          args + (with_flags ? " --" + include_flags() : std::string()) + " >" +
                          quote(out.string()) + " 2>" + quote(err.string());
    int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
  }

  fs::path dir_;
};

// `text` without its lines that start with `#line`: what -i writes of a rewrite whose
// directives stand on lines of their own (Note [Line directives] in transform/ast_util.h).
inline std::string without_line_directives(const std::string& text) {
  std::istringstream lines(text);
  std::string kept, line;
  while (std::getline(lines, line))
    if (line.rfind("#line ", 0) != 0) kept += line + "\n";
  return kept;
}

// A batched loop, then a loop the tool refuses (`break`): the CLI and reports tests' input.
inline constexpr const char* kAddOneThenBreak = R"(#include <vmap/vmap.hpp>
using namespace vmap;
void add_one(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + 1;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (i == 2)
      break;
    out[i] = x[i];
  }
}
)";

}  // namespace vmap_tool_test
