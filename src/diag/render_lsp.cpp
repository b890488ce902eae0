// The LSP consumer: publishDiagnostics' Diagnostic objects.
#include "kdt/diag/render_lsp.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>

namespace kdt {

namespace fs = std::filesystem;
using nlohmann::json;

std::string path_from_uri(const std::string& uri) {
  const std::string scheme = "file://";
  if (uri.compare(0, scheme.size(), scheme) != 0) return uri;
  std::string rest = uri.substr(scheme.size());
  size_t slash = rest.find('/');
  rest = slash == std::string::npos ? std::string() : rest.substr(slash);  // drop the authority
  std::string path;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      path += static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      path += rest[i];
    }
  }
  return path;
}

std::string uri_from_path(const std::string& path) {
  std::string uri = "file://";
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char ch : path) {
    if (std::isalnum(ch) || ch == '/' || ch == '-' || ch == '.' || ch == '_' || ch == '~') {
      uri += static_cast<char>(ch);
    } else {
      uri += '%';
      uri += hex[ch >> 4];
      uri += hex[ch & 15];
    }
  }
  return uri;
}

namespace {

json position(const SourceManager& sources, FileId file, uint32_t offset) {
  LineColumn lc = sources.position(file, offset);
  return {{"line", lc.line - 1}, {"character", lc.utf16_column - 1}};
}

std::string uri_of(const SourceManager& sources, FileId file, const std::string& main_uri) {
  if (file == 1) return main_uri;
  std::error_code ec;
  fs::path p = fs::absolute(sources.file(file).path, ec);
  return uri_from_path((ec ? fs::path(sources.file(file).path) : p.lexically_normal()).string());
}

// The `include "..."` directive of the main file through which a
// diagnostic in another file arrives: the one naming that file, else the first.
SourceRange include_directive(const SourceManager& sources, FileId file) {
  static const std::regex include_re(R"re(include\s*"([^"\n]*)"\s*;?)re");
  const std::string& text = sources.file(1).text;
  std::string target = fs::path(sources.file(file).path).filename().string();
  SourceRange first;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), include_re); it != std::sregex_iterator(); ++it) {
    SourceRange r{1, static_cast<uint32_t>(it->position(0)), static_cast<uint32_t>(it->position(0) + it->length(0))};
    if (fs::path((*it)[1].str()).filename().string() == target) return r;
    if (!first.valid()) first = r;
  }
  return first.valid() ? first : SourceRange{1, 0, 0};
}

json diagnostic(const Diagnostic& d, const SourceManager& sources, const std::string& main_uri) {
  json out;
  std::string message = d.message;
  json related = json::array();
  if (!d.range.valid() || d.range.file == 1) {
    out["range"] = lsp_range(sources, d.range);
  } else {
    // Shown on the include directive; the real place is related information.
    out["range"] = lsp_range(sources, include_directive(sources, d.range.file));
    message = "in included file '" + sources.file(d.range.file).path + "': " + message;
    related.push_back({{"location", lsp_location(sources, d.range, main_uri)}, {"message", d.message}});
  }
  for (const Label& l : d.labels) {
    if (!l.range.valid()) continue;
    related.push_back(
        {{"location", lsp_location(sources, l.range, main_uri)}, {"message", l.message.empty() ? "here" : l.message}});
  }
  for (const Note& n : d.notes) {
    if (n.range.valid()) {
      related.push_back({{"location", lsp_location(sources, n.range, main_uri)}, {"message", n.message}});
    } else {
      message += "\nnote: " + n.message;
    }
  }
  out["severity"] = d.severity == Severity::Error ? 1 : d.severity == Severity::Warning ? 2 : 3;
  out["code"] = diag_info(d.code).name;
  out["source"] = "kdt";
  out["message"] = message;
  if (!related.empty()) out["relatedInformation"] = related;
  return out;
}

}  // namespace

json lsp_range(const SourceManager& sources, const SourceRange& r) {
  if (!r.valid()) {
    json p = {{"line", 0}, {"character", 0}};
    return {{"start", p}, {"end", p}};
  }
  return {{"start", position(sources, r.file, r.begin)}, {"end", position(sources, r.file, std::max(r.begin, r.end))}};
}

json lsp_location(const SourceManager& sources, const SourceRange& range, const std::string& main_uri) {
  return {{"uri", uri_of(sources, range.file, main_uri)}, {"range", lsp_range(sources, range)}};
}

json render_lsp(const std::vector<Diagnostic>& diags, const SourceManager& sources, const std::string& main_uri) {
  json out = json::array();
  for (const Diagnostic& d : diags) out.push_back(diagnostic(d, sources, main_uri));
  return out;
}

json render_lsp_code_actions(const std::vector<Diagnostic>& diags, const SourceManager& sources,
                             const std::string& main_uri, int64_t first_line, int64_t last_line) {
  json out = json::array();
  for (const Diagnostic& d : diags) {
    if (d.fixits.empty()) continue;
    json shown = diagnostic(d, sources, main_uri);
    const int64_t begin = shown["range"]["start"]["line"], end = shown["range"]["end"]["line"];
    if (end < first_line || begin > last_line) continue;
    json changes = json::object();
    std::string title;
    for (const FixIt& fix : d.fixits) {
      changes[uri_of(sources, fix.range.file, main_uri)].push_back({{"range", lsp_range(sources, fix.range)},
                                                                    {"newText", fix.replacement}});
      // The title shows the first fix-it's text, on one line.
      if (title.empty()) {
        std::string text = fix.replacement;
        size_t from = text.find_first_not_of(" \t\n"), to = text.find_last_not_of(" \t\n;");
        text = from == std::string::npos ? "" : text.substr(from, to - from + 1);
        if (text.size() > 60) text = text.substr(0, 57) + "...";
        title = fix.range.begin == fix.range.end ? "Insert `" + text + "`" : "Replace with `" + text + "`";
      }
    }
    out.push_back({{"title", title + " (kdt: " + std::string(diag_info(d.code).name) + ")"},
                   {"kind", "quickfix"},
                   {"isPreferred", true},
                   {"diagnostics", json::array({shown})},
                   {"edit", {{"changes", changes}}}});
  }
  return out;
}

}  // namespace kdt
