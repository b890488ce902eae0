// Reads a program's files: the main file and its includes, each once.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <system_error>

#include "kdt/syntax/parse.h"

namespace kdt {

namespace fs = std::filesystem;

namespace {

// Reads at most `limit` bytes (--max-source-bytes) of a stream: the front
// end needs some 26 bytes of memory per byte of source, so a huge file
// (or a device that never ends) is refused before it exhausts the machine.
bool read_bounded(std::istream& in, const std::string& path, int64_t limit, std::string& text, std::string& error) {
  text.clear();
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(text.size()) > limit) {
      error = "'" + path + "' is larger than " + std::to_string(limit) +
              " bytes, the limit of --max-source-bytes (raise it with --max-source-bytes=N)";
      return false;
    }
  }
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return false;
  }
  return true;
}

bool read_file(const std::string& path, int64_t limit, std::string& text, std::string& error) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    error = "'" + path + "' is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "': " + std::generic_category().message(errno);
    return false;
  }
  return read_bounded(in, path, limit, text, error);
}

std::string identity(const std::string& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

class Loader {
 public:
  Loader(SourceManager& sources, DiagnosticEngine& diags, const LoadOptions& options, LoadResult& result)
      : sources_(sources), diags_(diags), options_(options), result_(result) {}

  bool ok = true;

  // Parses `file` and, depth first, what it includes; files land in
  // `module_` after their includes so that declarations precede uses.
  void load(FileId file, const std::string& key, const fs::path& base_dir) {
    stack_.push_back({key, file, {}});
    loaded_.push_back(key);
    std::optional<ast::File> parsed = parse_file(sources_, file, diags_, options_.parse);
    if (!parsed) {
      ok = false;
      stack_.pop_back();
      return;
    }
    for (const ast::Include& include : parsed->includes) {
      stack_.back().include_range = include.range;
      std::string resolved;
      if (!resolve(include.path, base_dir, resolved)) {
        auto d = diags_.report(DiagCode::IncludeNotFound, include.path_range,
                               "cannot find included file `" + include.path + "`");
        add_chain_notes(d, stack_.size() - 1);
        std::string searched = "searched " + (base_dir.empty() ? std::string(".") : base_dir.string());
        for (const std::string& dir : options_.include_dirs) searched += ", " + dir;
        d.note(searched);
        ok = false;
        continue;
      }
      std::string included_key = identity(resolved);
      auto on_stack = std::find_if(stack_.begin(), stack_.end(), [&](const Frame& f) { return f.key == included_key; });
      if (on_stack != stack_.end()) {
        auto d = diags_.report(DiagCode::IncludeCycle, include.path_range,
                               "`" + include.path + "` includes itself through this chain");
        // The last link is the include reported above; notes show the rest.
        for (auto it = on_stack; it + 1 != stack_.end(); ++it) {
          d.note("`" + sources_.file(it->file).path + "` includes the next file here", it->include_range);
        }
        add_chain_notes(d, static_cast<size_t>(on_stack - stack_.begin()));
        ok = false;
        continue;
      }
      if (std::find(loaded_.begin(), loaded_.end(), included_key) != loaded_.end()) continue;
      // load() recurses once per nested include; the main file is level 0.
      int64_t depth = static_cast<int64_t>(stack_.size());
      if (depth > options_.parse.limits.max_include_depth) {
        auto d = diags_.report(DiagCode::LimitExceeded, include.path_range,
                               "`" + include.path + "` would be included " + std::to_string(depth) +
                                   " files deep; the limit is --max-include-depth=" +
                                   std::to_string(options_.parse.limits.max_include_depth));
        add_chain_notes(d, stack_.size() - 1);
        d.note("raise the limit with --max-include-depth=N");
        ok = false;
        continue;
      }
      std::string text, error;
      if (!read_file(resolved, options_.parse.limits.max_source_bytes, text, error)) {
        bool too_large = static_cast<int64_t>(text.size()) > options_.parse.limits.max_source_bytes;
        diags_.report(too_large ? DiagCode::LimitExceeded : DiagCode::IncludeNotFound, include.path_range, error);
        ok = false;
        continue;
      }
      result_.files_read.push_back(resolved);
      FileId id = sources_.add(resolved, std::move(text));
      load(id, included_key, fs::path(resolved).parent_path());
    }
    module_.files.push_back(std::move(*parsed));
    stack_.pop_back();
  }

  ast::Module take() { return std::move(module_); }

 private:
  struct Frame {
    std::string key;
    FileId file;
    SourceRange include_range;
  };

  bool resolve(const std::string& path, const fs::path& base_dir, std::string& out) {
    std::error_code ec;
    std::vector<fs::path> candidates;
    if (fs::path(path).is_absolute()) candidates.push_back(path);
    else {
      candidates.push_back(base_dir / path);
      for (const std::string& dir : options_.include_dirs) candidates.push_back(fs::path(dir) / path);
    }
    for (const fs::path& candidate : candidates) {
      if (fs::is_regular_file(candidate, ec)) {
        out = candidate.lexically_normal().string();
        return true;
      }
    }
    return false;
  }

  void add_chain_notes(DiagnosticBuilder& d, size_t top) {
    for (size_t i = top; i-- > 0;) {
      d.note("included from `" + sources_.file(stack_[i].file).path + "`", stack_[i].include_range);
    }
  }

  SourceManager& sources_;
  DiagnosticEngine& diags_;
  const LoadOptions& options_;
  LoadResult& result_;
  std::vector<Frame> stack_;
  std::vector<std::string> loaded_;
  ast::Module module_;
};

}  // namespace

LoadResult load_program(const std::string& path, SourceManager& sources, DiagnosticEngine& diags,
                        const LoadOptions& options) {
  LoadResult result;
  std::string text;
  std::string display = path;
  fs::path base_dir;
  if (options.main_text) {
    text = *options.main_text;
    base_dir = path == "-" ? fs::path() : fs::path(path).parent_path();
  } else if (path == "-") {
    display = "<stdin>";
    if (!read_bounded(std::cin, display, options.parse.limits.max_source_bytes, text, result.io_error)) return result;
  } else {
    if (!read_file(path, options.parse.limits.max_source_bytes, text, result.io_error)) return result;
    base_dir = fs::path(path).parent_path();
  }
  if (path == "-") display = "<stdin>";
  result.files_read.push_back(display);
  FileId main = sources.add(display, std::move(text));
  Loader loader(sources, diags, options, result);
  loader.load(main, path == "-" ? std::string("<stdin>") : identity(path), base_dir);
  ast::Module module = loader.take();
  module.files_read.clear();
  for (size_t i = 1; i <= sources.file_count(); ++i) module.files_read.push_back(static_cast<FileId>(i));
  if (loader.ok) result.module = std::move(module);
  return result;
}

}  // namespace kdt
