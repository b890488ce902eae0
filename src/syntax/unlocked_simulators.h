// ANTLR 4.9's simulators take a process-wide reader lock (a mutex and a
// condition variable) for every DFA edge they follow: at each step of a
// prediction (and each character ANTLR's lexer read, before kdt had its
// own scanner), 12% of the front end's time on a large input (issue 17).
// kdt's parsers get a simulator that follows edges without it, on DFAs of
// their own that only one parse at a time uses (parse_file holds
// `parse_lock` for the whole parse); new edges are still added under
// ANTLR's lock.
#pragma once

#include <mutex>

#include "KDParser.h"

namespace kdt::syntax {

// Held by whoever parses with the simulator below.
std::mutex& parse_lock();

// Replaces the simulator the generated constructor made.
void use_unlocked_simulators(KDParser& parser);

}  // namespace kdt::syntax
