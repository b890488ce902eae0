// `kdt lsp`: a Language Server Protocol server over stdio (JSON-RPC 2.0 with
// Content-Length framing). It checks open documents from memory (includes
// from disk) and publishes the CLI's diagnostics; it answers hover (the type
// and shape of a name) and go-to-definition. Everything runs on one thread:
// the ANTLR 4.9 runtime is not safe for concurrent parsers.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "kdt/diag/render_lsp.h"  // path_from_uri, uri_from_path

namespace kdt {

// Serves one client on `in`/`out` until `exit` (or end of input). Returns
// the exit status: 0 after `shutdown` then `exit`, 1 otherwise (as the LSP
// specification asks). `args` are `kdt lsp`'s arguments: `-I DIR`, `-D N=V`.
int lsp_serve(std::istream& in, std::ostream& out, const std::vector<std::string>& args);

// `kdt lsp ARGS` on standard input and output.
int lsp_main(const std::vector<std::string>& args);

}  // namespace kdt
