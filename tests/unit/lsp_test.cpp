// `kdt lsp` as an editor runs it: a test client spawns the binary, talks
// JSON-RPC over pipes with Content-Length framing and checks the answers.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "doctest/doctest.h"
#include "kdt/driver/lsp.h"
#include "test_support.h"

using nlohmann::json;

namespace {

class LspClient {
 public:
  LspClient() {
    ::signal(SIGPIPE, SIG_IGN);
    int to_child[2];
    int from_child[2];
    REQUIRE(::pipe(to_child) == 0);
    REQUIRE(::pipe(from_child) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::dup2(to_child[0], STDIN_FILENO);
      ::dup2(from_child[1], STDOUT_FILENO);
      ::close(to_child[0]);
      ::close(to_child[1]);
      ::close(from_child[0]);
      ::close(from_child[1]);
      std::string binary = kdt::test::kdt_binary();
      ::execl(binary.c_str(), "kdt", "lsp", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    to_ = to_child[1];
    from_ = from_child[0];
  }

  ~LspClient() {
    close_input();
    if (from_ >= 0) ::close(from_);
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  void send_raw(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(to_, bytes.data() + done, bytes.size() - done);
      REQUIRE(n > 0);
      done += static_cast<size_t>(n);
    }
  }

  void send(const json& message) {
    std::string body = message.dump();
    send_raw("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  }

  void request(int id, const std::string& method, const json& params) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  }

  void notify(const std::string& method, const json& params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
  }

  // The next message, or nullopt after `timeout_ms` or at end of output.
  std::optional<json> receive(int timeout_ms = 20000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      size_t header_end = buffer_.find("\r\n\r\n");
      if (header_end != std::string::npos) {
        std::string headers = buffer_.substr(0, header_end);
        size_t at = headers.find("Content-Length: ");
        REQUIRE(at != std::string::npos);
        size_t length = std::stoul(headers.substr(at + 16));
        if (buffer_.size() >= header_end + 4 + length) {
          std::string body = buffer_.substr(header_end + 4, length);
          buffer_.erase(0, header_end + 4 + length);
          return json::parse(body);
        }
      }
      int left = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
      if (left <= 0) return std::nullopt;
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, left) <= 0) return std::nullopt;
      char chunk[65536];
      ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  // The response to request `id` (skipping notifications).
  json response(const json& id) {
    while (auto m = receive()) {
      if (m->contains("id") && (*m)["id"] == id && !m->contains("method")) return *m;
    }
    FAIL("no response to request " << id.dump());
    return {};
  }

  json diagnostics_for(const std::string& uri) {
    while (auto m = receive()) {
      if (m->value("method", "") == "textDocument/publishDiagnostics" && (*m)["params"]["uri"] == uri) {
        return (*m)["params"];
      }
    }
    FAIL("no diagnostics for " << uri);
    return {};
  }

  void close_input() {
    if (to_ >= 0) ::close(to_);
    to_ = -1;
  }

  // The exit status, or -1 when the server does not exit within 20 s.
  int wait_exit() {
    for (int i = 0; i < 2000; ++i) {
      int status = 0;
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  bool exited_ = false;
  std::string buffer_;
};

json pos(int line, int character) { return {{"line", line}, {"character", character}}; }
json range(int l0, int c0, int l1, int c1) { return {{"start", pos(l0, c0)}, {"end", pos(l1, c1)}}; }

// The next message from the server; fails the test when none comes in `timeout_ms`.
json next_message(LspClient& client, int timeout_ms = 5000) {
  std::optional<json> m = client.receive(timeout_ms);
  REQUIRE_MESSAGE(m.has_value(), "the server sent nothing within " << timeout_ms << " ms");
  return *m;
}

// A JSON-RPC error with no id (the server could not tell which request it was).
void check_parse_error(LspClient& client) {
  json m = next_message(client);
  CHECK(m["error"]["code"] == -32700);
  CHECK(m["id"].is_null());
}

std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string request_text(int id, const std::string& method, const json& params) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

// The error code of the answer to request `id`, which must come next.
json answer(LspClient& client, int id) {
  json m = next_message(client);
  CHECK(m["id"] == id);
  return m;
}

// Initializes the session; returns the server's capabilities.
json initialize_capabilities(LspClient& client) {
  client.request(1, "initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}});
  json init = client.response(1);
  json caps = init["result"]["capabilities"];
  CHECK(caps["textDocumentSync"]["change"] == 2);
  CHECK(caps["textDocumentSync"]["openClose"] == true);
  CHECK(caps["hoverProvider"] == true);
  CHECK(caps["definitionProvider"] == true);
  CHECK(caps["documentSymbolProvider"] == true);
  CHECK(caps["textDocumentSync"]["save"] == true);  // didSave re-diagnoses the files that include the saved one
  client.notify("initialized", json::object());
  return caps;
}

void initialize(LspClient& client) { initialize_capabilities(client); }

}  // namespace

TEST_SUITE("lsp") {
  TEST_CASE("file URIs and paths") {
    CHECK(kdt::uri_from_path("/tmp/a b/k#1.kd") == "file:///tmp/a%20b/k%231.kd");
    CHECK(kdt::path_from_uri("file:///tmp/a%20b/k%231.kd") == "/tmp/a b/k#1.kd");
    CHECK(kdt::path_from_uri("file://localhost/tmp/x.kd") == "/tmp/x.kd");
    CHECK(kdt::path_from_uri("untitled:Untitled-1") == "untitled:Untitled-1");
  }

  TEST_CASE("a session: diagnostics, incremental fix, hover, definition, errors, shutdown") {
    kdt::test::TempDir tmp;
    kdt::test::write_text(tmp.file("lib.kd"), "const W = 4;\n");
    // Only the include is on disk: the main document is an unsaved buffer.
    std::string path = tmp.file("main file.kd");
    std::string uri = kdt::uri_from_path(path);
    std::string lib_uri = kdt::uri_from_path(tmp.file("lib.kd"));
    std::string text =
        "include \"lib.kd\";\n"                                      // 0
        "kernel k(x: inout f32[W] @global) grid(1) {\n"              // 1
        "    let a = x * 2.0;\n"                                     // 2
        "    let a = x;\n"                                           // 3
        "    /* \xc3\xa9\xf0\x9f\x98\x80 */ x[...] = a * yy;\n"      // 4: é is 1 UTF-16 unit, the emoji 2
        "}\n";

    LspClient client;
    initialize(client);
    client.notify("textDocument/didOpen",
                  {{"textDocument", {{"uri", uri}, {"languageId", "kd"}, {"version", 1}, {"text", text}}}});
    json published = client.diagnostics_for(uri);
    CHECK(published["version"] == 1);
    json diags = published["diagnostics"];
    json redefinition;
    json undefined;
    for (const json& d : diags) {
      CHECK(d["source"] == "kdt");
      if (d["code"] == "redefinition") redefinition = d;
      if (d["code"] == "undefined-name") undefined = d;
    }
    REQUIRE(!undefined.is_null());
    CHECK(undefined["range"] == range(4, 27, 4, 29));
    CHECK(undefined["severity"] == 1);
    CHECK(undefined["message"] == "use of undeclared name `yy`");
    REQUIRE(!redefinition.is_null());
    CHECK(redefinition["range"] == range(3, 8, 3, 9));
    CHECK(redefinition["severity"] == 1);
    REQUIRE(redefinition["relatedInformation"].size() == 1);
    CHECK(redefinition["relatedInformation"][0]["location"]["uri"] == uri);
    CHECK(redefinition["relatedInformation"][0]["location"]["range"] == range(2, 8, 2, 9));

    // Incremental changes, applied in order: `yy` -> `x`, then line 3 removed.
    client.notify("textDocument/didChange",
                  {{"textDocument", {{"uri", uri}, {"version", 2}}},
                   {"contentChanges",
                    {{{"range", range(4, 27, 4, 29)}, {"text", "x"}}, {{"range", range(3, 0, 4, 0)}, {"text", ""}}}}});
    json fixed = client.diagnostics_for(uri);
    CHECK(fixed["version"] == 2);
    CHECK(fixed["diagnostics"] == json::array());

    // Hover: `a` in `x[...] = a * x` (now line 3), after the emoji.
    client.request(2, "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", pos(3, 23)}});
    json hover = client.response(2)["result"];
    REQUIRE(hover.is_object());
    std::string value = hover["contents"]["value"];
    CHECK(value.find("let a: f32[4]") != std::string::npos);
    CHECK(value.find("[4]") != std::string::npos);
    CHECK(hover["range"] == range(3, 23, 3, 24));
    // On the declaring name of a const from the include, through a use.
    client.request(3, "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", pos(1, 22)}});
    std::string const_hover = client.response(3)["result"]["contents"]["value"];
    CHECK(const_hover.find("const W = 4") != std::string::npos);

    // Definition: `a` -> its `let`; `W` -> lib.kd.
    client.request(4, "textDocument/definition", {{"textDocument", {{"uri", uri}}}, {"position", pos(3, 23)}});
    json def = client.response(4)["result"];
    CHECK(def["uri"] == uri);
    CHECK(def["range"] == range(2, 8, 2, 9));
    client.request(5, "textDocument/definition", {{"textDocument", {{"uri", uri}}}, {"position", pos(1, 22)}});
    json def_w = client.response(5)["result"];
    CHECK(def_w["uri"] == lib_uri);
    CHECK(def_w["range"] == range(0, 6, 0, 7));
    // Nothing under the cursor: null.
    client.request(6, "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", pos(0, 0)}});
    CHECK(client.response(6)["result"].is_null());

    // A full-text change brings an error back; closing clears it.
    client.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 3}}},
                                             {"contentChanges", {{{"text", "kernel k( {\n"}}}}});
    json broken = client.diagnostics_for(uri);
    CHECK(!broken["diagnostics"].empty());
    client.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
    CHECK(client.diagnostics_for(uri)["diagnostics"] == json::array());

    // Malformed frames and messages get JSON-RPC errors; the server goes on.
    client.send_raw("Content-Length: nope\r\n\r\n");
    json bad_header = *client.receive();
    CHECK(bad_header["error"]["code"] == -32700);
    CHECK(bad_header["id"].is_null());
    client.send_raw("Content-Length: 9\r\n\r\n{\"a\": [1,");
    CHECK((*client.receive())["error"]["code"] == -32700);
    client.send_raw("Content-Length: 7\r\n\r\n[1,2,3]");
    CHECK((*client.receive())["error"]["code"] == -32600);
    client.send({{"jsonrpc", "2.0"}, {"id", 7}});
    json no_method = client.response(7);
    CHECK(no_method["error"]["code"] == -32600);
    client.request(8, "kdt/noSuchMethod", json::object());
    json unknown = client.response(8);
    CHECK(unknown["error"]["code"] == -32601);
    client.request(9, "textDocument/hover", {{"textDocument", 42}});
    CHECK(client.response(9)["error"]["code"] == -32602);
    // An unknown notification is ignored: the next answer is to the next request.
    client.notify("kdt/noSuchNotification", json::object());
    client.request(10, "shutdown", nullptr);
    json shutdown = *client.receive();
    CHECK(shutdown["id"] == 10);
    CHECK(shutdown["result"].is_null());
    client.notify("exit", nullptr);
    CHECK(client.wait_exit() == 0);
  }

  // Issue 21, item 3: the document's outline.
  TEST_CASE("documentSymbol: kernels with their scratch and semaphores, functions, constants, types") {
    kdt::test::TempDir tmp;
    std::string uri = kdt::uri_from_path(tmp.file("s.kd"));
    std::string text =
        "const N = 8;\n"                                                  // 0
        "type T = f32;\n"                                                 // 1
        "fn twice(v: T[N]) -> T[N] { return v * 2.0; }\n"                 // 2
        "kernel k(x: in T[N] @global, y: out T[N] @global) grid(1) {\n"   // 3
        "    scratch buf: T[N] @shared;\n"                                // 4
        "    sem s: dma;\n"                                               // 5
        "    dma_start(x, buf, s);\n"
        "    dma_wait(s, buf);\n"
        "    y[...] = twice(buf);\n"
        "}\n";
    LspClient client;
    initialize(client);
    client.notify("textDocument/didOpen",
                  {{"textDocument", {{"uri", uri}, {"languageId", "kd"}, {"version", 1}, {"text", text}}}});
    CHECK(client.diagnostics_for(uri)["diagnostics"] == json::array());
    client.request(2, "textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}});
    json symbols = client.response(2)["result"];
    REQUIRE(symbols.size() == 4);
    CHECK(symbols[0]["name"] == "N");
    CHECK(symbols[0]["kind"] == 14);  // Constant
    CHECK(symbols[0]["selectionRange"] == range(0, 6, 0, 7));
    CHECK(symbols[1]["name"] == "T");
    CHECK(symbols[2]["name"] == "twice");
    CHECK(symbols[2]["kind"] == 12);  // Function
    CHECK(symbols[2]["detail"] == "fn");
    const json& k = symbols[3];
    CHECK(k["name"] == "k");
    CHECK(k["detail"] == "kernel");
    CHECK(k["range"]["start"] == pos(3, 0));
    CHECK(k["range"]["end"] == pos(9, 1));
    REQUIRE(k["children"].size() == 2);
    CHECK(k["children"][0]["name"] == "buf");
    CHECK(k["children"][0]["detail"] == "scratch @shared");
    CHECK(k["children"][0]["selectionRange"] == range(4, 12, 4, 15));
    CHECK(k["children"][1]["name"] == "s");
    CHECK(k["children"][1]["detail"] == "sem dma");
    // Hover on a semaphore's use says what it is (it was `sem s: ()`).
    client.request(4, "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", pos(7, 13)}});
    std::string sem_hover = client.response(4)["result"]["contents"]["value"];
    CHECK_MESSAGE(sem_hover.find("sem s: dma") != std::string::npos, sem_hover);
    CHECK(sem_hover.find("DMA semaphore") != std::string::npos);
    CHECK(sem_hover.find("()") == std::string::npos);
    client.request(3, "shutdown", nullptr);
    client.response(3);
    client.notify("exit", nullptr);
    CHECK(client.wait_exit() == 0);
  }

  // Issue 21, item 3: an open file that includes a saved one is checked again.
  TEST_CASE("saving an included file re-diagnoses the open files that include it") {
    kdt::test::TempDir tmp;
    const std::string lib = tmp.file("lib.kd");
    kdt::test::write_text(lib, "const V = 4;\n");  // no W yet
    std::string main_uri = kdt::uri_from_path(tmp.file("main.kd"));
    std::string lib_uri = kdt::uri_from_path(lib);
    LspClient client;
    initialize(client);
    client.notify("textDocument/didOpen",
                  {{"textDocument", {{"uri", main_uri}, {"languageId", "kd"}, {"version", 1},
                                     {"text", "include \"lib.kd\";\nkernel k(x: inout f32[W] @global) grid(1) { x[...] = x * 2.0; }\n"}}}});
    json before = client.diagnostics_for(main_uri)["diagnostics"];
    REQUIRE(before.size() >= 1);
    CHECK(before[0]["code"] == "undefined-name");
    // The library is edited in the editor and saved: W now exists.
    std::string fixed = "const V = 4;\nconst W = 4;\n";
    client.notify("textDocument/didOpen",
                  {{"textDocument", {{"uri", lib_uri}, {"languageId", "kd"}, {"version", 1}, {"text", "const V = 4;\n"}}}});
    client.diagnostics_for(lib_uri);
    client.notify("textDocument/didChange",
                  {{"textDocument", {{"uri", lib_uri}, {"version", 2}}}, {"contentChanges", {{{"text", fixed}}}}});
    client.diagnostics_for(lib_uri);
    kdt::test::write_text(lib, fixed);
    client.notify("textDocument/didSave", {{"textDocument", {{"uri", lib_uri}}}});
    json after = client.diagnostics_for(main_uri);
    CHECK(after["diagnostics"] == json::array());
    CHECK(after["version"] == 1);
    client.request(2, "shutdown", nullptr);
    client.response(2);
    client.notify("exit", nullptr);
    CHECK(client.wait_exit() == 0);
  }

  TEST_CASE("the static DMA-protocol checks report while the file is typed") {
    kdt::test::TempDir tmp;
    std::string uri = kdt::uri_from_path(tmp.file("dma.kd"));
    std::string text =
        "kernel k(x: in f32[8] @global, y: out f32[8] @global) grid(1) {\n"  // 0
        "    sem copied: dma;\n"                                              // 1
        "    dma_start(x, y, copied);\n"                                      // 2
        "}\n";
    LspClient client;
    initialize(client);
    client.notify("textDocument/didOpen",
                  {{"textDocument", {{"uri", uri}, {"languageId", "kd"}, {"version", 1}, {"text", text}}}});
    json diags = client.diagnostics_for(uri)["diagnostics"];
    REQUIRE(diags.size() == 1);
    CHECK(diags[0]["code"] == "dma-protocol");
    CHECK(diags[0]["range"] == range(2, 4, 2, 28));  // the statement, `;` included
    CHECK(diags[0]["message"].get<std::string>().find("never retired") != std::string::npos);
    // The user types the wait: the error goes.
    client.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                             {"contentChanges", {{{"range", range(3, 0, 3, 0)},
                                                                  {"text", "    dma_wait(copied, y);\n"}}}}});
    json fixed = client.diagnostics_for(uri);
    CHECK(fixed["version"] == 2);
    CHECK(fixed["diagnostics"] == json::array());
    client.request(2, "shutdown", nullptr);
    CHECK(client.response(2)["result"].is_null());
    client.notify("exit", nullptr);
    CHECK(client.wait_exit() == 0);
  }

  TEST_CASE("code actions from fix-its, completion, pull diagnostics (issue 21)") {
    kdt::test::TempDir tmp;
    std::string uri = kdt::uri_from_path(tmp.file("fix.kd"));
    std::string text =
        "const BLOCK = 8;\n"                                                     // 0
        "kernel k(x: in f32[BLOCK] @global, y: out f32[BLOCK] @global) grid(1) {\n"  // 1
        "    sem copied: dma;\n"                                                 // 2
        "    dma_start(x, y, copied);\n"                                         // 3
        "}\n";
    LspClient client;
    json caps = initialize_capabilities(client);
    CHECK(caps["codeActionProvider"]["codeActionKinds"] == json::array({"quickfix"}));
    CHECK(caps.contains("completionProvider"));
    CHECK(caps["diagnosticProvider"]["workspaceDiagnostics"] == false);
    client.notify("textDocument/didOpen",
                  {{"textDocument", {{"uri", uri}, {"languageId", "kd"}, {"version", 1}, {"text", text}}}});
    json published = client.diagnostics_for(uri)["diagnostics"];
    REQUIRE(published.size() == 1);
    // The quick fix on the diagnostic's line: insert the wait before the kernel's `}`.
    client.request(2, "textDocument/codeAction",
                   {{"textDocument", {{"uri", uri}}}, {"range", range(3, 4, 3, 4)}, {"context", {{"diagnostics", published}}}});
    json actions = client.response(2)["result"];
    REQUIRE(actions.size() == 1);
    CHECK(actions[0]["kind"] == "quickfix");
    CHECK(actions[0]["title"] == "Insert `dma_wait(copied, y)` (kdt: dma-protocol)");
    CHECK(actions[0]["diagnostics"][0] == published[0]);
    json edits = actions[0]["edit"]["changes"][uri];
    REQUIRE(edits.size() == 1);
    CHECK(edits[0]["range"] == range(4, 0, 4, 0));
    CHECK(edits[0]["newText"] == "    dma_wait(copied, y);\n");
    // No fix on other lines.
    client.request(3, "textDocument/codeAction",
                   {{"textDocument", {{"uri", uri}}}, {"range", range(0, 0, 0, 3)}, {"context", {{"diagnostics", json::array()}}}});
    CHECK(client.response(3)["result"] == json::array());
    // Pull diagnostics give what was published.
    client.request(4, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
    json pulled = client.response(4)["result"];
    CHECK(pulled["kind"] == "full");
    CHECK(pulled["items"] == published);
    // Completion: keywords, dtypes, built-ins and the document's own names.
    client.request(5, "textDocument/completion", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 3}, {"character", 4}}}});
    json items = client.response(5)["result"];
    auto has = [&](const std::string& label, int kind) {
      for (const json& i : items) {
        if (i["label"] == label) return i["kind"] == kind;
      }
      return false;
    };
    CHECK(has("dma_wait", 3));
    CHECK(has("program_id", 3));
    CHECK(has("bf16", 25));
    CHECK(has("kernel", 14));
    CHECK(has("@shared", 20));
    CHECK(has("BLOCK", 21));
    CHECK(has("k", 3));
    // The fix applied: nothing left to fix.
    client.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                             {"contentChanges", {{{"range", edits[0]["range"]}, {"text", edits[0]["newText"]}}}}});
    CHECK(client.diagnostics_for(uri)["diagnostics"] == json::array());
    client.request(6, "shutdown", nullptr);
    client.response(6);
    client.notify("exit", nullptr);
    CHECK(client.wait_exit() == 0);
  }

  TEST_CASE("framing: a wrong Content-Length or garbage loses one message, not the session") {
    LspClient client;
    initialize(client);
    // Too short: the body's tail stays in the stream, glued to the next header.
    std::string hover =
        request_text(2, "textDocument/hover", {{"textDocument", {{"uri", "file:///x.kd"}}}, {"position", pos(0, 0)}});
    client.send_raw("Content-Length: 10\r\n\r\n" + hover);
    check_parse_error(client);
    client.send_raw(frame(request_text(3, "kdt/noSuchMethod", json::object())));
    CHECK(answer(client, 3)["error"]["code"] == -32601);
    // Too short again, the tail with a newline in it, then two requests at once.
    client.send_raw("Content-Length: 4\r\n\r\n{\"jsonrpc\":\n\"2.0\"}\r\n" + frame(request_text(4, "kdt/x", nullptr)) +
                    frame(request_text(5, "kdt/y", nullptr)));
    check_parse_error(client);
    CHECK(answer(client, 4)["error"]["code"] == -32601);
    CHECK(answer(client, 5)["error"]["code"] == -32601);
    // Too long: the body swallows the start of the next message, which is read again.
    std::string swallowed = request_text(6, "kdt/z", nullptr);
    client.send_raw("Content-Length: " + std::to_string(swallowed.size() + 30) + "\r\n\r\n" + swallowed +
                    frame(request_text(7, "kdt/w", nullptr)));
    check_parse_error(client);
    CHECK(answer(client, 7)["error"]["code"] == -32601);
    // A body that is not JSON, then a request.
    client.send_raw("Content-Length: 5\r\n\r\nhello");
    check_parse_error(client);
    client.send_raw(frame(request_text(8, "kdt/v", nullptr)));
    CHECK(answer(client, 8)["error"]["code"] == -32601);
    // Lines that are not headers: reported once, at the blank line or with the next message.
    client.send_raw("this is not a header\r\n\r\n");
    check_parse_error(client);
    client.send_raw(frame(request_text(9, "kdt/u", nullptr)));
    CHECK(answer(client, 9)["error"]["code"] == -32601);
    client.send_raw("junk" + frame(request_text(10, "kdt/t", nullptr)));
    check_parse_error(client);
    CHECK(answer(client, 10)["error"]["code"] == -32601);
    // A line longer than any header, without a newline, then a message glued to it.
    client.send_raw(std::string(20000, 'x') + frame(request_text(11, "kdt/s", nullptr)));
    check_parse_error(client);
    CHECK(answer(client, 11)["error"]["code"] == -32601);
    // A header the server cannot use, then its body, then a request.
    client.send_raw("Content-Type: application/vscode-jsonrpc\r\n\r\n{\"jsonrpc\": \"2.0\"}\r\n");
    check_parse_error(client);
    client.send_raw(frame(request_text(12, "shutdown", nullptr)));
    CHECK(answer(client, 12)["result"].is_null());
    client.notify("exit", nullptr);
    CHECK(client.wait_exit() == 0);
  }

  TEST_CASE("malformed requests get JSON-RPC errors; bad parameters get -32602, never a guess") {
    kdt::test::TempDir tmp;
    std::string uri = kdt::uri_from_path(tmp.file("k.kd"));
    LspClient client;
    initialize(client);
    client.notify("textDocument/didOpen",
                  {{"textDocument",
                    {{"uri", uri},
                     {"languageId", "kd"},
                     {"version", 1},
                     {"text", "kernel k(x: inout f32[4] @global) grid(1) {\n    x[...] = x * 2.0;\n}\n"}}}});
    CHECK(client.diagnostics_for(uri)["diagnostics"] == json::array());
    json td = {{"uri", uri}};
    int id = 100;
    auto expect_invalid = [&](const std::string& method, const json& params) {
      client.request(++id, method, params);
      json m = answer(client, id);
      CHECK_MESSAGE(m["error"]["code"] == -32602, method << " " << params.dump() << " -> " << m.dump());
    };
    for (const char* method : {"textDocument/hover", "textDocument/definition"}) {
      expect_invalid(method, json::object());
      expect_invalid(method, nullptr);
      expect_invalid(method, json::array());
      expect_invalid(method, {{"textDocument", td}});
      expect_invalid(method, {{"textDocument", {{"uri", 5}}}, {"position", pos(0, 0)}});
      expect_invalid(method, {{"textDocument", td}, {"position", "0:0"}});
      expect_invalid(method, {{"textDocument", td}, {"position", {{"line", 1}}}});
      expect_invalid(method, {{"textDocument", td}, {"position", {{"line", "1"}, {"character", 0}}}});
      // Not integers, or out of LSP's uinteger range: never converted.
      for (const json& bad : {json(1e300), json(1.5), json(1.0), json(-1), json(2147483648LL), json(-1e300),
                              json(18446744073709551615ULL), json(true), json(nullptr)}) {
        expect_invalid(method, {{"textDocument", td}, {"position", {{"line", bad}, {"character", 0}}}});
        expect_invalid(method, {{"textDocument", td}, {"position", {{"line", 1}, {"character", bad}}}});
      }
      // The same for a document that is not open: the parameters are checked first.
      expect_invalid(method, {{"textDocument", {{"uri", "file:///not/open.kd"}}},
                              {"position", {{"line", 1.5}, {"character", 0}}}});
      expect_invalid(method, {{"textDocument", {{"uri", "file:///not/open.kd"}}}});
    }
    // In range, past the end of the document: nothing there.
    client.request(++id, "textDocument/hover", {{"textDocument", td}, {"position", pos(2147483647, 2147483647)}});
    CHECK(answer(client, id)["result"].is_null());
    client.request(++id, "textDocument/hover",
                   {{"textDocument", {{"uri", "file:///not/open.kd"}}}, {"position", pos(0, 0)}});
    CHECK(answer(client, id)["result"].is_null());
    // Hover on `x` still works.
    client.request(++id, "textDocument/hover", {{"textDocument", td}, {"position", pos(1, 4)}});
    CHECK(answer(client, id)["result"]["contents"]["value"].get<std::string>().find("param x") != std::string::npos);

    // Requests that are not JSON-RPC: -32600; unknown methods: -32601.
    client.send({{"jsonrpc", "2.0"}, {"id", ++id}, {"method", "textDocument/hover"}, {"params", 5}});
    CHECK(answer(client, id)["error"]["code"] == -32600);
    client.send({{"jsonrpc", "1.0"}, {"id", ++id}, {"method", "shutdown"}});
    CHECK(answer(client, id)["error"]["code"] == -32600);
    client.send({{"jsonrpc", "2.0"}, {"id", ++id}, {"method", 5}});
    CHECK(answer(client, id)["error"]["code"] == -32600);
    client.send({{"jsonrpc", "2.0"}, {"id", 1.5}, {"method", "shutdown"}});
    json bad_id = next_message(client);
    CHECK(bad_id["error"]["code"] == -32600);
    CHECK(bad_id["id"].is_null());
    client.request(++id, "$/kdt/unknown", json::object());
    CHECK(answer(client, id)["error"]["code"] == -32601);

    // A notification is never answered: an unknown one is ignored, a bad
    // one is logged and changes nothing.
    client.notify("kdt/noSuchNotification", {{"line", 1e300}});
    client.notify("$/setTrace", {{"value", "off"}});
    client.notify(
        "textDocument/didChange",
        {{"textDocument", {{"uri", uri}, {"version", 2}}},
         {"contentChanges",
          {{{"range", range(0, 0, 0, 0)}, {"text", "x"}},
           {{"range", {{"start", {{"line", 1e300}, {"character", 0}}}, {"end", pos(0, 0)}}}, {"text", "y"}}}}});
    json log = next_message(client);
    CHECK(log["method"] == "window/logMessage");
    CHECK(log["params"]["type"] == 1);
    CHECK(log["params"]["message"].get<std::string>().find("contentChanges[1].range.start.line") != std::string::npos);
    client.notify("textDocument/didChange",
                  {{"textDocument", {{"uri", uri}, {"version", 2.5}}}, {"contentChanges", {{{"text", "garbage"}}}}});
    CHECK(next_message(client)["method"] == "window/logMessage");
    client.notify("textDocument/didOpen",
                  {{"textDocument", {{"uri", "file:///other.kd"}, {"version", 1e300}, {"text", ""}}}});
    CHECK(next_message(client)["method"] == "window/logMessage");
    // The document is as it was: no change applied, `x` still at (1, 4).
    client.request(++id, "textDocument/hover", {{"textDocument", td}, {"position", pos(1, 4)}});
    CHECK(answer(client, id)["result"]["contents"]["value"].get<std::string>().find("param x") != std::string::npos);
    client.request(++id, "textDocument/hover",
                   {{"textDocument", {{"uri", "file:///other.kd"}}}, {"position", pos(0, 0)}});
    CHECK(answer(client, id)["result"].is_null());
    client.request(++id, "shutdown", nullptr);
    CHECK(answer(client, id)["result"].is_null());
    client.notify("exit", nullptr);
    CHECK(client.wait_exit() == 0);
  }

  TEST_CASE("kdt lsp --help prints the usage and exits 0") {
    for (const char* flag : {"--help", "-h"}) {
      kdt::test::RunResult r = kdt::test::run_kdt(std::string("lsp ") + flag);
      CHECK(r.status == 0);
      CHECK(r.out.find("Usage: kdt lsp") != std::string::npos);
      CHECK(r.out.find("--max-nesting=N") != std::string::npos);
      CHECK(r.err.empty());
    }
    kdt::test::RunResult bad = kdt::test::run_kdt("lsp --no-such-flag");
    CHECK(bad.status == 2);
    CHECK(bad.err.find("kdt lsp --help") != std::string::npos);
  }

  TEST_CASE("exit without shutdown, requests before initialize, end of input") {
    {
      LspClient client;
      client.request(1, "textDocument/hover", json::object());
      CHECK(client.response(1)["error"]["code"] == -32002);
      client.notify("exit", nullptr);
      CHECK(client.wait_exit() == 1);
    }
    {
      LspClient client;
      initialize(client);
      client.request(2, "shutdown", nullptr);
      client.response(2);
      client.close_input();
      CHECK(client.wait_exit() == 0);
    }
    {
      LspClient client;
      client.send_raw("garbage without a header end");
      client.close_input();
      CHECK(client.wait_exit() == 1);
    }
  }
}
