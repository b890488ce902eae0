#include "kdt/driver/output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "driver/signals.h"

namespace kdt {

namespace fs = std::filesystem;

namespace {

std::string errno_message() { return std::strerror(errno); }

bool write_all(int fd, const std::string& content) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string escape_make(const std::string& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == ' ') {
      // GCC doubles the backslashes that precede a space, then escapes it.
      for (size_t j = i; j > 0 && path[j - 1] == '\\'; --j) out += '\\';
      out += "\\ ";
    } else if (c == '$') {
      out += "$$";
    } else if (c == '#') {
      out += "\\#";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string write_output(const std::string& path, const std::string& content) {
  if (path == "-") {
    std::cout << content;
    std::cout.flush();
    return std::cout ? "" : "cannot write to standard output";
  }
  struct stat st {};
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return "cannot write '" + path + "': it is a directory";
    // A device or a pipe: write in place, never replace it.
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return "cannot open '" + path + "': " + errno_message();
    bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
    ok = std::fclose(f) == 0 && ok;
    return ok ? "" : "cannot write '" + path + "'";
  }
  if (exists && static_cast<size_t>(st.st_size) == content.size()) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream current;
    current << in.rdbuf();
    if (in && current.str() == content) return "";
  }
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // A signal from the file's creation to the rename removes the temporary
  // file before kdt dies of it: no hidden `.NAME.kdt-XXXXXX` stays behind.
  TempFileGuard guard;
  std::string temp;
  int fd = guard.create((dir / ("." + target.filename().string() + ".kdt-")).string(), temp);
  if (fd < 0) return "cannot create a temporary file next to '" + path + "': " + errno_message();
  bool ok = write_all(fd, content);
  // Keep the permissions a new file would get (it is created 0600).
  mode_t mask = ::umask(0);
  ::umask(mask);
  ok = ::fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~mask)) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    std::string message = "cannot write '" + path + "': " + errno_message();
    std::remove(temp.c_str());
    return message;
  }
  return "";
}

std::string printable(const std::string& text) {
  std::string out;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c == '\\') out += "\\\\";
    else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string depfile_unrepresentable(const std::string& target, const std::vector<std::string>& deps) {
  // Make has no escape for a newline, a carriage return or a tab in a file
  // name: written as they are they would end the rule and start a recipe.
  auto bad = [](const std::string& path) {
    for (char c : path) {
      unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) return true;
    }
    return false;
  };
  if (bad(target)) return target;
  for (const std::string& d : deps) {
    if (bad(d)) return d;
  }
  return "";
}

std::string make_depfile(const std::string& target, const std::vector<std::string>& deps, bool phony_targets,
                         bool first_is_main) {
  std::string out = escape_make(target) + ":";
  for (const std::string& d : deps) out += " \\\n  " + escape_make(d);
  out += "\n";
  if (phony_targets) {
    for (size_t i = first_is_main ? 1 : 0; i < deps.size(); ++i) out += "\n" + escape_make(deps[i]) + ":\n";
  }
  return out;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

}  // namespace kdt
