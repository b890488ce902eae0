// One input of each fuzz target, shared by the libFuzzer entry points
// (fuzz_*.cpp, KDT_FUZZ builds with clang) and by kdt_fuzz_replay, which
// replays corpora and regressions in the ordinary build.
//
// Every function returns normally for any input; a bug shows up as a crash,
// a sanitizer report or an abort() with an explanation on stderr.
//
// The fast targets (fuzz_front_end, fuzz_pipeline) do only the work whose
// bugs they look for, and nothing per input that does not depend on the
// input: no thread per input, no renderer of a fixed document. The slow
// target fuzz_outputs writes every output kdt has for a KD file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace kdt::fuzz {

// Runs `body` with a 512 MiB stack, as kdt's main() does: the parser,
// checker and lowering recurse once per nesting level and operator chains
// build deep trees. On the main thread of a process whose RLIMIT_STACK is
// at least that (run_fuzzers.sh sets `ulimit -s 524288`), right there;
// otherwise on one thread with such a stack, started at the first call,
// which runs every body in turn while the caller waits (a new 512 MiB
// thread per input cost more than a small input).
void run_on_large_stack(const std::function<void()>& body);

// fuzz_lexer: bytes -> the front end's Scanner and the lexer ANTLR
// generates from grammar/KDLexer.g4, which must make the same tokens
// (lexer_differential.h); abort() with the first difference.
void lexer_input(const uint8_t* data, size_t size);

// fuzz_front_end: bytes -> the front end (load, parse, check) on the text in
// memory -> the diagnostics as plain text. `ok` with an error is a bug.
void front_end_input(const uint8_t* data, size_t size);

// fuzz_pipeline's body, for KD source: front end, lower, --emit=ir,
// --emit=cuda for sm_80 and sm_90, discharge, --emit=discharged-ir and
// --emit=cpp with the harness, with and without run-time checks. With
// `must_check`, a program that the front end rejects is a bug (the
// generator only makes well-typed programs): print it and abort().
void pipeline_source(const std::string& source, bool must_check);

// fuzz_outputs' body: every output kdt writes for KD source. The
// diagnostics as text (plain and coloured), JSON and SARIF, which must
// parse; for a program that checks, --emit=ast (which must parse) and then
// everything pipeline_source does.
void all_outputs(const std::string& source, bool must_check);

// fuzz_outputs: bytes as a KD file -> all_outputs(…, false).
void outputs_input(const uint8_t* data, size_t size);

// Whether this build has the generator (tests/gen): pipeline_input needs it.
bool have_generator();

// fuzz_pipeline: bytes -> kdt::gen::Choices -> kdt::gen::generate ->
// pipeline_source(…, true).
void pipeline_input(const uint8_t* data, size_t size);

// The source text of the program that pipeline_input makes of these bytes
// (empty without the generator): what a regression test keeps.
std::string generated_source(const uint8_t* data, size_t size);

// Bytes -> kdt_rt::npy_parse (the .npy reader of kdt run's harness); an
// accepted array must be consistent with its header.
void npy_input(const uint8_t* data, size_t size);

}  // namespace kdt::fuzz
