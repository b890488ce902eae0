// The SARIF 2.1.0 consumer, for code-scanning tools.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "kdt/diag/render.h"
#include "kdt/version.h"

namespace kdt {

namespace {

using json = nlohmann::ordered_json;

const char* sarif_level(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

// A path in a URI (RFC 3986): unreserved characters and `/` as they are,
// every other byte of the UTF-8 as %XX.
std::string percent_encoded(const std::string& path) {
  std::string out;
  for (char c : path) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", u);
      out += buf;
    }
  }
  return out;
}

// Where a file is, as SARIF wants it: an absolute path as a file: URI; a
// relative one relative to SRCROOT, the directory kdt ran in
// (originalUriBaseIds).
json artifact_location(const std::string& path) {
  if (!path.empty() && path[0] == '/') return {{"uri", "file://" + percent_encoded(path)}};
  return {{"uri", percent_encoded(path)}, {"uriBaseId", "SRCROOT"}};
}

json source_root() {
  std::string cwd = "/";
  if (char* dir = ::getcwd(nullptr, 0)) {
    cwd = dir;
    std::free(dir);
  }
  if (cwd.back() != '/') cwd += '/';
  return {{"SRCROOT", {{"uri", "file://" + percent_encoded(cwd)}}}};
}

// A rule's help: what `kdt --explain CODE` prints.
std::string help_text(const Explanation& e) { return std::string(e.text) + "\n\nExample:\n\n" + e.example; }

// SARIF regions are 1-based with an exclusive end column; columns count
// Unicode code points (the run's columnKind).
json physical_location(const SourceManager& sources, SourceRange range) {
  LineColumn start = sources.position(range.file, range.begin);
  LineColumn end = sources.position(range.file, range.end);
  return {{"artifactLocation", artifact_location(sources.file(range.file).path)},
          {"region",
           {{"startLine", start.line},
            {"startColumn", start.column},
            {"endLine", end.line},
            {"endColumn", end.column},
            {"byteOffset", range.begin},
            {"byteLength", range.end - range.begin}}}};
}

}  // namespace

std::string render_sarif(const std::vector<Diagnostic>& diags, const SourceManager& sources) {
  json rules = json::array();
  for (const DiagInfo& info : all_diagnostics()) {
    const Explanation& e = explanation(info.code);
    rules.push_back({{"id", info.name},
                     {"shortDescription", {{"text", info.summary}}},
                     {"fullDescription", {{"text", e.text}}},
                     {"help", {{"text", help_text(e)}}},
                     {"defaultConfiguration", {{"level", sarif_level(info.severity)}}}});
  }
  json results = json::array();
  for (const Diagnostic& d : diags) {
    json result = {{"ruleId", diag_info(d.code).name},
                   {"ruleIndex", static_cast<int>(d.code)},
                   {"level", sarif_level(d.severity)},
                   {"message", {{"text", d.message}}},
                   {"locations", json::array()}};
    if (d.range.valid()) result["locations"].push_back({{"physicalLocation", physical_location(sources, d.range)}});
    json related = json::array();
    for (const Label& label : d.labels) {
      if (!label.range.valid()) continue;
      related.push_back({{"id", related.size()},
                         {"message", {{"text", label.message}}},
                         {"physicalLocation", physical_location(sources, label.range)}});
    }
    for (const Note& note : d.notes) {
      if (!note.range.valid()) continue;
      related.push_back({{"id", related.size()},
                         {"message", {{"text", note.message}}},
                         {"physicalLocation", physical_location(sources, note.range)}});
    }
    if (!related.empty()) result["relatedLocations"] = related;
    if (!d.fixits.empty()) {
      json changes = json::array();
      for (const FixIt& fix : d.fixits) {
        changes.push_back({{"artifactLocation", artifact_location(sources.file(fix.range.file).path)},
                           {"replacements",
                            {{{"deletedRegion", physical_location(sources, fix.range)["region"]},
                              {"insertedContent", {{"text", fix.replacement}}}}}}});
      }
      result["fixes"] = {{{"description", {{"text", "suggested fix"}}}, {"artifactChanges", changes}}};
    }
    results.push_back(result);
  }
  json sarif = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       {{{"tool",
          {{"driver",
            {{"name", "kdt"}, {"version", KDT_VERSION}, {"rules", rules}}}}},
         {"originalUriBaseIds", source_root()},
         {"columnKind", "unicodeCodePoints"},
         {"results", results}}}}};
  return sarif.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace kdt
