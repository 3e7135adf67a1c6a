// The --surface programs of vmap_generate_program (surface.cpp).
#pragma once

#include <cstdint>
#include <random>
#include <set>
#include <string>

namespace vmap_generator {

struct SurfaceOptions {
  int cases = 30;            // independent cases (each one `#pragma vmap` loop or more)
  int only = -1;             // >= 0: write this case alone (the same text it has among all)
  std::set<int> skip;        // leave these cases out (the others keep their text)
  bool avoid_known = false;  // leave out the forms of KNOWN.md's open defects
};

// A program of `options.cases` independent cases, each a function (free, member, lambda or
// function template) with its own inputs and batch size, whose main() prints every value
// each case wrote.
std::string surface_program(uint32_t seed, const SurfaceOptions& options);

// What every such program starts with: its includes and the input and print helpers
// (surface_prelude.cpp).
extern const char* const kSurfacePrelude;

// The stream of case `id` of program `seed`: the same whatever other cases are written.
std::mt19937 engine(uint32_t seed, int id);

}  // namespace vmap_generator
