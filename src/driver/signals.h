// What kdt does on SIGINT, SIGTERM and SIGHUP: `kdt run` stops its child,
// cleans up and says so; a temporary output file is removed before kdt dies.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>

namespace kdt {

// While one exists (kdt run), the signals do not kill kdt: the first one is
// recorded, forwarded to the process group of the child being waited for
// (set_forward_group), and the run stops at its next step, removes its
// temporary files and exits with 128 + the signal's number. Also wakes
// wakeup_fd() when a child exits (SIGCHLD), so that waits need no polling.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// The first signal received inside an InterruptScope, or 0.
int interrupt_signal();

// The process group that the signals are forwarded to (0: none).
void set_forward_group(pid_t group);

// Readable after SIGCHLD or an interrupting signal; -1 outside a scope.
int wakeup_fd();
void drain_wakeups();

// "SIGINT", "SIGTERM", ... ("signal N" for others).
std::string signal_name(int sig);

// A temporary file that a terminating signal (SIGINT, SIGTERM, SIGHUP)
// removes before kdt dies of it; SIGXFSZ is ignored meanwhile, so that a
// file size limit is a write error (EFBIG) that the writer cleans up after.
// Inside an InterruptScope the signals do not kill kdt, and whoever created
// the file removes it as usual. The destructor forgets the file; it does
// not remove it.
class TempFileGuard {
 public:
  TempFileGuard();
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  // Creates a new file PREFIX + six random characters (O_EXCL, mode 0600),
  // tracked from before it exists, so that no moment is left in which a
  // signal could strand it. Returns its descriptor and sets `path`, or -1
  // with errno.
  int create(const std::string& prefix, std::string& path);

 private:
  std::string path_;
  struct sigaction saved_xfsz_;
};

}  // namespace kdt
