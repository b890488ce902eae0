// The SARIF 2.1.0 consumer, for code-scanning tools.
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

// SARIF regions are 1-based with an exclusive end column.
json physical_location(const SourceManager& sources, SourceRange range) {
  LineColumn start = sources.position(range.file, range.begin);
  LineColumn end = sources.position(range.file, range.end);
  return {{"artifactLocation", {{"uri", sources.file(range.file).path}}},
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
    rules.push_back({{"id", info.name},
                     {"shortDescription", {{"text", info.summary}}},
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
        changes.push_back({{"artifactLocation", {{"uri", sources.file(fix.range.file).path}}},
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
         {"results", results}}}}};
  return sarif.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace kdt
