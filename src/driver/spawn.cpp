#include "driver/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "driver/signals.h"

extern char** environ;

namespace kdt {

bool split_words(const std::string& text, std::vector<std::string>& words, std::string& error) {
  words.clear();
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) {
        error = "unterminated ' quote";
        return false;
      }
      word += text.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == '"') {
      in_word = true;
      for (++i;; ++i) {
        if (i >= text.size()) {
          error = "unterminated \" quote";
          return false;
        }
        if (text[i] == '"') break;
        if (text[i] == '$' || text[i] == '`') {
          error = std::string("`") + text[i] + "` inside \"...\" would be expanded by a shell; kdt runs no shell";
          return false;
        }
        if (text[i] == '\\' && i + 1 < text.size() && std::strchr("\"\\$`\n", text[i + 1])) ++i;
        word += text[i];
      }
    } else if (c == '\\') {
      if (i + 1 < text.size()) {
        if (text[i + 1] != '\n') word += text[i + 1];
        ++i;
      }
      in_word = true;
    } else if (std::strchr("|&;<>()$`", c)) {
      error = std::string("`") + c + "` is shell syntax; kdt runs the compiler without a shell (quote it to pass it on)";
      return false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return true;
}

namespace {

using Clock = std::chrono::steady_clock;

struct SpawnState {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnState() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnState() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// Whether `pid` has ended, without reaping it: while it is a zombie its
// process group id cannot be reused, so the group can still be killed.
bool has_ended(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  for (;;) {
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0) return info.si_pid != 0;
    if (errno != EINTR) return true;
  }
}

int milliseconds_until(Clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
  return ms < 0 ? 0 : ms > 100 ? 100 : static_cast<int>(ms) + 1;
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  if (int sig = interrupt_signal()) {
    result.kind = ProcessResult::Kind::Interrupted;
    result.code = sig;
    return result;
  }
  SpawnState s;
  // The child's descriptors 0, 1 and 2; kdt's own descriptors are close-on-exec.
  posix_spawn_file_actions_addopen(&s.actions, 0, spec.stdin_path.c_str(), O_RDONLY, 0);
  if (!spec.stdout_path.empty()) {
    posix_spawn_file_actions_addopen(&s.actions, 1, spec.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  if (!spec.stderr_path.empty()) {
    if (spec.stderr_path == spec.stdout_path) {
      posix_spawn_file_actions_adddup2(&s.actions, 1, 2);
    } else {
      posix_spawn_file_actions_addopen(&s.actions, 2, spec.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    }
  }
  // A process group of its own (signals reach all of it, a terminal's ^C
  // reaches only kdt, which forwards it), default signal dispositions and
  // an empty signal mask whatever kdt inherited.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGTTIN, SIGTTOU}) sigaddset(&defaults, sig);
  posix_spawnattr_setflags(&s.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&s.attr, 0);
  posix_spawnattr_setsigmask(&s.attr, &none);
  posix_spawnattr_setsigdefault(&s.attr, &defaults);
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = spec.argv[0].find('/') == std::string::npos
               ? ::posix_spawnp(&pid, argv[0], &s.actions, &s.attr, argv.data(), environ)
               : ::posix_spawn(&pid, argv[0], &s.actions, &s.attr, argv.data(), environ);
  if (rc != 0) {
    result.kind = ProcessResult::Kind::NotStarted;
    result.code = rc;
    return result;
  }
  set_forward_group(pid);
  bool timed_out = false, stopping = false;
  int forwarded = 0;
  Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(spec.timeout_s > 0 ? spec.timeout_s : 0));
  Clock::time_point kill_at{};
  while (!has_ended(pid)) {
    Clock::time_point now = Clock::now();
    // The handler forwards the signal too; this covers one that came before
    // the group was known.
    if (int sig = interrupt_signal(); sig && !forwarded) {
      forwarded = sig;
      ::kill(-pid, sig);
      if (!stopping) kill_at = now + std::chrono::seconds(2);
      stopping = true;
    }
    if (spec.timeout_s > 0 && !timed_out && !forwarded && now >= deadline) {
      timed_out = true;
      ::kill(-pid, SIGTERM);
      kill_at = now + std::chrono::seconds(1);
      stopping = true;
    }
    if (stopping && now >= kill_at) ::kill(-pid, SIGKILL);
    Clock::time_point next = stopping ? kill_at : spec.timeout_s > 0 ? deadline : now + std::chrono::milliseconds(100);
    struct pollfd p = {wakeup_fd(), POLLIN, 0};
    ::poll(&p, p.fd >= 0 ? 1 : 0, milliseconds_until(next));
    drain_wakeups();
  }
  // Whatever the child left in its group (a compiler's subprocesses) goes too.
  if (stopping) ::kill(-pid, SIGKILL);
  set_forward_group(0);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    result.kind = ProcessResult::Kind::TimedOut;
  } else if (int sig = interrupt_signal()) {
    result.kind = ProcessResult::Kind::Interrupted;
    result.code = sig;
  } else if (WIFEXITED(status)) {
    result.code = WEXITSTATUS(status);
  } else {
    result.kind = ProcessResult::Kind::Signaled;
    result.code = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  return result;
}

std::string describe(const ProcessResult& result) {
  switch (result.kind) {
    case ProcessResult::Kind::Exited: return "exited with status " + std::to_string(result.code);
    case ProcessResult::Kind::Signaled:
      return "was killed by signal " + std::to_string(result.code) + " (" + signal_name(result.code) + ")";
    case ProcessResult::Kind::NotStarted:
      if (result.code == ENOENT) return "was not found";
      return std::string("could not be started: ") + std::strerror(result.code);
    case ProcessResult::Kind::TimedOut: return "ran past its time limit and was stopped";
    case ProcessResult::Kind::Interrupted: return "was stopped: kdt was interrupted by " + signal_name(result.code);
  }
  return "failed";
}

}  // namespace kdt
