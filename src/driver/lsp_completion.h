// textDocument/completion of `kdt lsp`: the words a KD file can use at any
// place — keywords and contextual words, dtypes, memory spaces, built-in
// functions (from the built-in table), and the document's own top-level
// names (constants, types, functions, kernels). Not filtered by context:
// editors filter by the prefix typed.
#pragma once

#include <nlohmann/json.hpp>

#include "kdt/driver/compile.h"

namespace kdt {

// The CompletionItems; `c` may be null (no checked document yet).
nlohmann::json lsp_completion_items(const Compilation* c);

}  // namespace kdt
