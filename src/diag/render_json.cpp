// The GCC-style JSON consumer (cli.md): an array of diagnostic objects.
#include <nlohmann/json.hpp>

#include "kdt/diag/render.h"

namespace kdt {

namespace {

using json = nlohmann::ordered_json;

// As GCC writes a position: `column` is the display column (tabs to the
// next multiple of 8, wide characters 2), with `display-column` and
// `byte-column` beside it, all 1-based (`column-origin`).
json position(const SourceManager& sources, FileId file, uint32_t offset) {
  LineColumn lc = sources.position(file, offset);
  return {{"file", sources.file(file).path},
          {"line", lc.line},
          {"column", lc.display_column},
          {"display-column", lc.display_column},
          {"byte-column", lc.byte_column}};
}

// GCC's `finish` is the last character of the range, inclusive: the first
// byte of its last code point.
json location(const SourceManager& sources, SourceRange range, const std::string& label = {}) {
  uint32_t last = range.end > range.begin ? range.end - 1 : range.begin;
  const std::string& text = sources.file(range.file).text;
  while (last > range.begin && last < text.size() && (static_cast<unsigned char>(text[last]) & 0xC0) == 0x80) --last;
  json loc = {{"caret", position(sources, range.file, range.begin)},
              {"start", position(sources, range.file, range.begin)},
              {"finish", position(sources, range.file, last)}};
  if (!label.empty()) loc["label"] = label;
  return loc;
}

json locations(const SourceManager& sources, SourceRange range) {
  json locs = json::array();
  if (range.valid()) locs.push_back(location(sources, range));
  return locs;
}

}  // namespace

std::string render_json(const std::vector<Diagnostic>& diags, const SourceManager& sources) {
  json out = json::array();
  for (const Diagnostic& d : diags) {
    json locs = locations(sources, d.range);
    for (const Label& label : d.labels) {
      if (label.range.valid()) locs.push_back(location(sources, label.range, label.message));
    }
    json children = json::array();
    for (const Note& note : d.notes) {
      children.push_back({{"kind", "note"}, {"message", note.message}, {"locations", locations(sources, note.range)}});
    }
    json entry = {{"kind", severity_name(d.severity)},
                  {"message", d.message},
                  {"code", diag_info(d.code).name},
                  {"column-origin", 1},
                  {"locations", locs},
                  {"children", children}};
    // A warning's flag, as GCC names it: -WCODE, or -Werror=CODE once an error.
    if (diag_info(d.code).severity == Severity::Warning) {
      entry["option"] = std::string(d.severity == Severity::Error ? "-Werror=" : "-W") + diag_info(d.code).name;
    }
    if (!d.fixits.empty()) {
      json fixits = json::array();
      for (const FixIt& fix : d.fixits) {
        fixits.push_back({{"start", position(sources, fix.range.file, fix.range.begin)},
                          {"next", position(sources, fix.range.file, fix.range.end)},
                          {"string", fix.replacement}});
      }
      entry["fixits"] = fixits;
    }
    out.push_back(entry);
  }
  // Replacement of invalid UTF-8 keeps the output valid JSON whatever the input held.
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace kdt
