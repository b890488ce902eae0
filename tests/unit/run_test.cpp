// `kdt run` does not trust its environment (issue 12, items 14-21): the
// compile cache, the outputs, the inputs, the command line, the compiler,
// signals and time, each tested by creating the hostile situation for real.
// Runs use --cxxflags=-O0 and share one cached kernel where they can, so
// that the suite compiles a handful of times in all.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "kdt/runtime/kdt_runtime.h"
#include "test_support.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using kdt::test::read_text;
using kdt::test::RunResult;
using kdt::test::shell_quote;
using kdt::test::TempDir;
using kdt::test::write_text;

// One kernel for (almost) every test: `x` in, `y` = 2x out, scalars of
// three dtypes, and a loop of n*n iterations (n = 100000: 10^10, for the
// timeout and signal tests; n = 0 otherwise).
const char* const kKernel =
    "kernel k(x: in f32[8] @global, n: i32, s: u8, b: bool, y: out f32[8] @global) grid(1) {\n"
    "    var acc = 0.0;\n"
    "    for i in 0..n {\n"
    "        for j in 0..n {\n"
    "            acc = acc + 1.0;\n"
    "        }\n"
    "    }\n"
    "    let t = b ? 1.0 : 0.0;\n"
    "    y[...] = x * 2.0 + acc * 0.0 + f32(s) * t * 0.0;\n"
    "}\n";

const std::vector<float> kX = {1, 2, 3, 4, 5, 6, 7, 8};

std::string q(const std::string& s) { return shell_quote(s); }

// Runs `env ENV kdt ARGS` with a time limit (a regression must not hang
// the suite); stdout and stderr apart.
RunResult kdt_env(const std::string& env, const std::string& args, int limit_s = 300) {
  return kdt::test::run_captured("env " + env + " timeout -s KILL " + std::to_string(limit_s) + " " +
                                 q(kdt::test::kdt_binary()) + " " + args);
}

std::vector<float> read_f32(const std::string& path) {
  kdt_rt::NpyArray a;
  std::string error;
  if (!kdt_rt::npy_read(path, a, error) || a.descr != "<f4") return {};
  std::vector<float> v(a.data.size() / 4);
  std::memcpy(v.data(), a.data.data(), a.data.size());
  return v;
}

std::vector<float> doubled() {
  std::vector<float> y;
  for (float v : kX) y.push_back(2 * v);
  return y;
}

void write_x(const std::string& path) {
  std::string error;
  REQUIRE(kdt_rt::npy_write(path, "<f4", {8}, kX.data(), kX.size() * sizeof(float), error));
}

std::string npy_bytes_of_x() {
  std::string header, error;
  REQUIRE(kdt_rt::npy_header("<f4", {8}, 32, header, error));
  return header + std::string(reinterpret_cast<const char*>(kX.data()), 32);
}

// Writes `bytes` into a FIFO once a reader opens it (polling for at most
// `wait_s` seconds), then keeps it open, a stream that never ends, until
// stop(): the reader must not wait for its end.
class HeldFifoWriter {
 public:
  HeldFifoWriter(const std::string& fifo, const std::string& bytes, int wait_s)
      : thread_([this, fifo, bytes, wait_s] {
          int fd = -1;
          for (int i = 0; i < wait_s * 100 && fd < 0 && !done_; ++i) {
            fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          if (fd < 0) return;
          ssize_t unused = ::write(fd, bytes.data(), bytes.size());
          (void)unused;
          while (!done_) std::this_thread::sleep_for(std::chrono::milliseconds(10));
          ::close(fd);
        }) {}
  ~HeldFifoWriter() { stop(); }
  void stop() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// The files of a directory whose names start with `prefix`.
std::vector<std::string> entries(const fs::path& dir, const std::string& prefix = "") {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  return out;
}

// Processes running `exe` (their /proc/PID/exe).
std::vector<pid_t> running(const std::string& exe) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code link_ec;
    fs::path target = fs::read_symlink(e.path() / "exe", link_ec);
    if (!link_ec && target == exe) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

// Children of `parent` whose command name is `comm`.
std::vector<pid_t> children(pid_t parent, const std::string& comm) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    std::string stat = read_text((e.path() / "stat").string());
    size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && stat.substr(open + 1, close - open - 1) == comm) {
      out.push_back(static_cast<pid_t>(std::stol(stat.substr(0, open))));
    }
  }
  return out;
}

// The cache entries of kernels (the runtime library's are named rt-KEY).
std::vector<std::string> kernel_entries(const fs::path& cache) {
  std::vector<std::string> out;
  for (const std::string& name : entries(cache)) {
    if (name.rfind("rt-", 0) != 0) out.push_back(name);
  }
  return out;
}

// The kernel, its input and a cache holding its binary, built once.
struct Fixture {
  TempDir dir;
  std::string kd, x, cache, key;
  std::string file(const std::string& name) const { return dir.file(name); }
  std::string entry() const { return cache + "/" + key; }
  // `kdt run` of the kernel with fast inputs, into DIR/NAME.
  std::string args(const std::string& out = "out") const {
    return "run " + q(kd) + " --cxxflags=-O0 --output-dir " + q(file(out)) + " --input x=" + q(x) +
           " --input n=0 --input s=1 --input b=true";
  }
};

const Fixture& fixture() {
  static Fixture f;
  static bool built = false;
  if (!built) {
    f.kd = f.file("k.kd");
    write_text(f.kd, kKernel);
    f.x = f.file("x.npy");
    write_x(f.x);
    f.cache = f.file("cache");
    RunResult r = kdt_env("KDT_CACHE_DIR=" + q(f.cache), f.args());
    REQUIRE_MESSAGE(r.status == 0, r.err);
    std::vector<std::string> keys = kernel_entries(f.cache);
    REQUIRE(keys.size() == 1);
    f.key = keys[0];
    REQUIRE(entries(f.cache, "rt-").size() == 1);
    built = true;
  }
  return f;
}

// A copy of the fixture's cache at `to`, owner and modes kept.
void copy_cache(const std::string& to) {
  REQUIRE(std::system(("cp -a " + q(fixture().cache) + " " + q(to)).c_str()) == 0);
}

std::string cache_env(const std::string& cache) { return "KDT_CACHE_DIR=" + q(cache); }

// Runs `script` in a mount namespace of its own (as root, or mapped to root
// in a user namespace): false when this machine does not allow it.
bool mount_namespace_available() {
  const char* probe = ::geteuid() == 0 ? "unshare -m true 2>/dev/null" : "unshare -rm true 2>/dev/null";
  return std::system(probe) == 0;
}
int in_mount_namespace(const std::string& script) {
  std::string cmd = std::string(::geteuid() == 0 ? "unshare -m" : "unshare -rm") + " sh -c " + q(script);
  int raw = std::system(cmd.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

// kdt's argv and environment for a fork/exec of it (signal tests).
pid_t spawn_kdt(const std::vector<std::string>& args, const std::vector<std::string>& env, const std::string& out,
                const std::string& err) {
  std::vector<std::string> envs(env);
  for (char** e = environ; *e; ++e) envs.push_back(*e);
  pid_t pid = ::fork();
  if (pid == 0) {
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = ::open("/dev/null", O_RDONLY);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::dup2(in, 0);
    for (int sig : {SIGINT, SIGTERM}) ::signal(sig, SIG_DFL);
    static const std::string binary = kdt::test::kdt_binary();
    std::vector<char*> argv = {const_cast<char*>(binary.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (const std::string& s : envs) envp.push_back(const_cast<char*>(s.c_str()));
    envp.push_back(nullptr);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

// waitpid with a deadline; -1 when the process is still running after it.
int wait_for(pid_t pid, int seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

// The sum file of an entry whose binary is `binary` (what kdt writes).
std::string sum_for(const std::string& old_sum, const std::string& binary) {
  std::string check_line = old_sum.substr(old_sum.find('\n') + 1);
  check_line = check_line.substr(0, check_line.find('\n') + 1);
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(kdt_rt::fnv1a64(binary.data(), binary.size())));
  return "kdt-cache-entry 1\n" + check_line + "size " + std::to_string(binary.size()) + "\nfnv1a64 " + hash + "\n";
}

}  // namespace

TEST_SUITE("run") {
  // ----- item 21: kdt run --help -------------------------------------------------
  TEST_CASE("kdt run --help prints the run usage and exits 0") {
    for (const char* flag : {"--help", "-h"}) {
      RunResult r = kdt::test::run_kdt(std::string("run ") + flag);
      CHECK(r.status == 0);
      CHECK(r.out.rfind("Usage: kdt run", 0) == 0);
      for (const char* option : {"--input", "--random", "--random-all", "--timeout", "--cxxflags", "--cxx"}) {
        CHECK_MESSAGE(r.out.find(option) != std::string::npos, option);
      }
    }
    // kdt --help lists the run options too.
    CHECK(kdt::test::run_kdt("--help").out.find("--random-all") != std::string::npos);
  }

  // ----- item 14: the cache ------------------------------------------------------
  TEST_CASE("an entry is a verified binary, a source and a sum, in directories of mode 0700") {
    const Fixture& f = fixture();
    struct stat st;
    REQUIRE(::stat(f.cache.c_str(), &st) == 0);
    CHECK((st.st_mode & 077) == 0);
    for (const char* name : {"kernel", "kernel.cpp", "kernel.sum"}) CHECK(fs::exists(f.entry() + "/" + name));
    CHECK(read_text(f.entry() + "/kernel.sum").rfind("kdt-cache-entry 1\n", 0) == 0);
    CHECK(read_f32(f.file("out/y.npy")) == doubled());
    // No per-run file stays in the cache or in the output directory.
    CHECK(entries(f.entry()).size() == 3);
    CHECK(entries(f.file("out")) == std::vector<std::string>{"y.npy"});
  }

  TEST_CASE("a truncated or emptied cached binary is rebuilt, not run") {
    const Fixture& f = fixture();
    std::string original = read_text(f.entry() + "/kernel");
    for (size_t size : {original.size() / 2, size_t{0}}) {
      CAPTURE(size);
      TempDir tmp;
      std::string cache = tmp.file("cache");
      copy_cache(cache);
      std::string binary = cache + "/" + f.key + "/kernel";
      REQUIRE(::truncate(binary.c_str(), static_cast<off_t>(size)) == 0);
      // Old outputs are there: a run that does nothing must not pass for one that worked.
      fs::create_directories(tmp.file("out"));
      write_text(tmp.file("out/y.npy"), "stale");
      RunResult r = kdt_env(cache_env(cache), "run " + q(f.kd) + " --cxxflags=-O0 --output-dir " + q(tmp.file("out")) +
                                                  " --input x=" + q(f.x) + " --input n=0 --input s=1 --input b=true");
      CHECK_MESSAGE(r.status == 0, r.err);
      CHECK(read_f32(tmp.file("out/y.npy")) == doubled());
      CHECK(fs::file_size(binary) == original.size());
    }
  }

  TEST_CASE("kernels link a runtime library built once per compiler and flags; a damaged one is rebuilt") {
    const Fixture& f = fixture();
    // The kernel's cached source holds the kernel, not the runtime.
    const std::string source = read_text(f.entry() + "/kernel.cpp");
    CHECK(source.find("#include \"kdt_prelude.h\"") != std::string::npos);
    CHECK(source.find("class DeviceScheduler") == std::string::npos);
    const std::vector<std::string> libraries = entries(f.cache, "rt-");
    REQUIRE(libraries.size() == 1);
    const std::string library = f.cache + "/" + libraries[0];
    for (const char* name : {"kdt_prelude.h", "runtime.o", "runtime.sum"}) CHECK(fs::exists(library + "/" + name));
    const std::string object = read_text(library + "/runtime.o");
    for (size_t size : {object.size() / 2, size_t{0}}) {
      CAPTURE(size);
      TempDir tmp;
      std::string cache = tmp.file("cache");
      copy_cache(cache);
      // No kernel in the cache, and a damaged library: both are rebuilt.
      fs::remove_all(cache + "/" + f.key);
      std::string damaged = cache + "/" + libraries[0] + "/runtime.o";
      REQUIRE(::truncate(damaged.c_str(), static_cast<off_t>(size)) == 0);
      RunResult r = kdt_env(cache_env(cache), f.args("rebuilt"));
      CHECK_MESSAGE(r.status == 0, r.err);
      CHECK(read_f32(f.file("rebuilt/y.npy")) == doubled());
      CHECK(fs::file_size(damaged) == object.size());
      CHECK(entries(cache, "rt-").size() == 1);
    }
    // One that others could write is refused, as a kernel entry is.
    TempDir tmp;
    std::string cache = tmp.file("cache");
    copy_cache(cache);
    fs::remove_all(cache + "/" + f.key);
    ::chmod((cache + "/" + libraries[0] + "/runtime.o").c_str(), 0666);
    RunResult refused = kdt_env(cache_env(cache), f.args("refused"));
    CHECK(refused.status == 2);
    CHECK(refused.err.find("refusing to use the cached files") != std::string::npos);
    CHECK(refused.err.find("every user can write it") != std::string::npos);
  }

  TEST_CASE("a cache that other users can write is refused; a planted binary never runs") {
    const Fixture& f = fixture();
    TempDir tmp;
    std::string marker = tmp.file("PLANTED-RAN");
    auto plant = [&](const std::string& cache) {
      std::string binary = cache + "/" + f.key + "/kernel";
      std::string script = "#!/bin/sh\ntouch " + q(marker) + "\nexit 0\n";
      std::string sum = sum_for(read_text(cache + "/" + f.key + "/kernel.sum"), script);
      write_text(binary, script);
      ::chmod(binary.c_str(), 0700);
      write_text(cache + "/" + f.key + "/kernel.sum", sum);  // an attacker can write the sum as well
    };
    struct Case {
      const char* what;
      std::string path;  // relative to the copied cache
      mode_t mode;
    };
    int index = 0;
    for (const Case& c : {Case{"cache other-writable", "", 0777}, Case{"cache group-writable (sticky too)", "", 01770},
                          Case{"entry other-writable", "/" + f.key, 0777}, Case{"binary other-writable", "/" + f.key + "/kernel", 0777}}) {
      CAPTURE(c.what);
      std::string cache = tmp.file("cache-" + std::to_string(index++));
      fs::remove_all(cache);
      copy_cache(cache);
      plant(cache);
      ::chmod((cache + c.path).c_str(), c.mode);
      if (c.mode == 01770) {
        // The group must not be the user's private group, or writing it gives nobody anything.
        if (::geteuid() != 0) continue;
        REQUIRE(::chown(cache.c_str(), static_cast<uid_t>(-1), 12345) == 0);
      }
      RunResult r = kdt_env(cache_env(cache), f.args());
      CHECK(r.status == 2);
      CHECK(r.err.find("refusing") != std::string::npos);
      CHECK(r.err.find("can write it") != std::string::npos);
      CHECK_FALSE(fs::exists(marker));
    }
    // A directory above the cache that others can write counts too.
    std::string above = tmp.file("above");
    fs::create_directories(above);
    copy_cache(above + "/cache");
    plant(above + "/cache");
    ::chmod(above.c_str(), 0777);
    RunResult r = kdt_env(cache_env(above + "/cache"), f.args());
    CHECK(r.status == 2);
    CHECK(r.err.find("above it") != std::string::npos);
    CHECK_FALSE(fs::exists(marker));
    // One owned by another user, when the suite can make one (as root).
    if (::geteuid() == 0) {
      std::string theirs = tmp.file("theirs");
      copy_cache(theirs);
      plant(theirs);
      REQUIRE(std::system(("chown -R 65534 " + q(theirs)).c_str()) == 0);
      RunResult owned = kdt_env(cache_env(theirs), f.args());
      CHECK(owned.status == 2);
      CHECK(owned.err.find("owned by uid 65534") != std::string::npos);
      CHECK_FALSE(fs::exists(marker));
    }
  }

  TEST_CASE("without KDT_CACHE_DIR, XDG_CACHE_HOME and HOME the cache is per user, mode 0700") {
    const Fixture& f = fixture();
    TempDir tmp;
    std::string mine = tmp.file("kdt-cache-" + std::to_string(::geteuid()));
    copy_cache(mine);  // a hit: nothing to compile
    // The old shared location, with a planted entry: never looked at.
    fs::create_directories(tmp.file("kdt-cache/" + f.key));
    write_text(tmp.file("kdt-cache/" + f.key + "/kernel"), "#!/bin/sh\ntouch " + q(tmp.file("PLANTED")) + "\n");
    ::chmod(tmp.file("kdt-cache/" + f.key + "/kernel").c_str(), 0777);
    std::string env = "-u KDT_CACHE_DIR -u XDG_CACHE_HOME -u HOME TMPDIR=" + q(tmp.path.string());
    RunResult r = kdt_env(env, f.args());
    CHECK_MESSAGE(r.status == 0, r.err);
    CHECK_FALSE(fs::exists(tmp.file("PLANTED")));
    // Created fresh, it is the user's and mode 0700.
    fs::remove_all(mine);
    TempDir fresh;
    // (`false` as the compiler: the cache is created, nothing is compiled.)
    RunResult failed = kdt_env("-u KDT_CACHE_DIR -u XDG_CACHE_HOME -u HOME TMPDIR=" + q(fresh.path.string()),
                               "run " + q(f.kd) + " --cxx false --random-all");
    CHECK(failed.status == 2);
    CHECK(failed.err.find("`false` exited with status 1 on kdt's runtime library") != std::string::npos);
    struct stat st;
    std::string created = fresh.file("kdt-cache-" + std::to_string(::geteuid()));
    REQUIRE(::stat(created.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
    CHECK(st.st_uid == ::geteuid());
    // One that another user could write is refused.
    copy_cache(mine);
    ::chmod(mine.c_str(), 0777);
    RunResult open = kdt_env(env, f.args());
    CHECK(open.status == 2);
    CHECK(open.err.find("every user can write it") != std::string::npos);
    // So is a symbolic link in its place (to a directory of the user's own, even).
    fs::rename(mine, tmp.file("elsewhere"));
    ::chmod(tmp.file("elsewhere").c_str(), 0700);
    fs::create_directory_symlink(tmp.file("elsewhere"), mine);
    RunResult link = kdt_env(env, f.args());
    CHECK(link.status == 2);
    CHECK(link.err.find("symbolic link") != std::string::npos);
  }

  TEST_CASE("a read-only cache still serves hits and gains no files") {
    const Fixture& f = fixture();
    TempDir tmp;
    std::string cache = tmp.file("cache");
    copy_cache(cache);
    std::vector<std::string> before = entries(cache + "/" + f.key);
    std::sort(before.begin(), before.end());
    std::string run = "env KDT_CACHE_DIR=" + q(cache) + " " + q(kdt::test::kdt_binary()) + " run " + q(f.kd) +
                      " --cxxflags=-O0 --output-dir " + q(tmp.file("out")) + " --input x=" + q(f.x) +
                      " --input n=0 --input s=1 --input b=true 2>" + q(tmp.file("err"));
    int status;
    if (::geteuid() == 0) {
      // Root writes through permissions: make the file system read-only instead.
      if (!mount_namespace_available()) {
        MESSAGE("no mount namespace here: the read-only cache is checked by its listing only");
        status = std::system(("chmod -R a-w " + q(cache) + " && " + run).c_str());
        status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
      } else {
        status = in_mount_namespace("mount --bind " + q(cache) + " " + q(cache) + " && mount -o remount,ro,bind " +
                                    q(cache) + " && " + run);
      }
    } else {
      int raw = std::system(("chmod -R a-w " + q(cache) + " && " + run).c_str());
      status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 1;
    }
    std::system(("chmod -R u+w " + q(cache)).c_str());
    CHECK_MESSAGE(status == 0, read_text(tmp.file("err")));
    CHECK(read_f32(tmp.file("out/y.npy")) == doubled());
    std::vector<std::string> after = entries(cache + "/" + f.key);
    std::sort(after.begin(), after.end());
    CHECK(after == before);
  }

  // ----- item 15: outputs ----------------------------------------------------------
  TEST_CASE("outputs are renamed into place: a symlink at an output path is replaced, not written through") {
    const Fixture& f = fixture();
    TempDir tmp;
    std::string victim = tmp.file("victim.txt");
    write_text(victim, "precious");
    fs::create_directories(tmp.file("out"));
    fs::create_symlink(victim, tmp.file("out/y.npy"));
    RunResult r = kdt_env(cache_env(f.cache), "run " + q(f.kd) + " --cxxflags=-O0 --output-dir " + q(tmp.file("out")) +
                                                  " --input x=" + q(f.x) + " --input n=0 --input s=1 --input b=true");
    CHECK_MESSAGE(r.status == 0, r.err);
    CHECK(read_text(victim) == "precious");
    CHECK_FALSE(fs::is_symlink(tmp.file("out/y.npy")));
    CHECK(read_f32(tmp.file("out/y.npy")) == doubled());
    CHECK(entries(tmp.file("out")) == std::vector<std::string>{"y.npy"});
  }

  // ----- item 16: inputs -----------------------------------------------------------
  TEST_CASE("npy_read reads exactly what the header promises from FIFOs and devices") {
    TempDir tmp;
    kdt_rt::NpyArray a;
    std::string error;
    auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(kdt_rt::npy_read("/dev/zero", a, error));
    CHECK(error.find("not a NumPy .npy file") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK_FALSE(kdt_rt::npy_read(tmp.path.string(), a, error));
    CHECK(error.find("directory") != std::string::npos);
    // A FIFO whose writer keeps it open after a whole array: read, no wait for its end.
    std::string fifo = tmp.file("x.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string bytes = npy_bytes_of_x();
    HeldFifoWriter writer(fifo, bytes, 30);
    bool ok = kdt_rt::npy_read(fifo, a, error);
    writer.stop();
    CHECK_MESSAGE(ok, error);
    CHECK(a.shape == std::vector<uint64_t>{8});
    // A short one is truncated.
    std::thread short_writer([&] {
      int fd = ::open(fifo.c_str(), O_WRONLY);
      ssize_t unused = ::write(fd, bytes.data(), bytes.size() - 5);
      (void)unused;
      ::close(fd);
    });
    CHECK_FALSE(kdt_rt::npy_read(fifo, a, error));
    short_writer.join();
    CHECK(error.find("truncated") != std::string::npos);
    // The header dict is bounded (1 MiB) before it is read.
    std::string huge("\x93NUMPY\x02\x00\x00\x00\x00\x10", 12);
    write_text(tmp.file("huge.npy"), huge);
    CHECK_FALSE(kdt_rt::npy_read(tmp.file("huge.npy"), a, error));
    CHECK(error.find("implausibly large") != std::string::npos);
    // A header that does not match the parameter stops before the data is read.
    write_text(tmp.file("ok.npy"), bytes);
    bool asked = false;
    CHECK_FALSE(kdt_rt::npy_read(tmp.file("ok.npy"), a, error, [&](const kdt_rt::NpyHeader& h) {
      asked = true;
      return h.shape == std::vector<uint64_t>{9};
    }));
    CHECK(asked);
  }

  TEST_CASE("--input from /dev/zero and from a FIFO") {
    const Fixture& f = fixture();
    TempDir tmp;
    std::string common = "run " + q(f.kd) + " --cxxflags=-O0 --output-dir " + q(tmp.file("out")) +
                         " --input n=0 --input s=1 --input b=true";
    RunResult zero = kdt_env(cache_env(f.cache), common + " --input x=/dev/zero", 60);
    CHECK(zero.status == 2);
    CHECK(zero.err.find("not a NumPy .npy file") != std::string::npos);
    std::string fifo = tmp.file("x.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    HeldFifoWriter writer(fifo, npy_bytes_of_x(), 60);
    RunResult r = kdt_env(cache_env(f.cache), common + " --input x=" + q(fifo), 60);
    writer.stop();
    CHECK_MESSAGE(r.status == 0, r.err);
    CHECK(read_f32(tmp.file("out/y.npy")) == doubled());
  }

  TEST_CASE("bool refs go in and out (the harness keeps them in byte storage)") {
    TempDir tmp;
    std::string kd = tmp.file("b.kd");
    write_text(kd, "kernel kb(m: in bool[4] @global, y: out bool[4] @global) grid(1) {\n    y[...] = m;\n}\n");
    const unsigned char m[4] = {1, 0, 2, 1};  // a nonzero byte other than 1 is true
    std::string error;
    REQUIRE(kdt_rt::npy_write(tmp.file("m.npy"), "|b1", {4}, m, 4, error));
    RunResult r = kdt_env(cache_env(fixture().cache), "run " + q(kd) + " --cxxflags=-O0 --input m=" + q(tmp.file("m.npy")) +
                                                           " --output-dir " + q(tmp.file("out")));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    kdt_rt::NpyArray y;
    REQUIRE(kdt_rt::npy_read(tmp.file("out/y.npy"), y, error));
    CHECK(y.descr == "|b1");
    CHECK(y.data == std::vector<unsigned char>{1, 0, 1, 1});
  }

  // ----- item 17: the command line -------------------------------------------------
  TEST_CASE("misspelt, unknown, repeated, missing and ill-typed arguments are usage errors naming the parameter") {
    TempDir tmp;
    std::string kd = tmp.file("k.kd");
    write_text(kd, kKernel);
    std::string x = tmp.file("x.npy");
    write_x(x);
    // None of these compiles anything: a missing compiler shows it.
    std::string base = "run " + q(kd) + " --cxx /nonexistent/c++ --output-dir " + q(tmp.file("out")) + " ";
    std::string good = "--input x=" + q(x) + " --input n=0 --input s=1 ";
    struct Case {
      std::string args;
      std::vector<std::string> expect;
    };
    const Case cases[] = {
        {good + "--input b=true --input xx=" + q(x), {"--input xx", "no parameter `xx`", "did you mean `x`"}},
        {good + "--input b=true -D NOPE=1", {"-D NOPE", "no `const NOPE`"}},
        {good + "--input b=true --input s=2", {"--input s is given twice"}},
        {"--input x=" + q(x) + " --input s=1 --input b=true", {"no input for `n`", "--random"}},
        {"", {"no input for `x`, `n`, `s`, `b`"}},
        {good + "--input b=true --input y=" + q(x), {"--input y", "`out` parameter"}},
        {"--input x=" + q(x) + " --input n=0 --input b=true --input s=256", {"'256' is out of range", "`s` (u8)"}},
        {"--input x=" + q(x) + " --input n=0 --input b=true --input s=-1", {"'-1' is out of range", "`s`"}},
        {"--input x=" + q(x) + " --input n=0 --input b=true --input s=1.5", {"'1.5' is not an integer", "`s`"}},
        {"--input x=" + q(x) + " --input s=1 --input b=true --input n=1e3", {"'1e3' is not an integer", "`n` (i32)"}},
        {"--input x=" + q(x) + " --input s=1 --input b=true --input n=2147483648", {"out of range", "`n`"}},
        {good + "--input b=yes", {"'yes' is not a bool", "`b`"}},
        {good + "--input b=true --random xx", {"--random xx", "no parameter `xx`"}},
        {good + "--input b=true --random y", {"--random y", "`out` parameter"}},
        {good + "--input b=true --random x", {"`x` has both --input and --random"}},
        {good + "--input b=true --random n --random n", {"--random n is given twice"}},
        {"--input n=0 --input s=1 --input b=true --input x=" + q(tmp.file("nope.npy")), {"--input x=", "No such file"}},
        {good + "--input b=true --input =1", {"--input expects NAME="}},
        {good + "--input b=true --seed -1", {"--seed"}},
        {good + "--input b=true --timeout 0", {"--timeout"}},
        {good + "--input b=true --timeout abc", {"--timeout"}},
        {good + "--input b=true -j 0", {"invalid value '0' for --jobs", "from 1 to 4096"}},
        {good + "--input b=true --jobs many", {"invalid value 'many' for --jobs"}},
    };
    for (const Case& c : cases) {
      CAPTURE(c.args);
      RunResult r = kdt::test::run_kdt(base + c.args);
      CHECK(r.status == 2);
      for (const std::string& e : c.expect) CHECK_MESSAGE(r.err.find(e) != std::string::npos, e << " in " << r.err);
      CHECK(r.err.find("compiler") == std::string::npos);  // refused before compiling
    }
    // In json mode the same errors are one JSON document.
    RunResult json = kdt::test::run_kdt(base + "--diagnostics-format=json --input xx=1");
    CHECK(json.status == 2);
    CHECK(json.err.find("\"command-line\"") != std::string::npos);
  }

  TEST_CASE("generated inputs only when asked, and the summary names them; scalars are exact") {
    const Fixture& f = fixture();
    TempDir tmp;
    std::string common = "run " + q(f.kd) + " --cxxflags=-O0 --output-dir " + q(tmp.file("out"));
    RunResult r = kdt_env(cache_env(f.cache), common + " --random x --input n=0 --input s=255 --input b=true");
    CHECK_MESSAGE(r.status == 0, r.err);
    CHECK(r.err.find("generated inputs (seed 0): x\n") != std::string::npos);
    RunResult all = kdt_env(cache_env(f.cache), common + " --random-all --input n=0 --seed 3");
    CHECK_MESSAGE(all.status == 0, all.err);
    CHECK(all.err.find("generated inputs (seed 3): x, s, b\n") != std::string::npos);
    RunResult given = kdt_env(cache_env(f.cache), f.args());
    CHECK(given.err.find("generated") == std::string::npos);
    for (const char* b : {"true", "false", "1", "0"}) {
      CAPTURE(b);
      CHECK(kdt_env(cache_env(f.cache), common + " --input x=" + q(f.x) + " --input n=0x0 --input s=0xff --input b=" + b)
                .status == 0);
    }
    // The harness checks the same on its own (as `--emit=cpp --harness` users run it).
    std::string binary = f.entry() + "/kernel";
    struct Case {
      std::string args;
      std::string expect;
    };
    const Case cases[] = {
        {"--input n=0 --input s=256 --input b=true --random x", "'256' is out of range"},
        {"--input n=0 --input s=1.5 --input b=true --random x", "'1.5' is not an integer"},
        {"--input n=0 --input s=1 --input b=maybe --random x", "is not a bool"},
        {"--input n=0 --input s=1 --input b=true", "no input for `x`"},
        {"--input n=0 --input s=1 --input b=true --random x --input q=1", "no parameter `q`"},
        {"--input n=0 --input n=1", "given twice"},
        {"--input n=0 --input s=1 --input b=true --input y=" + q(f.x) + " --random x", "`out` parameter"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.args);
      std::string cmd = q(binary) + " --output-dir " + q(tmp.file("direct")) + " " + c.args + " 2>" + q(tmp.file("err")) +
                        " >/dev/null";
      int raw = std::system(cmd.c_str());
      CHECK(WEXITSTATUS(raw) == 2);
      CHECK(read_text(tmp.file("err")).find(c.expect) != std::string::npos);
    }
  }

  // ----- item 19: the compiler ---------------------------------------------------
  TEST_CASE("the compiler runs without a shell: $CXX of several words, --cxxflags, clear failures") {
    const Fixture& f = fixture();
    TempDir tmp;
    std::string cache = tmp.file("cache");
    copy_cache(cache);
    auto cache_env = [&](const std::string& c) { return "KDT_CACHE_DIR=" + q(c) + " TMPDIR=" + q(tmp.path.string()); };
    // `ccache g++` where ccache exists, else `env g++`: two words, one compiler.
    std::string cxx = kdt::test::find_tool("ccache").empty() ? "env g++" : "ccache g++";
    size_t cached = kernel_entries(cache).size();
    RunResult words = kdt_env("CXX=" + q(cxx) + " " + cache_env(cache), f.args() + " --cxxflags '-DKDT_TEST_FLAG=1'");
    CHECK_MESSAGE(words.status == 0, words.err);
    // The key holds the compiler and the flags: a second entry.
    CHECK(kernel_entries(cache).size() == cached + 1);
    CHECK(words.err.find("output y:") != std::string::npos);
    // Shell syntax is refused, not run.
    RunResult shell = kdt_env("CXX=" + q("g++; touch " + tmp.file("PWNED")) + " " + cache_env(cache), f.args());
    CHECK(shell.status == 2);
    CHECK(shell.err.find("shell syntax") != std::string::npos);
    CHECK_FALSE(fs::exists(tmp.file("PWNED")));
    // Not found.
    RunResult missing = kdt_env(cache_env(cache), f.args() + " --cxx /nonexistent/c++");
    CHECK(missing.status == 2);
    CHECK(missing.err.find("`/nonexistent/c++` (from --cxx) was not found") != std::string::npos);
    RunResult env_missing = kdt_env("CXX=no-such-compiler-kdt " + cache_env(cache), f.args());
    CHECK(env_missing.status == 2);
    CHECK(env_missing.err.find("`no-such-compiler-kdt` (from $CXX) was not found") != std::string::npos);
    // Killed by a signal, and a plain failure, each said as such.
    std::string killer = tmp.file("killer.sh");
    write_text(killer, "#!/bin/sh\ncase \"$1\" in --version) echo killer 1; exit 0;; esac\nkill -9 $$\n");
    ::chmod(killer.c_str(), 0755);
    RunResult killed = kdt_env(cache_env(cache), f.args() + " --cxx " + q(killer));
    CHECK(killed.status == 2);
    CHECK(killed.err.find("was killed by signal 9 (SIGKILL)") != std::string::npos);
    // Two concurrent failing runs: each shows its own compile log.
    std::string slow = tmp.file("slow.sh");
    write_text(slow, "#!/bin/sh\ncase \"$1\" in --version) echo slow 1; exit 0;; esac\necho \"compiler pid $$\"\n"
                     "sleep 1\nexit 1\n");
    ::chmod(slow.c_str(), 0755);
    std::string run = cache_env(cache) + " " + q(kdt::test::kdt_binary()) + " " + f.args() + " --cxx " + q(slow);
    std::string both = "(" + run + " 2>" + q(tmp.file("a.err")) + " & " + run + " 2>" + q(tmp.file("b.err")) + "; wait)";
    std::system(both.c_str());
    for (const char* name : {"a.err", "b.err"}) {
      std::string err = read_text(tmp.file(name));
      CAPTURE(err);
      size_t first = err.find("compiler pid ");
      CHECK(first != std::string::npos);
      CHECK(err.find("compiler pid ", first + 1) == std::string::npos);
      // (The runtime library is what such a compiler meets first.)
      CHECK(err.find("exited with status 1 on kdt's runtime library") != std::string::npos);
      // The code and the log are kept for a person, in a directory of that run's own.
      size_t kept = err.find("kept in ");
      if (kept != std::string::npos) {
        std::string dir = err.substr(kept + 8);
        dir = dir.substr(0, dir.find('\n'));
        CHECK(fs::exists(dir + "/compile.log"));
        fs::remove_all(dir);
      }
    }
  }

  TEST_CASE("kernels are compiled for the host unless --portable; the key holds the choice") {
    const Fixture& f = fixture();
    TempDir tmp;
    std::string cache = tmp.file("cache");
    // A compiler that records its words and hands them to g++.
    std::string log = tmp.file("argv.log");
    std::string recorder = tmp.file("recorder.sh");
    write_text(recorder, "#!/bin/sh\ncase \"$1\" in --version) echo recorder 1; exit 0;; esac\necho \"$*\" >> " +
                             q(log) + "\nexec g++ \"$@\"\n");
    ::chmod(recorder.c_str(), 0755);
    RunResult native = kdt_env(cache_env(cache), f.args("native") + " --cxx " + q(recorder));
    REQUIRE_MESSAGE(native.status == 0, native.err);
    const std::string native_words = read_text(log);
    fs::remove(log);
    RunResult portable = kdt_env(cache_env(cache), f.args("portable") + " --cxx " + q(recorder) + " --portable");
    REQUIRE_MESSAGE(portable.status == 0, portable.err);
    const std::string portable_words = read_text(log);
    // Each run compiled the runtime library and the kernel, with its flags.
    CHECK(std::count(native_words.begin(), native_words.end(), '\n') >= 2);
    CHECK(std::count(portable_words.begin(), portable_words.end(), '\n') >= 2);
    std::istringstream native_lines(native_words), portable_lines(portable_words);
    for (std::string line; std::getline(native_lines, line);) CHECK(line.find(" -march=native") != std::string::npos);
    for (std::string line; std::getline(portable_lines, line);) {
      CHECK(line.find("-march=native") == std::string::npos);
      CHECK(line.find("-ffp-contract=off") != std::string::npos);
    }
    CHECK(kernel_entries(cache).size() == 2);
    CHECK(entries(cache, "rt-").size() == 2);
    // The instruction set changes the speed, never the results.
    CHECK(read_text(f.file("native") + "/y.npy") == read_text(f.file("portable") + "/y.npy"));
    // A hit compiles nothing.
    RunResult again = kdt_env(cache_env(cache), f.args("again") + " --cxx " + q(recorder));
    CHECK(again.status == 0);
    CHECK(read_text(log) == portable_words);
  }

  TEST_CASE("a full disk is reported as such") {
    if (!mount_namespace_available()) {
      MESSAGE("no mount namespace here: the full-disk test did not run");
      return;
    }
    const Fixture& f = fixture();
    TempDir tmp;
    std::string small = tmp.file("small");
    fs::create_directories(small);
    std::string run = "TMPDIR=" + q(small) + " KDT_CACHE_DIR=" + q(small + "/cache") + " " + q(kdt::test::kdt_binary()) +
                      " " + f.args() + " 2>" + q(tmp.file("err"));
    // Room for the emitted C++, not for what the compiler writes.
    int status = in_mount_namespace("mount -t tmpfs -o size=400k tmpfs " + q(small) + " && " + run);
    std::string err = read_text(tmp.file("err"));
    CHECK(status == 2);
    CHECK_MESSAGE(err.find("no space left on device") != std::string::npos, err);
  }

  // ----- item 20: signals and time ----------------------------------------------
  TEST_CASE("--timeout stops a kernel that runs too long, with its process group") {
    const Fixture& f = fixture();
    TempDir tmp;
    fs::create_directories(tmp.file("out"));
    write_text(tmp.file("out/y.npy"), "old");
    auto start = std::chrono::steady_clock::now();
    RunResult r = kdt_env(cache_env(f.cache) + " TMPDIR=" + q(tmp.path.string()),
                          "run " + q(f.kd) + " --cxxflags=-O0 --output-dir " + q(tmp.file("out")) + " --input x=" +
                              q(f.x) + " --input n=100000 --input s=1 --input b=true --timeout 1",
                          120);
    auto elapsed = std::chrono::steady_clock::now() - start;
    CHECK(r.status == 2);
    CHECK(r.err.find("--timeout 1 seconds") != std::string::npos);
    CHECK(elapsed < std::chrono::seconds(30));
    CHECK(running(f.entry() + "/kernel").empty());
    // Nothing was written, nothing left behind.
    CHECK(read_text(tmp.file("out/y.npy")) == "old");
    CHECK(entries(tmp.file("out")) == std::vector<std::string>{"y.npy"});
    CHECK(entries(tmp.path, "kdt-run-").empty());
  }

  TEST_CASE("SIGINT and SIGTERM stop kdt run and its kernel: exit 130 and 143, no orphan, no temporary file") {
    const Fixture& f = fixture();
    for (int sig : {SIGINT, SIGTERM}) {
      CAPTURE(sig);
      TempDir tmp;
      std::vector<std::string> args = {"run",     f.kd,       "--cxxflags=-O0", "--output-dir", tmp.file("out"),
                                       "--input", "x=" + f.x, "--input",        "n=100000",     "--input",
                                       "s=1",     "--input",  "b=true"};
      pid_t pid = spawn_kdt(args, {"KDT_CACHE_DIR=" + f.cache, "TMPDIR=" + tmp.path.string()}, tmp.file("stdout"),
                            tmp.file("stderr"));
      REQUIRE(pid > 0);
      // Wait for the kernel to run (a cache hit: quick).
      std::vector<pid_t> kernel;
      for (int i = 0; i < 3000 && kernel.empty(); ++i) {
        kernel = children(pid, "kernel");
        if (kernel.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      REQUIRE_MESSAGE(!kernel.empty(), read_text(tmp.file("stderr")));
      REQUIRE(::kill(pid, sig) == 0);
      int status = wait_for(pid, 30);
      REQUIRE(status != -1);
      CHECK(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 128 + sig);
      std::string err = read_text(tmp.file("stderr"));
      CHECK(err.find(std::string("interrupted by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM")) != std::string::npos);
      CHECK(::kill(kernel[0], 0) != 0);  // gone, not orphaned
      CHECK(running(f.entry() + "/kernel").empty());
      CHECK(entries(tmp.path, "kdt-run-").empty());
      CHECK(entries(tmp.file("out")).empty());
    }
  }

  TEST_CASE("a signal during kdt -o FILE leaves no hidden temporary file") {
    TempDir tmp;
    std::string kd = tmp.file("big.kd");
    std::string program;
    for (int i = 0; i < 1000; ++i) {
      program += "kernel k" + std::to_string(i) + "(x: inout f32[64] @global) grid(1) { x[...] = x * 2.0 + 1.0; }\n";
    }
    write_text(kd, program);
    std::string out = tmp.file("out/k.cpp");
    fs::create_directories(tmp.file("out"));
    // A file size limit raises SIGXFSZ in the middle of the write: kdt reports it, nothing stays.
    std::string limited = "ulimit -f 64 && " + q(kdt::test::kdt_binary()) + " --emit=cpp -o " + q(out) + " " + q(kd) +
                          " 2>" + q(tmp.file("err"));
    int raw = std::system(("sh -c " + q(limited)).c_str());
    CHECK(WIFEXITED(raw));
    CHECK(WEXITSTATUS(raw) == 2);
    CHECK(read_text(tmp.file("err")).find("File too large") != std::string::npos);
    CHECK(entries(tmp.file("out")).empty());
    // SIGINT while the temporary file is being written: kdt is stopped the
    // moment the file appears (inotify), then interrupted.
    bool caught = false;
    for (int attempt = 0; attempt < 20 && !caught; ++attempt) {
      int in = ::inotify_init1(IN_CLOEXEC);
      REQUIRE(in >= 0);
      REQUIRE(::inotify_add_watch(in, tmp.file("out").c_str(), IN_CREATE) >= 0);
      pid_t pid = spawn_kdt({"--emit=cpp", "-o", out, kd}, {}, tmp.file("o.log"), tmp.file("e.log"));
      char buffer[4096];
      std::string temp;
      struct pollfd p = {in, POLLIN, 0};
      ssize_t n = ::poll(&p, 1, 10000) == 1 ? ::read(in, buffer, sizeof buffer) : 0;
      for (ssize_t off = 0; off < n;) {
        auto* event = reinterpret_cast<inotify_event*>(buffer + off);
        if (event->len && std::string(event->name).rfind(".k.cpp.kdt-", 0) == 0) temp = event->name;
        off += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      }
      if (!temp.empty()) ::kill(pid, SIGSTOP);
      ::close(in);
      if (!temp.empty() && fs::exists(tmp.file("out/" + temp)) && !fs::exists(out)) {
        caught = true;
        ::kill(pid, SIGINT);
        ::kill(pid, SIGCONT);
        int status = wait_for(pid, 30);
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGINT);
        CHECK(entries(tmp.file("out")).empty());
      } else {
        ::kill(pid, SIGCONT);
        wait_for(pid, 30);
        fs::remove(out);
      }
    }
    if (!caught) MESSAGE("kdt -o never seen mid-write in 20 tries; the SIGINT case did not run");
  }
}
