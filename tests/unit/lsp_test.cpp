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

void initialize(LspClient& client) {
  client.request(1, "initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}});
  json init = client.response(1);
  json caps = init["result"]["capabilities"];
  CHECK(caps["textDocumentSync"]["change"] == 2);
  CHECK(caps["textDocumentSync"]["openClose"] == true);
  CHECK(caps["hoverProvider"] == true);
  CHECK(caps["definitionProvider"] == true);
  client.notify("initialized", json::object());
}

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
