// ANTLR 4.9's simulators take a process-wide reader lock (a mutex and a
// condition variable) for every DFA edge they follow: at each character the
// lexer reads and each step of a prediction, 12% of the front end's time on
// a large input (issue 17). kdt's lexers and parsers get simulators that
// follow edges without it, on DFAs of their own that only one parse at a
// time uses (parse_file holds `parse_lock` for the whole parse); new edges
// are still added under ANTLR's lock.
#pragma once

#include <mutex>

#include "KDLexer.h"
#include "KDParser.h"

namespace kdt::syntax {

// Held by whoever lexes or parses with the simulators below.
std::mutex& parse_lock();

// Replaces the simulators the generated constructors made.
void use_unlocked_simulators(KDLexer& lexer);
void use_unlocked_simulators(KDParser& parser);

}  // namespace kdt::syntax
