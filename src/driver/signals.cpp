// Signal handlers touch only atomics and async-signal-safe calls (kill,
// write, unlink, signal, raise): kdt runs its work on a thread of its own
// (main.cpp), and a process-directed signal may land on either thread.
#include "driver/signals.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>

namespace kdt {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kSignalCount = sizeof kSignals / sizeof kSignals[0];

std::atomic<int> g_signal{0};
std::atomic<pid_t> g_group{0};
std::atomic<int> g_scopes{0};
std::atomic<int> g_wake_write{-1};
int g_wake_read = -1;
std::atomic<const char*> g_temp{nullptr};

int g_installed = 0;
struct sigaction g_saved[kSignalCount];
bool g_replaced[kSignalCount];
struct sigaction g_saved_child;

void wake() {
  int fd = g_wake_write.load();
  if (fd >= 0) {
    char c = 0;
    ssize_t unused = ::write(fd, &c, 1);
    (void)unused;
  }
}

void on_signal(int sig) {
  int saved = errno;
  if (g_scopes.load() > 0) {
    int expected = 0;
    g_signal.compare_exchange_strong(expected, sig);
    pid_t group = g_group.load();
    if (group > 0) ::kill(-group, sig);
    wake();
    errno = saved;
    return;
  }
  if (const char* path = g_temp.load()) ::unlink(path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
  errno = saved;
}

void on_child(int) {
  int saved = errno;
  wake();
  errno = saved;
}

// `honour_ignored`: leave a signal that kdt was started ignoring ignored
// (a background job of a shell). `kdt run` always handles them, so that
// `kill -INT` stops a run however it was started.
void install(bool honour_ignored) {
  if (g_installed++ > 0) return;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
    g_wake_read = fds[0];
    g_wake_write.store(fds[1]);
  }
  for (int i = 0; i < kSignalCount; ++i) {
    g_replaced[i] = false;
    if (::sigaction(kSignals[i], nullptr, &g_saved[i]) != 0) continue;
    if (honour_ignored && g_saved[i].sa_handler == SIG_IGN) continue;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    g_replaced[i] = ::sigaction(kSignals[i], &sa, nullptr) == 0;
  }
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_child;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGCHLD, &sa, &g_saved_child);
}

void uninstall() {
  if (--g_installed > 0) return;
  for (int i = 0; i < kSignalCount; ++i) {
    if (g_replaced[i]) ::sigaction(kSignals[i], &g_saved[i], nullptr);
  }
  ::sigaction(SIGCHLD, &g_saved_child, nullptr);
  int fd = g_wake_write.exchange(-1);
  if (fd >= 0) ::close(fd);
  if (g_wake_read >= 0) ::close(g_wake_read);
  g_wake_read = -1;
}

}  // namespace

InterruptScope::InterruptScope() {
  g_signal.store(0);
  g_scopes.fetch_add(1);
  install(false);
}

InterruptScope::~InterruptScope() {
  uninstall();
  g_scopes.fetch_sub(1);
}

int interrupt_signal() { return g_signal.load(); }

void set_forward_group(pid_t group) { g_group.store(group); }

int wakeup_fd() { return g_wake_read; }

void drain_wakeups() {
  if (g_wake_read < 0) return;
  char buffer[64];
  while (::read(g_wake_read, buffer, sizeof buffer) > 0) {
  }
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    default: return "signal " + std::to_string(sig);
  }
}

TempFileGuard::TempFileGuard() {
  install(true);
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGXFSZ, &ignore, &saved_xfsz_);
}

int TempFileGuard::create(const std::string& prefix, std::string& path) {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static std::random_device device;
  for (int attempt = 0; attempt < 100; ++attempt) {
    uint64_t r = (static_cast<uint64_t>(device()) << 32) ^ device();
    std::string name = prefix;
    for (int i = 0; i < 6; ++i, r /= 62) name += letters[r % 62];
    // Tracked first: a signal before open() unlinks a name that does not
    // exist yet, which is harmless.
    path_ = name;
    g_temp.store(path_.c_str());
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      path = path_;
      return fd;
    }
    int saved = errno;
    g_temp.store(nullptr);
    if (saved != EEXIST) {
      errno = saved;
      return -1;
    }
  }
  errno = EEXIST;
  return -1;
}

TempFileGuard::~TempFileGuard() {
  g_temp.store(nullptr);
  ::sigaction(SIGXFSZ, &saved_xfsz_, nullptr);
  uninstall();
}

}  // namespace kdt
