// One input of each fuzz target, shared by the libFuzzer entry points
// (fuzz_*.cpp, KDT_FUZZ builds with clang) and by kdt_fuzz_replay, which
// replays corpora and regressions in the ordinary build.
//
// Every function returns normally for any input; a bug shows up as a crash,
// a sanitizer report or an abort() with an explanation on stderr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace kdt::fuzz {

// Runs `body` on a thread with a 512 MiB stack, as kdt's main() does: the
// parser, checker and lowering recurse once per nesting level and operator
// chains build deep trees.
void run_on_large_stack(const std::function<void()>& body);

// Bytes -> the front end (load, parse, check) on the text in memory ->
// diagnostics rendered as text (with and without colour), JSON and SARIF;
// the JSON and SARIF documents must parse.
void front_end_input(const uint8_t* data, size_t size);

// KD source -> the whole pipeline: front end, AST JSON, lower, IR dump,
// --emit=cuda for sm_80 and sm_90, discharge, discharged-IR dump and
// --emit=cpp with the harness, with and without run-time checks.
// With `must_check`, a program that the front end rejects is a bug (the
// generator only makes well-typed programs): print it and abort().
void pipeline_source(const std::string& source, bool must_check);

// Whether this build has the generator (tests/gen): pipeline_input needs it.
bool have_generator();

// Bytes -> kdt::gen::Choices -> kdt::gen::generate -> pipeline_source(…, true).
void pipeline_input(const uint8_t* data, size_t size);

// The source text of the program that pipeline_input makes of these bytes
// (empty without the generator): what a regression test keeps.
std::string generated_source(const uint8_t* data, size_t size);

// Bytes -> kdt_rt::npy_parse (the .npy reader of kdt run's harness); an
// accepted array must be consistent with its header.
void npy_input(const uint8_t* data, size_t size);

}  // namespace kdt::fuzz
