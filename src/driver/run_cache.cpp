// Trust rules as OpenSSH's StrictModes and ccache apply them: a file that
// kdt runs must be one that only the current user (or root, above the
// cache) could have put there.
#include "driver/run_cache.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "kdt/runtime/kdt_runtime.h"

namespace kdt {

namespace fs = std::filesystem;

namespace {

std::string mode_text(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// A group that holds the current user alone (Debian's user private groups):
// its write permission gives nobody else anything.
bool private_group(gid_t gid) {
  if (gid != ::getegid()) return false;
  std::vector<char> buffer(16384);
  struct group g;
  struct group* found = nullptr;
  if (::getgrgid_r(gid, &g, buffer.data(), buffer.size(), &found) != 0 || !found) return false;
  struct passwd pw;
  struct passwd* me = nullptr;
  std::vector<char> pw_buffer(16384);
  if (::getpwuid_r(::geteuid(), &pw, pw_buffer.data(), pw_buffer.size(), &me) != 0 || !me) return false;
  for (char** member = g.gr_mem; member && *member; ++member) {
    if (std::strcmp(*member, me->pw_name) != 0) return false;
  }
  return true;
}

bool read_file(const std::string& path, std::string& out, size_t limit = SIZE_MAX) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  if (limit == SIZE_MAX) {
    s << in.rdbuf();
  } else {
    std::vector<char> buffer(limit);
    in.read(buffer.data(), static_cast<std::streamsize>(limit));
    s.write(buffer.data(), in.gcount());
  }
  out = s.str();
  return !in.bad();
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Writes DIR/NAME through a temporary file and a rename; "" or the error.
std::string write_atomically(const std::string& dir, const std::string& name, const std::string& content,
                             mode_t mode) {
  std::string templ = dir + "/." + name + ".XXXXXX";
  std::vector<char> tmp(templ.begin(), templ.end());
  tmp.push_back('\0');
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return std::strerror(errno);
  bool ok = write_all(fd, content.data(), content.size()) && ::fchmod(fd, mode) == 0;
  int saved = errno;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.data(), (dir + "/" + name).c_str()) != 0) {
    if (ok) saved = errno;
    ::unlink(tmp.data());
    return std::strerror(saved ? saved : EIO);
  }
  return "";
}

// Creates `path` and the directories above it that are missing, each with
// mode 0700; 0 or the errno of the failure.
int make_private_dirs(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return 0;
  if (path.has_parent_path() && path.parent_path() != path) {
    if (int e = make_private_dirs(path.parent_path())) return e;
  }
  if (::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) return 0;
  return errno;
}

std::string sum_text(const std::string& check, const std::string& binary) {
  return "kdt-cache-entry 1\ncheck " + check + "\nsize " + std::to_string(binary.size()) + "\nfnv1a64 " +
         hex64(kdt_rt::fnv1a64(binary.data(), binary.size())) + "\n";
}

}  // namespace

std::string hex64(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string foreign_writable(const std::string& path, bool above_cache) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return std::string("it cannot be examined: ") + std::strerror(errno);
  uid_t me = ::geteuid();
  if (st.st_uid != me && !(above_cache && st.st_uid == 0)) {
    return "it is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " + std::to_string(me) + ")";
  }
  bool sticky = above_cache && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX);
  if ((st.st_mode & S_IWOTH) && !sticky) return "every user can write it (mode " + mode_text(st.st_mode) + ")";
  if ((st.st_mode & S_IWGRP) && !sticky && !private_group(st.st_gid)) {
    return "group " + std::to_string(st.st_gid) + " can write it (mode " + mode_text(st.st_mode) + ")";
  }
  return "";
}

bool open_cache(CacheDir& cache, std::string& error) {
  cache = CacheDir{};
  fs::path root;
  if (const char* dir = std::getenv("KDT_CACHE_DIR"); dir && *dir) {
    root = dir;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    root = fs::path(xdg) / "kdt";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    root = fs::path(home) / ".cache" / "kdt";
  } else {
    // No home: one directory per user in the temporary directory, never a
    // shared one that another user could have created first.
    std::error_code ec;
    fs::path tmp = fs::temp_directory_path(ec);
    if (ec) tmp = "/tmp";
    root = tmp / ("kdt-cache-" + std::to_string(::geteuid()));
  }
  bool shared_tmp = false;
  if (!std::getenv("KDT_CACHE_DIR") || !*std::getenv("KDT_CACHE_DIR")) {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    shared_tmp = !(xdg && *xdg) && !(home && *home);
  }
  struct stat link;
  if (shared_tmp && ::lstat(root.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    // In a directory everyone can write, the name is not ours until proven.
    error = "refusing to use the cache directory " + root.string() +
            ": it is a symbolic link, which another user could have planted; remove it or set KDT_CACHE_DIR";
    return false;
  }
  if (int e = make_private_dirs(root)) {
    cache.note = "cannot create the cache directory " + root.string() + ": " + std::strerror(e) +
                 "; the kernel is compiled for this run only";
    return true;
  }
  char real[PATH_MAX];
  if (!::realpath(root.c_str(), real)) {
    cache.note = "cannot use the cache directory " + root.string() + ": " + std::strerror(errno) +
                 "; the kernel is compiled for this run only";
    return true;
  }
  std::string canonical = real;
  std::string reason = foreign_writable(canonical, false);
  std::string where = canonical;
  for (fs::path p = fs::path(canonical).parent_path(); reason.empty(); p = p.parent_path()) {
    reason = foreign_writable(p.string(), true);
    where = p.string();
    if (p == p.root_path() || p.empty()) break;
  }
  if (!reason.empty()) {
    error = "refusing to use the cache directory " + root.string() + (where != canonical ? " (" + where + " above it)" : "") +
            ": " + reason + ", so another user could plant a binary there for `kdt run` to execute; make it "
            "yours and not writable by others (chmod go-w), or set KDT_CACHE_DIR to a directory of your own";
    return false;
  }
  cache.root = canonical;
  return true;
}

// The sum of an entry: over every byte of the `hashed` files, and the size
// of each `sized` one (large files only a compiler reads, never run);
// nullopt when one of them cannot be read.
std::optional<std::string> files_sum(const std::string& check, const std::string& dir,
                                     const std::vector<std::string>& hashed, const std::vector<std::string>& sized) {
  std::string all, content;
  for (const std::string& name : hashed) {
    if (!read_file(dir + "/" + name, content)) return std::nullopt;
    all += content;
  }
  std::string sum = sum_text(check, all);
  for (const std::string& name : sized) {
    struct stat st;
    if (::stat((dir + "/" + name).c_str(), &st) != 0) return std::nullopt;
    sum += "file " + name + " size " + std::to_string(st.st_size) + "\n";
  }
  return sum;
}

bool find_files(const CacheDir& cache, const std::string& key, const std::string& check,
                const std::vector<std::string>& hashed, const std::vector<std::string>& sized,
                const std::string& sum_name, std::string& dir, std::string& error) {
  dir.clear();
  if (cache.root.empty()) return true;
  const std::string at = cache.root + "/" + key;
  struct stat st;
  if (::lstat(at.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return true;
  std::vector<std::string> paths = {at, at + "/" + sum_name};
  for (const std::vector<std::string>* names : {&hashed, &sized}) {
    for (const std::string& name : *names) paths.push_back(at + "/" + name);
  }
  for (const std::string& path : paths) {
    if (::lstat(path.c_str(), &st) != 0) return true;  // incomplete: rebuilt
    if (path != at && !S_ISREG(st.st_mode)) return true;
    if (std::string reason = foreign_writable(path, false); !reason.empty()) {
      error = "refusing to use the cached files in " + at + ": " + reason +
              "; delete that directory (the cache rebuilds it)";
      return false;
    }
  }
  std::string sum;
  if (!read_file(at + "/" + sum_name, sum, 4096)) return true;
  // A truncated, emptied or otherwise changed file fails here and is rebuilt.
  if (sum != files_sum(check, at, hashed, sized)) return true;
  dir = at;
  return true;
}

std::string store_files(const CacheDir& cache, const std::string& key, const std::string& check,
                        const std::string& from_dir, const std::vector<std::string>& hashed,
                        const std::vector<std::string>& sized, const std::string& sum_name, std::string& error) {
  if (cache.root.empty()) return "";
  std::string dir = cache.root + "/" + key;
  struct stat st;
  if (::lstat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) ::unlink(dir.c_str());
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    error = std::strerror(errno);
    return "";
  }
  if (std::string reason = foreign_writable(dir, false); !reason.empty()) {
    error = dir + ": " + reason;
    return "";
  }
  // Until the new sum is in place, readers see no entry and rebuild.
  ::unlink((dir + "/" + sum_name).c_str());
  std::string content, failure;
  for (const std::vector<std::string>* names : {&hashed, &sized}) {
    for (const std::string& name : *names) {
      if (!read_file(from_dir + "/" + name, content)) {
        error = "cannot read " + from_dir + "/" + name;
        return "";
      }
      if (failure.empty()) failure = write_atomically(dir, name, content, 0700);
    }
  }
  if (failure.empty()) {
    const std::optional<std::string> sum = files_sum(check, dir, hashed, sized);
    failure = sum ? write_atomically(dir, sum_name, *sum, 0600) : "cannot read back " + dir;
  }
  if (!failure.empty()) {
    error = failure;
    return "";
  }
  return dir;
}

bool find_entry(const CacheDir& cache, const std::string& key, const std::string& check, std::string& binary,
                std::string& error) {
  std::string dir;
  if (!find_files(cache, key, check, {"kernel"}, {}, "kernel.sum", dir, error)) return false;
  binary = dir.empty() ? "" : dir + "/kernel";
  return true;
}

std::string store_entry(const CacheDir& cache, const std::string& key, const std::string& check,
                        const std::string& built, const std::string& source, std::string& error) {
  if (cache.root.empty()) return "";
  const fs::path from(built);
  std::string dir = store_files(cache, key, check, from.parent_path().string(), {from.filename().string()}, {},
                                "kernel.sum", error);
  if (dir.empty()) return "";
  // For people: the source the binary was compiled from.
  if (std::string failure = write_atomically(dir, "kernel.cpp", source, 0600); !failure.empty()) {
    error = failure;
    return "";
  }
  return dir + "/kernel";
}

}  // namespace kdt
