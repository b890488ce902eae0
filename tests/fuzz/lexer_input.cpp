// fuzz_lexer's body (fuzz_inputs.h): the Scanner against the grammar's lexer.
// First: the generated lexer names a token NAN, which <cmath> defines.
#include "lexer_differential.h"

#include <cstdio>
#include <cstdlib>

#include "fuzz_inputs.h"

namespace kdt::fuzz {

void lexer_input(const uint8_t* data, size_t size) {
  std::string why = lexers_disagree(std::string(reinterpret_cast<const char*>(data), size));
  if (why.empty()) return;
  std::fprintf(stderr, "kdt fuzz: the Scanner and grammar/KDLexer.g4 disagree: %s\n", why.c_str());
  std::abort();
}

}  // namespace kdt::fuzz
