// vmap_differential_compare <as-written program> <rewritten program>
// Runs both; passes when both exit with status 0 and print the same values
// (compare_outputs.hpp). Exit status 0 on agreement, 1 otherwise.
#include "compare_outputs.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <sys/wait.h>

namespace {

struct run_result {
  std::string output;
  int status = -1;
};

std::optional<run_result> run(const std::string& program) {
  if (!std::filesystem::exists(program)) return std::nullopt;
  std::string command = "'" + program + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  run_result result;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: vmap_differential_compare <as-written> <rewritten>\n";
    return 2;
  }
  bool agree = true;
  std::optional<run_result> results[2];
  for (int i = 0; i < 2; ++i) {
    results[i] = run(argv[i + 1]);
    if (!results[i]) {
      std::cerr << argv[i + 1]
                << " was not built: see the output of test transform.differential.build\n";
      agree = false;
    } else if (results[i]->status != 0) {
      std::cerr << argv[i + 1] << " exited with status " << results[i]->status
                << "; it printed:\n" << results[i]->output << "\n";
      agree = false;
    }
  }
  if (!agree) return 1;
  if (auto difference = vmap::test::compare_outputs(
          results[0]->output, vmap::test::without_statement_locations(results[1]->output))) {
    std::cerr << "outputs differ, " << *difference << "\n--- as written:\n"
              << results[0]->output << "\n--- rewritten:\n" << results[1]->output << "\n";
    return 1;
  }
  std::cout << "outputs agree (" << vmap::test::tokenize_output(results[0]->output).size()
            << " tokens)\n";
  return 0;
}
