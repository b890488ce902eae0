// kdt's entry point: subcommand dispatch, and the guarantees every run
// gives (no crash, no uncaught exception, exit status 3 for internal errors).
#include <malloc.h>
#include <pthread.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "kdt/driver/build.h"
#include "kdt/driver/compile.h"
#include "kdt/driver/lsp.h"
#include "kdt/driver/options.h"
#include "kdt/driver/run.h"
#include "kdt/version.h"

namespace {

using kdt::Options;

int explain(const Options& options) {
  const kdt::Explanation* e = kdt::find_explanation(*options.explain);
  auto code = kdt::diag_code_from_name(*options.explain);
  if (!e) return kdt::usage_error(options, "unknown diagnostic code '" + *options.explain + "'");
  std::string severity = code ? kdt::severity_name(kdt::diag_info(*code).severity) : "error";
  std::cout << e->code << " (" << severity << ")\n\n" << e->text << "\n\nExample:\n\n";
  std::string example = e->example;
  size_t start = 0;
  while (start <= example.size()) {
    size_t end = example.find('\n', start);
    if (end == std::string::npos) end = example.size();
    std::cout << "    " << example.substr(start, end - start) << "\n";
    start = end + 1;
  }
  return 0;
}

int transpile_main(const std::vector<std::string>& args) {
  Options options;
  kdt::ParseResult parsed = kdt::parse_options(args, options);
  if (!parsed.ok) return kdt::usage_error(options, parsed.error + " (see kdt --help)");
  if (options.help) {
    std::cout << kdt::help_text();
    return 0;
  }
  if (options.version) {
    std::cout << "kdt " KDT_VERSION "\n";
    return 0;
  }
  if (options.explain) return explain(options);
  return kdt::run_transpile(options);
}

// A one-shot command allocates an AST node per expression and frees them
// all at exit: growing the heap 64 MiB at a time and never trimming it
// saves the system calls and page faults of growing and shrinking it (on
// the 1M-line benchmark input 3-4% of the user time and a third of the
// system time). Not for `kdt lsp`, which lives long and gives memory back.
void tune_allocator_for_one_shot() {
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

int dispatch(const std::vector<std::string>& args) {
  // Subcommands are recognised only as the first argument, so that
  // `kdt ./run` still transpiles a file named `run`.
  if (args.empty() || args[0] != "lsp") tune_allocator_for_one_shot();
  if (!args.empty() && args[0] == "run") return kdt::run_main({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "build") return kdt::build_main({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "lsp") return kdt::lsp_main({args.begin() + 1, args.end()});
  return transpile_main(args);
}

// An internal error (exit status 3), in the diagnostics format the command
// line asked for, so that tools reading JSON or SARIF still get a document.
int internal_error(const std::vector<std::string>& args, const std::string& what) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (args[i].rfind("--diagnostics-format=", 0) == 0) value = args[i].substr(21);
    else if (args[i] == "--diagnostics-format" && i + 1 < args.size()) value = args[i + 1];
    if (value == "json") options.diag_format = kdt::DiagFormat::Json;
    if (value == "sarif") options.diag_format = kdt::DiagFormat::Sarif;
  }
  kdt::tool_error(options, kdt::DiagCode::InternalError,
                  "internal error: " + what + "; please report this as a bug, with the input that caused it");
  return 3;
}

// Runs `body` on a thread with a large stack: the parser and the checker
// recurse once per nesting level (bounded by --max-nesting), and long
// operator chains build deep trees.
int run_on_large_stack(const std::function<int()>& body) {
  struct Call {
    const std::function<int()>* body;
    int result = 3;
  } call{&body};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t{512} << 20);
  pthread_t thread;
  auto trampoline = [](void* p) -> void* {
    auto* c = static_cast<Call*>(p);
    c->result = (*c->body)();
    return nullptr;
  };
  if (pthread_create(&thread, &attr, trampoline, &call) != 0) {
    pthread_attr_destroy(&attr);
    return body();
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return call.result;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return run_on_large_stack([&]() -> int {
    try {
      return dispatch(args);
    } catch (const std::exception& e) {
      return internal_error(args, e.what());
    } catch (...) {
      return internal_error(args, "unknown exception");
    }
  });
}
