// `kdt lsp`: the Language Server Protocol over stdio. One thread reads
// framed JSON-RPC messages, keeps the open documents in memory, runs the
// front end on each change and publishes its diagnostics (rendered by
// diag/render_lsp); hover and definition read the checked AST of the last
// run (looked up by syntax/ast_walk). The command line is options.cpp's.
#include "kdt/driver/lsp.h"

#include "driver/lsp_completion.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <exception>
#include <iostream>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kdt/check/check.h"
#include "kdt/diag/render_lsp.h"
#include "kdt/driver/compile.h"
#include "kdt/driver/options.h"
#include "kdt/syntax/ast_walk.h"
#include "kdt/source/type.h"
#include "kdt/version.h"

namespace kdt {

using nlohmann::json;

namespace {

// JSON-RPC and LSP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;

// Bodies larger than this are refused (and skipped) rather than buffered.
constexpr size_t kMaxBody = size_t{256} << 20;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// ---------------------------------------------------------------------------
// Framing
//
// A message is a header (`Name: value` lines ended by CRLF or LF), an empty
// line, then exactly Content-Length bytes of JSON. A client whose
// Content-Length is wrong puts the stream out of step: too short, and the
// tail of its body comes before the next header, often on the same line;
// too long, and the body swallows the start of the next message. So after a
// frame that is malformed or whose body is not JSON the reader is *lost*: it
// skips input, silently, up to the next `Content-Length:` wherever it stands
// in a line, and a body that does not parse is searched for one and read
// again from there. Bytes skipped while not lost are reported once.

struct Frame {
  enum class Status { Ok, Eof, Malformed, NotJson };
  Status status = Status::Eof;
  json message;        // Ok: the parsed body
  std::string error;   // Malformed and NotJson: what was wrong
  size_t skipped = 0;  // bytes before this frame that were not a message, not yet reported
};

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Where `Content-Length:` starts in `text`, in any case, from `from` on.
size_t find_content_length(const std::string& text, size_t from = 0) {
  static const std::string needle = "content-length:";
  auto same = [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; };
  auto it = std::search(text.begin() + static_cast<std::ptrdiff_t>(std::min(from, text.size())), text.end(),
                        needle.begin(), needle.end(), same);
  return it == text.end() ? std::string::npos : static_cast<size_t>(it - text.begin());
}

// A header field name is an RFC 7230 token.
bool is_token(const std::string& name) {
  if (name.empty()) return false;
  for (char ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && std::string("!#$%&'*+-.^_`|~").find(ch) == std::string::npos) {
      return false;
    }
  }
  return true;
}

class FrameReader {
 public:
  explicit FrameReader(std::istream& in) : in_(*in.rdbuf()) {}

  Frame next() {
    Frame frame;
    Frame result = read(frame);
    if (result.status == Frame::Status::Malformed || result.status == Frame::Status::NotJson) lost_ = true;
    return result;
  }

 private:
  // Header lines longer than this are not headers: only their end is kept
  // (where a `Content-Length:` may follow the tail of a body).
  static constexpr size_t kMaxHeaderLine = 8192;

  Frame read(Frame& frame) {
    bool has_length = false;
    size_t length = 0;
    std::string error;
    bool any_header = false;
    std::string line;
    bool overlong = false;
    while (true) {
      if (!read_line(line, overlong, frame)) return eof(frame);  // mid-header counts too
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t at = find_content_length(line);
      if (at != std::string::npos && (at > 0 || overlong)) {
        // A header glued to what came before it: start the message here.
        skip(at, frame);
        line.erase(0, at);
        overlong = false;
        has_length = false;
        error.clear();
        any_header = false;
        lost_ = false;
      } else if (at == 0) {
        lost_ = false;
      }
      if (lost_) {
        skip(line.size() + 1, frame);
        continue;
      }
      if (line.empty()) {
        if (!any_header) {
          // Stray blank lines between messages are fine; garbage before them is reported now.
          if (frame.skipped > 0) {
            std::string what = std::to_string(frame.skipped) + " bytes that are not a message header";
            frame.skipped = 0;
            return malformed(frame, what);
          }
          continue;
        }
        break;
      }
      size_t colon = line.find(':');
      std::string name = colon == std::string::npos ? std::string() : lower(trim(line.substr(0, colon)));
      if (overlong || !is_token(name)) {
        if (!any_header) {
          skip(line.size() + 1, frame);  // not the start of a message
          continue;
        }
        if (error.empty()) error = "malformed header line";
        continue;
      }
      any_header = true;
      std::string value = trim(line.substr(colon + 1));
      if (name == "content-length") {
        bool digits = !value.empty() && value.size() <= 18;
        for (char ch : value) digits = digits && std::isdigit(static_cast<unsigned char>(ch));
        if (!digits) {
          error = "invalid Content-Length '" + value.substr(0, 64) + "'";
          continue;
        }
        length = std::stoull(value);
        has_length = true;
      }
    }
    if (!has_length && error.empty()) error = "missing Content-Length header";
    if (!error.empty()) return malformed(frame, error);
    if (length > kMaxBody) {
      // Skip the body so that the next message is read from its start.
      if (!discard(length)) return eof(frame);
      return malformed(frame, "message too large");
    }
    std::string body;
    if (!read_body(body, length)) return eof(frame);  // truncated: end of input
    frame.message = json::parse(body, nullptr, false);
    if (frame.message.is_discarded()) {
      // A Content-Length too long swallows the next header: read it again.
      size_t at = find_content_length(body, 1);
      if (at != std::string::npos) give_back(body.substr(at));
      frame.status = Frame::Status::NotJson;
      frame.error = "the message is not valid JSON";
      frame.message = nullptr;
      return frame;
    }
    frame.status = Frame::Status::Ok;
    return frame;
  }

  Frame eof(Frame& frame) {
    frame.status = Frame::Status::Eof;
    return frame;
  }

  Frame malformed(Frame& frame, const std::string& error) {
    frame.status = Frame::Status::Malformed;
    frame.error = error;
    return frame;
  }

  // Counts skipped bytes: reported with the next frame unless the reader is
  // lost (the frame that lost it was reported already).
  void skip(size_t bytes, Frame& frame) {
    if (!lost_) frame.skipped += bytes;
  }

  int get() {
    if (pending_at_ < pending_.size()) return static_cast<unsigned char>(pending_[pending_at_++]);
    return in_.sbumpc();
  }

  void give_back(std::string bytes) {
    pending_ = std::move(bytes) + pending_.substr(pending_at_);
    pending_at_ = 0;
  }

  // One line without its '\n'; false at end of input. A line longer than
  // kMaxHeaderLine keeps only its end and sets `overlong`.
  bool read_line(std::string& line, bool& overlong, Frame& frame) {
    line.clear();
    overlong = false;
    while (true) {
      int ch = get();
      if (ch == std::char_traits<char>::eof()) return false;
      if (ch == '\n') return true;
      line += static_cast<char>(ch);
      if (line.size() > kMaxHeaderLine) {
        size_t keep = 64;  // more than `Content-Length: ` and a number
        skip(line.size() - keep, frame);
        line.erase(0, line.size() - keep);
        overlong = true;
      }
    }
  }

  bool read_body(std::string& body, size_t length) {
    body.resize(length);
    size_t done = 0;
    while (done < length && pending_at_ < pending_.size()) body[done++] = pending_[pending_at_++];
    while (done < length) {
      std::streamsize n = in_.sgetn(body.data() + done, static_cast<std::streamsize>(length - done));
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  bool discard(size_t length) {
    char buffer[65536];
    while (length > 0 && pending_at_ < pending_.size()) {
      ++pending_at_;
      --length;
    }
    while (length > 0) {
      std::streamsize n = in_.sgetn(buffer, static_cast<std::streamsize>(std::min(length, sizeof buffer)));
      if (n <= 0) return false;
      length -= static_cast<size_t>(n);
    }
    return true;
  }

  std::streambuf& in_;
  std::string pending_;  // bytes read once and given back, read before `in_`
  size_t pending_at_ = 0;
  bool lost_ = false;  // out of step: skip up to the next Content-Length
};

// ---------------------------------------------------------------------------
// Hover text

const char* symbol_kind_word(Symbol::Kind kind) {
  switch (kind) {
    case Symbol::Kind::Const: return "const";
    case Symbol::Kind::Param: return "param";
    case Symbol::Kind::Scratch: return "scratch";
    case Symbol::Kind::Sem: return "sem";
    case Symbol::Kind::Let: return "let";
    case Symbol::Kind::Var: return "var";
    case Symbol::Kind::LoopVar: return "for";
    case Symbol::Kind::AsmInput: return "asm input";
    case Symbol::Kind::AsmOutput: return "asm output";
    case Symbol::Kind::Type: return "type";
    case Symbol::Kind::Function: return "fn";
  }
  return "name";
}

const char* mode_word(ast::ParamMode mode) {
  switch (mode) {
    case ast::ParamMode::In: return "in ";
    case ast::ParamMode::Out: return "out ";
    case ast::ParamMode::InOut: return "inout ";
    case ast::ParamMode::Scalar: return "";
  }
  return "";
}

// What a hover shows: a KD-like declaration, then the shape.
std::string describe(const Symbol* symbol, const Type& type, const std::string& fallback_name) {
  std::string name = symbol ? symbol->name.str() : fallback_name;
  std::string head;
  if (symbol && symbol->kind == Symbol::Kind::Const) {
    head = "const " + name;
    if (symbol->const_value) head += " = " + std::to_string(*symbol->const_value);
    return "```kd\n" + head + "\n```\n\ninteger constant";
  } else if (symbol && symbol->kind == Symbol::Kind::Sem && type.kind == Type::Kind::Sem) {
    // As KD declares it: `sem s[2]: dma`.
    std::string ty = type_string(type);  // sem[2]: dma
    head = "sem " + name + ty.substr(3);
  } else if (symbol && symbol->kind == Symbol::Kind::Param) {
    head = "param " + name + ": " + mode_word(symbol->mode) + type_string(type);
  } else if (symbol) {
    head = std::string(symbol_kind_word(symbol->kind)) + " " + name + ": " + type_string(type);
  } else {
    head = (name.empty() ? std::string() : name + ": ") + type_string(type);
  }
  std::string text = "```kd\n" + head + "\n```";
  if (type.kind == Type::Kind::Value || type.kind == Type::Kind::Ref) {
    if (type.shape.empty()) {
      text += "\n\nscalar";
    } else {
      text += "\n\nshape `" + shape_string(type.shape) + "` (" + std::to_string(type.element_count()) + " elements)";
    }
  } else if (type.kind == Type::Kind::Sem) {
    text += type.sem_kind == SemKind::Dma
                ? "\n\nDMA semaphore: each DMA started on it counts its bytes when it lands; `dma_wait` retires the "
                  "oldest and lowers it by that many bytes"
                : "\n\nregular semaphore: `sem_signal` raises it (on this or another device), `sem_wait` waits "
                  "until it is high enough and lowers it";
    if (type.detail().sem_count >= 0) {
      text += "\n\narray of " + std::to_string(type.detail().sem_count) +
              (type.detail().sem_cols >= 0 ? " x " + std::to_string(type.detail().sem_cols) : "") + " semaphores";
    }
  }
  return text;
}

// ---------------------------------------------------------------------------
// Parameters
//
// Every field a method reads is checked before it is used: a request whose
// parameters do not have the shape LSP gives them gets -32602 (a
// notification is dropped, with a log message), never a guess. Numbers are
// never converted from a float (`1.5`, `1e300`) or from outside their range.

struct InvalidParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `value` as the message shows it: JSON, cut short.
std::string shown(const json& value) {
  std::string text = dump(value);
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

const json& member(const json& object, const char* name, const std::string& where) {
  if (!object.is_object()) throw InvalidParams("`" + where + "` must be an object, not " + shown(object));
  auto it = object.find(name);
  if (it == object.end()) throw InvalidParams("`" + where + "` has no `" + name + "`");
  return *it;
}

const json& object_member(const json& object, const char* name, const std::string& where) {
  const json& value = member(object, name, where);
  if (!value.is_object()) throw InvalidParams("`" + where + "." + name + "` must be an object, not " + shown(value));
  return value;
}

std::string string_member(const json& object, const char* name, const std::string& where) {
  const json& value = member(object, name, where);
  if (!value.is_string()) throw InvalidParams("`" + where + "." + name + "` must be a string, not " + shown(value));
  return value.get<std::string>();
}

// An integer from `lo` to `hi`, as JSON wrote it: a float (even `1.0`), a
// string or a number out of range is refused.
int64_t integer_value(const json& value, int64_t lo, int64_t hi, const std::string& what) {
  bool ok = false;
  int64_t n = 0;
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    ok = u <= static_cast<uint64_t>(hi);
    n = ok ? static_cast<int64_t>(u) : 0;
  } else if (value.is_number_integer()) {
    n = value.get<int64_t>();
    ok = lo <= n && n <= hi;
  }
  if (!ok) {
    throw InvalidParams("`" + what + "` must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                        ", not " + shown(value));
  }
  return n;
}

// LSP's `uinteger` and `integer`.
constexpr int64_t kMaxInteger = std::numeric_limits<int32_t>::max();
constexpr int64_t kMinInteger = std::numeric_limits<int32_t>::min();

// An LSP Position: zero-based line and UTF-16 character.
struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
};

Position position_member(const json& object, const char* name, const std::string& where) {
  const json& pos = object_member(object, name, where);
  std::string at = where + "." + name;
  Position p;
  p.line = static_cast<uint32_t>(integer_value(member(pos, "line", at), 0, kMaxInteger, at + ".line"));
  p.character = static_cast<uint32_t>(integer_value(member(pos, "character", at), 0, kMaxInteger, at + ".character"));
  return p;
}

// `textDocument.version`, when the client sent one.
std::optional<int64_t> version_member(const json& text_document, const std::string& where) {
  auto it = text_document.find("version");
  if (it == text_document.end() || it->is_null()) return std::nullopt;
  return integer_value(*it, kMinInteger, kMaxInteger, where + ".version");
}

// ---------------------------------------------------------------------------
// The server

struct Document {
  std::string uri;
  std::string path;
  std::string text;
  int64_t version = 0;
  std::unique_ptr<Compilation> compilation;
  nlohmann::json diagnostics = nlohmann::json::array();  // as last published
};

class Server {
 public:
  Server(std::ostream& out, Options base) : out_(out), base_(std::move(base)) {}

  // Returns the exit status once `exit` arrives, or nullopt to go on.
  std::optional<int> handle_frame(const Frame& frame) {
    if (frame.skipped > 0) {
      send_error(nullptr, kParseError,
                 "ignored " + std::to_string(frame.skipped) + " bytes that are not a message header");
    }
    switch (frame.status) {
      case Frame::Status::Ok: return handle(frame.message);
      case Frame::Status::Malformed: send_error(nullptr, kParseError, "malformed message: " + frame.error); break;
      case Frame::Status::NotJson: send_error(nullptr, kParseError, frame.error); break;
      case Frame::Status::Eof: break;
    }
    return std::nullopt;
  }

  bool shut_down() const { return shutdown_; }

 private:
  std::optional<int> handle(const json& message) {
    if (!message.is_object()) {
      send_error(nullptr, kInvalidRequest, "a message must be a JSON object");
      return std::nullopt;
    }
    json id = nullptr;
    bool is_request = message.contains("id");
    if (is_request) {
      id = message["id"];
      if (!id.is_number_integer() && !id.is_string()) {
        send_error(nullptr, kInvalidRequest, "the id must be a number or a string");
        return std::nullopt;
      }
    }
    auto method_it = message.find("method");
    if (method_it == message.end()) {
      // A response to a request of ours (we send none): nothing to do.
      if (is_request && (message.contains("result") || message.contains("error"))) return std::nullopt;
      send_error(id, kInvalidRequest, "a request needs a `method`");
      return std::nullopt;
    }
    if (!method_it->is_string() || message.value("jsonrpc", json()) != "2.0") {
      send_error(id, kInvalidRequest, "not a JSON-RPC 2.0 request");
      return std::nullopt;
    }
    const std::string method = *method_it;
    // JSON-RPC's params are an object or an array; LSP clients send null
    // (or nothing) to methods that take none.
    json params = message.value("params", json::object());
    if (!params.is_object() && !params.is_array() && !params.is_null()) {
      if (is_request) send_error(id, kInvalidRequest, "`params` must be an object or an array, not " + shown(params));
      return std::nullopt;
    }
    try {
      if (method == "exit") return shutdown_ ? 0 : 1;
      if (is_request) {
        handle_request(id, method, params);
      } else {
        handle_notification(method, params);
      }
    } catch (const InvalidParams& e) {
      failed(is_request, id, method, kInvalidParams, std::string("invalid params: ") + e.what());
    } catch (const json::exception& e) {
      failed(is_request, id, method, kInvalidParams, std::string("invalid params: ") + e.what());
    } catch (const std::exception& e) {
      failed(is_request, id, method, kInternalError, std::string("internal error: ") + e.what());
    }
    return std::nullopt;
  }

  // A request gets the error; a notification has no answer, so the client
  // is told in its log.
  void failed(bool is_request, const json& id, const std::string& method, int code, const std::string& message) {
    if (is_request) {
      send_error(id, code, message);
    } else {
      send({{"jsonrpc", "2.0"},
            {"method", "window/logMessage"},
            {"params", {{"type", 1}, {"message", "kdt: ignored " + method + ": " + message}}}});
    }
  }

  void handle_request(const json& id, const std::string& method, const json& params) {
    if (method == "initialize") {
      if (initialized_) {
        send_error(id, kInvalidRequest, "initialize was already sent");
        return;
      }
      initialized_ = true;
      read_initialization_options(params);
      json capabilities = {
          {"positionEncoding", "utf-16"},
          {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", true}}},
          {"hoverProvider", true},
          {"definitionProvider", true},
          {"documentSymbolProvider", true},
          {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
          {"completionProvider", json::object()},
          {"diagnosticProvider", {{"interFileDependencies", true}, {"workspaceDiagnostics", false}}},
      };
      send_result(id, {{"capabilities", capabilities}, {"serverInfo", {{"name", "kdt"}, {"version", KDT_VERSION}}}});
      return;
    }
    if (!initialized_) {
      send_error(id, kServerNotInitialized, "the server is not initialized");
      return;
    }
    if (shutdown_) {
      send_error(id, kInvalidRequest, "the server is shut down");
      return;
    }
    if (method == "shutdown") {
      shutdown_ = true;
      docs_.clear();
      send_result(id, nullptr);
    } else if (method == "textDocument/hover") {
      send_result(id, hover(params));
    } else if (method == "textDocument/definition") {
      send_result(id, definition(params));
    } else if (method == "textDocument/documentSymbol") {
      send_result(id, document_symbols(params));
    } else if (method == "textDocument/codeAction") {
      send_result(id, code_actions(params));
    } else if (method == "textDocument/completion") {
      const Document* doc = open_document(params);
      send_result(id, lsp_completion_items(doc ? doc->compilation.get() : nullptr));
    } else if (method == "textDocument/diagnostic") {
      // Pull diagnostics: what the last check of the open document found.
      const Document* doc = open_document(params);
      send_result(id, {{"kind", "full"}, {"items", doc ? doc->diagnostics : json::array()}});
    } else {
      send_error(id, kMethodNotFound, "unknown method '" + method + "'");
    }
  }

  void handle_notification(const std::string& method, const json& params) {
    if (!initialized_ || shutdown_) return;  // dropped, as the protocol asks
    if (method == "textDocument/didOpen") {
      const json& td = object_member(params, "textDocument", "params");
      std::string uri = string_member(td, "uri", "params.textDocument");
      std::string text = string_member(td, "text", "params.textDocument");
      std::optional<int64_t> version = version_member(td, "params.textDocument");
      Document& doc = docs_[uri];
      doc.uri = uri;
      doc.path = path_from_uri(uri);
      doc.text = std::move(text);
      doc.version = version.value_or(0);
      check(doc);
    } else if (method == "textDocument/didChange") {
      const json& td = object_member(params, "textDocument", "params");
      std::string uri = string_member(td, "uri", "params.textDocument");
      std::optional<int64_t> version = version_member(td, "params.textDocument");
      const json& changes = member(params, "contentChanges", "params");
      if (!changes.is_array()) throw InvalidParams("`params.contentChanges` must be an array, not " + shown(changes));
      auto it = docs_.find(uri);
      if (it == docs_.end()) return;
      Document& doc = it->second;
      // All or nothing: a bad change leaves the document as it was.
      std::string text = doc.text;
      for (size_t i = 0; i < changes.size(); ++i) {
        apply_change(text, changes[i], "params.contentChanges[" + std::to_string(i) + "]");
      }
      doc.text = std::move(text);
      if (version) doc.version = *version;
      check(doc);
    } else if (method == "textDocument/didSave") {
      // The open files that include the saved one read it from disk: check them again.
      std::string uri = string_member(object_member(params, "textDocument", "params"), "uri", "params.textDocument");
      recheck_includers(path_from_uri(uri), uri);
    } else if (method == "textDocument/didClose") {
      std::string uri = string_member(object_member(params, "textDocument", "params"), "uri", "params.textDocument");
      docs_.erase(uri);
      publish(uri, json::array(), std::nullopt);
    }
    // initialized, $/cancelRequest, $/setTrace and the unknown: nothing.
  }

  void read_initialization_options(const json& params) {
    auto it = params.find("initializationOptions");
    if (it == params.end() || !it->is_object()) return;
    if (auto dirs = it->find("includeDirs"); dirs != it->end() && dirs->is_array()) {
      for (const json& d : *dirs)
        if (d.is_string()) base_.include_dirs.push_back(d.get<std::string>());
    }
    if (auto defines = it->find("defines"); defines != it->end() && defines->is_object()) {
      for (const auto& [name, value] : defines->items())
        if (value.is_number_integer()) base_.defines[name] = value.get<int64_t>();
        else if (value.is_string() && dtype_from_name(value.get<std::string>())) base_.type_defines[name] = *dtype_from_name(value.get<std::string>());
    }
  }

  static void apply_change(std::string& text, const json& change, const std::string& where) {
    std::string replacement = string_member(change, "text", where);
    if (!change.contains("range")) {
      text = std::move(replacement);
      return;
    }
    const json& range = object_member(change, "range", where);
    Position start = position_member(range, "start", where + ".range");
    Position end_pos = position_member(range, "end", where + ".range");
    SourceManager sm;
    FileId id = sm.add("", text);
    uint32_t begin = sm.offset_of_utf16(id, start.line, start.character);
    uint32_t end = sm.offset_of_utf16(id, end_pos.line, end_pos.character);
    if (end < begin) std::swap(begin, end);
    text.replace(begin, end - begin, replacement);
  }

  // ---- diagnostics

  void check(Document& doc) {
    doc.compilation.reset();
    json diagnostics = json::array();
    try {
      doc.compilation = compile_front_end(doc.path, base_, doc.text);
      // The document keeps its compilation for navigation, which needs the
      // checked program, not the IR the DMA-protocol checks lowered.
      doc.compilation->lowered.reset();
      const Compilation& c = *doc.compilation;
      diagnostics = render_lsp(c.diags.sorted(), c.sources, doc.uri);
    } catch (const std::exception& e) {
      doc.compilation.reset();
      Diagnostic internal{DiagCode::InternalError, Severity::Error, std::string("kdt: internal error: ") + e.what(),
                          SourceRange(), {}, {}, {}};
      diagnostics = render_lsp({internal}, SourceManager(), doc.uri);
    }
    doc.diagnostics = diagnostics;
    publish(doc.uri, diagnostics, doc.version);
  }

  // The open document `params.textDocument.uri` names, or null.
  const Document* open_document(const json& params) const {
    std::string uri = string_member(object_member(params, "textDocument", "params"), "uri", "params.textDocument");
    auto it = docs_.find(uri);
    return it == docs_.end() ? nullptr : &it->second;
  }

  // Quick fixes from the fix-its of the diagnostics on the lines asked for.
  json code_actions(const json& params) const {
    const json& range = object_member(params, "range", "params");
    Position start = position_member(range, "start", "params.range");
    Position end = position_member(range, "end", "params.range");
    const Document* doc = open_document(params);
    if (!doc || !doc->compilation) return json::array();
    const Compilation& c = *doc->compilation;
    return render_lsp_code_actions(c.diags.sorted(), c.sources, doc->uri, start.line, end.line);
  }

  // Checks again every open document other than `uri` whose last check
  // read `path` (an include, read from disk).
  void recheck_includers(const std::string& path, const std::string& uri) {
    std::error_code ec;
    const std::filesystem::path saved = std::filesystem::weakly_canonical(path, ec);
    for (auto& [other_uri, doc] : docs_) {
      if (other_uri == uri || !doc.compilation) continue;
      bool includes = false;
      for (const std::string& read : doc.compilation->files_read) {
        std::error_code read_ec;
        includes = includes || std::filesystem::weakly_canonical(read, read_ec) == saved;
      }
      if (includes) check(doc);
    }
  }

  void publish(const std::string& uri, const json& diagnostics, std::optional<int64_t> version) {
    json params = {{"uri", uri}, {"diagnostics", diagnostics}};
    if (version) params["version"] = *version;
    send({{"jsonrpc", "2.0"}, {"method", "textDocument/publishDiagnostics"}, {"params", params}});
  }

  // ---- hover and definition

  struct Target {
    const ast::Expr* expr = nullptr;  // a use
    const Symbol* symbol = nullptr;   // its symbol, or a declaration under the cursor
    SourceRange range;                // what the cursor is on
  };

  // Where the request points, in a document with a checked AST. The
  // parameters are checked first, whether the document is open or not.
  const Document* document_at(const json& params, uint32_t& offset) const {
    std::string uri = string_member(object_member(params, "textDocument", "params"), "uri", "params.textDocument");
    Position pos = position_member(params, "position", "params");
    auto it = docs_.find(uri);
    if (it == docs_.end() || !it->second.compilation || !it->second.compilation->parsed) return nullptr;
    offset = it->second.compilation->sources.offset_of_utf16(1, pos.line, pos.character);
    return &it->second;
  }

  static Target find_target(const Compilation& c, uint32_t offset) {
    Target best;
    ast::ExprsAt at;
    for (const ast::File& file : c.program.module.files) {
      if (file.file == 1) at = ast::exprs_at(file, offset);
    }
    best.expr = at.name;
    const ast::Expr* innermost = at.innermost;
    if (best.expr) {
      best.symbol = best.expr->symbol;
      if (!best.symbol) {
        // Names the checker only evaluates (shapes, grid sizes) are consts.
        for (const Symbol& s : c.program.symbols)
          if (s.kind == Symbol::Kind::Const && s.name == best.expr->spelling) best.symbol = &s;
      }
      best.range = best.expr->range;
      return best;
    }
    // The declaring name itself.
    for (const Symbol& s : c.program.symbols) {
      if (ast::touches(s.range, 1, offset) &&
          (!best.symbol || s.range.end - s.range.begin < best.symbol->range.end - best.symbol->range.begin)) {
        best.symbol = &s;
        best.range = s.range;
      }
    }
    if (best.symbol) return best;
    if (innermost) {
      best.expr = innermost;
      best.range = innermost->range;
    }
    return best;
  }

  // The document and the syntax under the cursor of a position request.
  struct Cursor {
    const Document* doc;
    Target target;
  };
  std::optional<Cursor> cursor(const json& params) const {
    uint32_t offset = 0;
    const Document* doc = document_at(params, offset);
    if (!doc) return std::nullopt;
    return Cursor{doc, find_target(*doc->compilation, offset)};
  }

  json hover(const json& params) const {
    std::optional<Cursor> at = cursor(params);
    if (!at) return nullptr;
    const Compilation& c = *at->doc->compilation;
    const Target& t = at->target;
    std::string text;
    if (t.symbol && t.symbol->kind == Symbol::Kind::Const) {
      text = describe(t.symbol, t.symbol->type, t.symbol->name);
    } else if (t.symbol && t.symbol->kind == Symbol::Kind::Sem && !t.symbol->type.is_error()) {
      // A semaphore's use has no value type (its expression is `()`): the declaration says what it is.
      text = describe(t.symbol, t.symbol->type, t.symbol->name);
    } else if (t.expr && !t.expr->type.is_error()) {
      std::string name = t.expr->kind == ast::Expr::Kind::Name ? t.expr->spelling.str() : std::string();
      text = describe(t.symbol, t.expr->type, name);
      // A slice or index of a ref is a view: say of what.
      if (t.expr->kind != ast::Expr::Kind::Name && t.expr->type.kind == Type::Kind::Ref) {
        text += "\n\na view: the elements it selects, read or written in place";
      }
    } else if (t.symbol && !t.symbol->type.is_error()) {
      text = describe(t.symbol, t.symbol->type, t.symbol->name);
    } else {
      return nullptr;
    }
    return {{"contents", {{"kind", "markdown"}, {"value", text}}}, {"range", lsp_range(c.sources, t.range)}};
  }

  json definition(const json& params) const {
    std::optional<Cursor> at = cursor(params);
    if (!at) return nullptr;
    const Symbol* symbol = at->target.symbol;
    if (!symbol || !symbol->range.valid()) return nullptr;
    return lsp_location(at->doc->compilation->sources, symbol->range, at->doc->uri);
  }

  // ---- document symbols: kernels (with their scratch buffers and
  // semaphores), functions, constants and type aliases of the document's
  // own file, as a hierarchy (DocumentSymbol[]).

  static json symbol(const SourceManager& sources, const std::string& name, int kind, const std::string& detail,
                     SourceRange range, SourceRange selection) {
    json s = {{"name", name}, {"kind", kind}, {"range", lsp_range(sources, range)},
              {"selectionRange", lsp_range(sources, selection.valid() ? selection : range)}};
    if (!detail.empty()) s["detail"] = detail;
    return s;
  }

  // The scratch buffers and semaphores declared in `body`, nested blocks included.
  static void local_symbols(const SourceManager& sources, const ast::Block& body, json& out) {
    constexpr int kVariable = 13, kEvent = 24;
    for (const ast::StmtPtr& s : body.stmts) {
      if (s->kind == ast::Stmt::Kind::Scratch) {
        out.push_back(symbol(sources, s->name.text, kVariable, "scratch @" + s->mem_space.text, s->range, s->name.range));
      } else if (s->kind == ast::Stmt::Kind::Sem) {
        out.push_back(symbol(sources, s->name.text, kEvent, "sem " + s->sem_kind.text, s->range, s->name.range));
      }
      local_symbols(sources, s->body, out);
      for (const ast::IfClause& c : s->clauses) local_symbols(sources, c.body, out);
    }
  }

  json document_symbols(const json& params) const {
    std::string uri = string_member(object_member(params, "textDocument", "params"), "uri", "params.textDocument");
    auto it = docs_.find(uri);
    if (it == docs_.end() || !it->second.compilation || !it->second.compilation->parsed) return json::array();
    const Compilation& c = *it->second.compilation;
    constexpr int kFunction = 12, kConstant = 14, kTypeParameter = 26;
    // A kernel's or function's symbol, with its scratch buffers and semaphores as children.
    auto with_locals = [&](json s, const ast::Block& body) {
      json children = json::array();
      local_symbols(c.sources, body, children);
      if (!children.empty()) s["children"] = std::move(children);
      return s;
    };
    json out = json::array();
    for (const ast::File& file : c.program.module.files) {
      if (file.file != 1) continue;
      for (auto [kind, i] : file.order) {
        switch (kind) {
          case ast::File::ItemKind::Const: {
            const ast::ConstDecl& d = file.consts[i];
            out.push_back(symbol(c.sources, d.name.text, kConstant, "const", d.range, d.name.range));
            break;
          }
          case ast::File::ItemKind::Type: {
            const ast::TypeDecl& d = file.types[i];
            out.push_back(symbol(c.sources, d.name.text, kTypeParameter, "type", d.range, d.name.range));
            break;
          }
          case ast::File::ItemKind::Function: {
            const ast::Function& f = file.functions[i];
            out.push_back(with_locals(symbol(c.sources, f.name.text, kFunction, "fn", f.range, f.name.range), f.body));
            break;
          }
          case ast::File::ItemKind::Kernel: {
            const ast::Kernel& k = file.kernels[i];
            out.push_back(with_locals(symbol(c.sources, k.name.text, kFunction, "kernel", k.range, k.name.range), k.body));
            break;
          }
        }
      }
    }
    return out;
  }

  // ---- output

  void send(const json& message) {
    std::string body = dump(message);
    out_ << "Content-Length: " << body.size() << "\r\n\r\n" << body;
    out_.flush();
  }

  void send_result(const json& id, const json& result) { send({{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}); }

  void send_error(const json& id, int code, const std::string& message) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
  }

  std::ostream& out_;
  Options base_;
  bool initialized_ = false;
  bool shutdown_ = false;
  std::map<std::string, Document> docs_;
};

}  // namespace

int lsp_serve(std::istream& in, std::ostream& out, const std::vector<std::string>& args) {
  Options options;
  std::string error;
  if (!parse_lsp_options(args, options, error)) return usage_error(options, error);
  if (options.help) {
    out << lsp_help_text();
    out.flush();
    return 0;
  }
  Server server(out, options);
  FrameReader reader(in);
  while (true) {
    Frame frame = reader.next();
    if (frame.status == Frame::Status::Eof) return server.shut_down() ? 0 : 1;
    if (std::optional<int> status = server.handle_frame(frame)) return *status;
  }
}

int lsp_main(const std::vector<std::string>& args) {
  std::ios::sync_with_stdio(false);
  return lsp_serve(std::cin, std::cout, args);
}

}  // namespace kdt
