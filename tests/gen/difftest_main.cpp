// kdt_difftest: differential testing of `kdt run` against the generator's
// model evaluator.
//
//   kdt_difftest KDT_BINARY FIRST_SEED COUNT [--keep DIR] [--check-only] [--deliberate-only] [--print]
//
// --check-only stops after the check; --deliberate-only runs only the
// kernels with a deliberate race or protocol bug (the others are checked).
//
// For each seed: generate a program (tests/gen/kd_gen.h), write its .kd file
// and input .npy files, check it with `kdt --emit=check`, then run it with
// `kdt run` (checks on) in both DMA modes and every program order (shuffle
// with two seeds) and compare every output bit for bit with the model's (any
// NaN matches any NaN). For a kernel built racy or with a protocol bug on
// purpose, every run must instead fail with that diagnostic (`race`,
// `semaphore-leak`, `deadlock`, `dma-wait-mismatch`), run with
// --no-static-dma-checks. The static DMA-protocol checks (spec section 18)
// must pass every other kernel (no false positives); where they report an
// error, it must be the one the runs report (`dma-protocol` messages map to
// run-time codes: static_code()). The summary counts the deliberate bugs
// caught statically and those left to the run. The compile cache makes the runs
// after the first cheap: DMA mode and program order are run-time flags of
// the compiled harness (src/driver/run.cpp), so one program compiles once.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "kd_gen.h"
#include "npy.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using kdt::gen::Array;
using kdt::gen::Program;

struct Options {
  std::string kdt;
  uint64_t first = 0;
  uint64_t count = 0;
  std::string keep;
  bool check_only = false;
  bool deliberate_only = false;
  bool print = false;
};

// Runs argv with stdout and stderr into `log`; returns the exit status.
int run(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return 127;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string without_spaces(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') out += c;
  }
  return out;
}

bool is_nan(const std::string& dtype, const uint8_t* p) {
  auto le = [&](int n) {
    uint64_t v = 0;
    for (int i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
  };
  if (dtype == "f16") return (le(2) & 0x7C00) == 0x7C00 && (le(2) & 0x03FF);
  if (dtype == "bf16") return (le(2) & 0x7F80) == 0x7F80 && (le(2) & 0x007F);
  if (dtype == "f32") return (le(4) & 0x7F800000u) == 0x7F800000u && (le(4) & 0x007FFFFFu);
  if (dtype == "f64") {
    return (le(8) & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (le(8) & 0x000FFFFFFFFFFFFFull);
  }
  return false;
}

int element_size(const std::string& dtype) {
  if (dtype == "bool" || dtype == "i8" || dtype == "u8") return 1;
  if (dtype == "i16" || dtype == "u16" || dtype == "f16" || dtype == "bf16") return 2;
  if (dtype == "i32" || dtype == "u32" || dtype == "f32") return 4;
  return 8;
}

std::string hex_of(const uint8_t* p, int n) {
  std::string s = "0x";
  char buf[4];
  for (int i = n; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%02x", p[i]);
    s += buf;
  }
  return s;
}

// Empty when `got` matches `want`, else a description of the first difference.
std::string compare(const Array& want, const std::string& path) {
  kdt::gen::NpyArray got;
  std::string error;
  if (!kdt::gen::read_npy(path, got, error)) return error;
  if (got.shape != want.shape) return "shape differs";
  if (got.bytes.size() != want.bytes.size()) return "size differs";
  const int size = element_size(want.dtype);
  for (size_t i = 0; i < want.bytes.size(); i += static_cast<size_t>(size)) {
    if (std::memcmp(&got.bytes[i], &want.bytes[i], static_cast<size_t>(size)) == 0) continue;
    if (is_nan(want.dtype, &got.bytes[i]) && is_nan(want.dtype, &want.bytes[i])) continue;
    // Flat index -> coordinates.
    int64_t flat = static_cast<int64_t>(i) / size;
    std::string coords;
    for (size_t d = want.shape.size(); d-- > 0;) {
      coords = std::to_string(flat % want.shape[d]) + (coords.empty() ? "" : ", ") + coords;
      flat /= want.shape[d];
    }
    return "first difference at [" + coords + "]: kdt " + hex_of(&got.bytes[i], size) + ", model " +
           hex_of(&want.bytes[i], size) + " (" + want.dtype + ")";
  }
  return "";
}

// The run-time code a `dma-protocol` message stands for (its wording is
// src/analysis/dma_protocol.cpp's).
std::string static_code(const std::string& message) {
  if (message.find("in-flight DMA") != std::string::npos) return "race";
  if (message.find("has no DMA to retire") != std::string::npos || message.find("never returns") != std::string::npos) {
    return "deadlock";
  }
  if (message.find("this wait is for") != std::string::npos) return "dma-wait-mismatch";
  return "semaphore-leak";
}

// The errors of a JSON diagnostics document as run-time codes: each
// `dma-protocol` message mapped by static_code(), "?" for any other code.
// Warnings (`unused-binding`) and notes do not count.
std::vector<std::string> static_codes(const std::string& json_text) {
  std::vector<std::string> out;
  auto value_after = [&](const std::string& key, size_t from) {
    const size_t at = json_text.find("\"" + key + "\": \"", from);
    if (at == std::string::npos) return std::string();
    const size_t begin = at + key.size() + 5;
    return json_text.substr(begin, json_text.find('"', begin) - begin);
  };
  const std::string error = "\"kind\": \"error\"";
  for (size_t at = json_text.find(error); at != std::string::npos; at = json_text.find(error, at + 1)) {
    const std::string code = value_after("code", at);
    out.push_back(code == "dma-protocol" ? static_code(value_after("message", at)) : "?");
  }
  return out;
}

bool parse(int argc, char** argv, Options& o) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--keep" && i + 1 < argc) o.keep = argv[++i];
    else if (a == "--check-only") o.check_only = true;
    else if (a == "--deliberate-only") o.deliberate_only = true;
    else if (a == "--print") o.print = true;
    else positional.push_back(a);
  }
  if (positional.size() != 3) return false;
  o.kdt = positional[0];
  o.first = std::stoull(positional[1]);
  o.count = std::stoull(positional[2]);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse(argc, argv, opt)) {
    std::cerr << "usage: kdt_difftest KDT_BINARY FIRST_SEED COUNT [--keep DIR] [--check-only] [--deliberate-only] "
                 "[--print]\n";
    return 2;
  }
  if (opt.kdt.find('/') == std::string::npos) opt.kdt = "./" + opt.kdt;
  std::string work = opt.keep;
  if (work.empty()) {
    char tmpl[] = "/tmp/kdt-difftest-XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::perror("mkdtemp");
      return 2;
    }
    work = tmpl;
  }
  fs::create_directories(work);
  if (const char* c = std::getenv("KDT_CACHE_DIR"); !c || !*c) setenv("KDT_CACHE_DIR", (work + "/cache").c_str(), 1);

  const auto began = std::chrono::steady_clock::now();
  uint64_t programs = 0, racy = 0, buggy = 0, caught_statically = 0, runs = 0, mismatches = 0, generator_errors = 0;
  const std::vector<std::string> modes = {"on_wait", "eager"};
  const std::vector<std::pair<std::string, std::string>> orders = {
      {"forward", "0"}, {"reverse", "0"}, {"shuffle", "1"}, {"shuffle", "2"}};
  for (uint64_t seed = opt.first; seed < opt.first + opt.count; ++seed) {
    Program p;
    try {
      kdt::gen::Choices choices(seed);
      p = kdt::gen::generate(choices);
    } catch (const std::exception& e) {
      std::cout << "seed " << seed << ": generator error: " << e.what() << "\n";
      ++generator_errors;
      continue;
    }
    ++programs;
    racy += p.racy;
    buggy += !p.bug.empty();
    // What every run must report: nothing, `race` or the protocol bug's code.
    const std::string expected_code = p.racy ? "race" : p.bug;
    const std::string what = p.racy ? " (racy)" : p.bug.empty() ? "" : " (" + p.bug + " on purpose)";
    if (opt.print) std::cout << "// seed " << seed << what << "\n" << p.source;
    const std::string dir = work + "/seed-" + std::to_string(seed);
    fs::create_directories(dir);
    const std::string kd = dir + "/generated.kd";
    std::ofstream(kd) << "// kdt_difftest seed " << seed << what << "\n" << p.source;
    bool failed = false;
    const std::string check_json = dir + "/check.json";
    const int checked = run({opt.kdt, "--emit=check", "--diagnostics-format=json", "--diagnostics-file=" + check_json, kd},
                            dir + "/check.log");
    if (checked != 0) {
      // Only a deliberate bug may fail the check, only as `dma-protocol`,
      // and only as the bug the runs report.
      const std::vector<std::string> found = static_codes(read_text(check_json));
      bool confirmed = checked == 1 && !expected_code.empty() && !found.empty();
      for (const std::string& code : found) confirmed = confirmed && code == expected_code;
      if (confirmed) {
        ++caught_statically;
      } else {
        std::cout << "seed " << seed << ": kdt --emit=check " << kd << " exited " << checked << ":\n"
                  << read_text(check_json) << read_text(dir + "/check.log");
        failed = true;
      }
    }
    std::vector<std::string> input_args;
    for (const Array& a : p.inputs) {
      const std::string path = dir + "/" + a.name + ".npy";
      kdt::gen::write_npy(path, kdt::gen::npy_descr(a.dtype), a.shape, a.bytes);
      input_args.push_back("--input");
      input_args.push_back(a.name + "=" + path);
    }
    const bool run_it = !opt.check_only && !(opt.deliberate_only && expected_code.empty());
    for (size_t m = 0; !failed && run_it && m < modes.size(); ++m) {
      for (size_t o = 0; !failed && o < orders.size(); ++o) {
        const std::string tag = modes[m] + "-" + orders[o].first + orders[o].second;
        const std::string out = dir + "/out-" + tag, diag = dir + "/diag-" + tag + ".json";
        std::vector<std::string> args = {opt.kdt, "run", kd, "--random-all", "--output-dir", out, "--dma-mode=" + modes[m],
                                         "--program-order=" + orders[o].first, "--seed", orders[o].second,
                                         "--diagnostics-format=json", "--diagnostics-file=" + diag};
        // The run-time checks must find a deliberate bug whatever the static ones say.
        if (!expected_code.empty()) args.push_back("--no-static-dma-checks");
        args.insert(args.end(), input_args.begin(), input_args.end());
        const int status = run(args, dir + "/run-" + tag + ".log");
        ++runs;
        std::string problem;
        if (!expected_code.empty()) {
          const std::string d = without_spaces(read_text(diag));
          if (status != 1 || d.find("\"code\":\"" + expected_code + "\"") == std::string::npos) {
            problem = "expected a `" + expected_code + "` diagnostic, got exit " + std::to_string(status) + " and " +
                      read_text(diag);
          }
        } else if (status != 0) {
          problem = "kdt run exited " + std::to_string(status) + ": " + read_text(diag) + read_text(dir + "/run-" + tag + ".log");
        } else {
          for (const Array& want : p.expected) {
            const std::string diff = compare(want, out + "/" + want.name + ".npy");
            if (!diff.empty()) {
              problem = "output `" + want.name + "`: " + diff;
              break;
            }
          }
        }
        if (!problem.empty()) {
          std::cout << "seed " << seed << ": MISMATCH in " << kd << "\n  flags: --dma-mode=" << modes[m]
                    << " --program-order=" << orders[o].first << " --seed " << orders[o].second << "\n  "
                    << problem << "\n";
          failed = true;
        }
      }
    }
    if (failed) {
      ++mismatches;
    } else if (opt.keep.empty()) {
      fs::remove_all(dir);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::cout << "kdt_difftest: seeds " << opt.first << ".." << opt.first + opt.count - 1 << ": " << programs
            << " programs (" << racy << " racy, " << buggy << " with a protocol bug; " << caught_statically
            << " of those " << racy + buggy << " caught by the static checks, the rest at run time), "
            << programs - racy - buggy << " clean under the static checks, " << runs << " runs, " << mismatches
            << " mismatches, " << generator_errors << " generator errors, " << static_cast<int>(seconds) << " s\n";
  if (opt.keep.empty() && mismatches == 0 && generator_errors == 0) fs::remove_all(work);
  return mismatches == 0 && generator_errors == 0 ? 0 : 1;
}
