// kdt_harness.h - the optional main() of emitted C++ (`--harness`, `kdt run`):
// its arguments, .npy inputs and outputs, scalars, and the failure report
// `kdt run` reads. Included (embedded) after kdt_exec.h.
//
// Nothing is made up silently: every `in`/`inout` ref and every scalar needs
// an --input, unless --random NAME or --random-all asks for generated data;
// names that are not parameters, repeated inputs and scalars that do not fit
// their dtype exactly are errors naming the parameter. Outputs go to
// temporary files in the output directory (created, never opened through an
// existing name) and are renamed into place only after the kernel succeeded.
#ifndef KDT_RUNTIME_KDT_HARNESS_H
#define KDT_RUNTIME_KDT_HARNESS_H

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "kdt_api.h"
#include "kdt_exec.h"

namespace kdt_rt {

// ---------------------------------------------------------------------------
// Harness support (used by `--harness` and `kdt run`).
// ---------------------------------------------------------------------------
KDT_RT_API std::string json_escape(const std::string& s);

// One line on stderr for a person, and one JSON line for `kdt run`.
KDT_RT_API void report_failure(const RunError& failure, const char* json_path);

// A failure with a note at each call of an expanded function on the way out.
KDT_RT_API RunError with_call_notes(const RunError& failure);

// The failure as one JSON object: code, message, file, line, column,
// begin, end (byte offsets) and notes (each message, file, line, column,
// begin, end). `kdt run` reads it back; the C ABI and the XLA FFI handlers
// hand it to their callers (docs/c-api.md).
KDT_RT_API std::string failure_json(const RunError& failure);

// A parameter as the harness sees it: what it needs from the command line.
enum class HarnessParamKind { In, Inout, Out, Scalar };
struct HarnessParam {
  const char* name;  // the KD name, as --input and the .npy files spell it
  HarnessParamKind kind;
};

// The storage of a ref parameter: contiguous elements of T (not a
// std::vector, which has no data() for bool), value-initialised.
template <class T>
class HarnessBuffer {
 public:
  void assign(size_t count) {
    data_.reset(new T[count > 0 ? count : 1]());
    size_ = count;
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<T[]> data_;
  size_t size_ = 0;
};

// An output written to its temporary file, waiting to be renamed.
struct PendingOutput {
  std::string temp;
  std::string path;
};

struct HarnessArgs {
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<std::string> random;  // --random NAME
  bool random_all = false;          // --random-all
  std::string output_dir = ".";
  std::string diag_json;
  std::string temp_tag;             // --temp-tag: names the output temporaries (kdt run passes one)
  RunOptions run;
  std::vector<std::string> generated;  // parameters filled from the generator, for the summary
  std::deque<PendingOutput> pending;  // a deque: registered temp names must not move
};

namespace detail {

KDT_RT_API bool harness_error(const std::string& message);

KDT_RT_API bool names_contain(const std::vector<std::string>& names, const std::string& name);

// The output temporaries of this process, removed by a terminating signal
// (SIGINT, SIGTERM, SIGHUP) before the harness dies of it. Fixed slots: a
// signal handler may only read memory that is already there.
constexpr int kMaxTempSlots = 256;
inline std::atomic<const char*>* temp_slots() {
  static std::atomic<const char*> slots[kMaxTempSlots];
  return slots;
}

KDT_RT_API void harness_on_signal(int sig);

inline void register_temp(const char* path) {
  static bool installed = false;
  if (!installed) {
    installed = true;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old;
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      struct sigaction sa;
      std::memset(&sa, 0, sizeof sa);
      sa.sa_handler = harness_on_signal;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  }
  std::atomic<const char*>* slots = temp_slots();
  for (int i = 0; i < kMaxTempSlots; ++i) {
    const char* expected = nullptr;
    if (slots[i].compare_exchange_strong(expected, path)) return;
  }
}

KDT_RT_API void unregister_temp(const char* path);

KDT_RT_API bool write_all_fd(int fd, const void* data, size_t bytes);

KDT_RT_API std::string shape_text(const std::vector<uint64_t>& shape);

}  // namespace detail

// The harness's command line: --input NAME=PATH|VALUE, --random NAME,
// --random-all, --output-dir, --seed, --dma-mode, --dma-order, --program-order,
// --jobs (default: the cores this process may run on),
// --diag-json (kdt run's failure report), --temp-tag.
KDT_RT_API bool parse_harness_args(int argc, char** argv, HarnessArgs& out);

// Checks the command line against the kernel's parameters: every --input and
// --random names a parameter that reads its value, no parameter has both,
// and every one that reads a value has one of them (or --random-all).
KDT_RT_API bool check_harness_params(HarnessArgs& args, std::initializer_list<HarnessParam> params);

KDT_RT_API const std::string* find_input(const HarnessArgs& args, const char* name);

// The seed of parameter number `param_index`'s generated data.
KDT_RT_API uint64_t input_seed(const HarnessArgs& args, uint64_t param_index);

// Loads `in`/`inout` parameter `name` from its .npy file, or fills it from
// the seeded generator when --random asked for it. Returns false (with a
// message) for a file of the wrong dtype or shape; the data is not read
// then, so a header cannot make the harness read or allocate more than the
// parameter holds. harness_input_source does all but the typed copy.
enum class InputSource { Failed, File, Generated };
KDT_RT_API InputSource harness_input_source(HarnessArgs& args, const char* name, const char* kd_dtype,
                                            const std::vector<uint64_t>& shape, NpyArray& file);
template <class T>
inline bool harness_input(HarnessArgs& args, const char* name, const char* kd_dtype,
                          const std::vector<uint64_t>& shape, HarnessBuffer<T>& data, uint64_t param_index) {
  size_t count = 1;
  for (uint64_t d : shape) count *= static_cast<size_t>(d);
  NpyArray a;
  const InputSource source = harness_input_source(args, name, kd_dtype, shape, a);
  if (source == InputSource::Failed) return false;
  data.assign(count);
  if (source == InputSource::Generated) {
    fill_random(data.data(), count, input_seed(args, param_index));
  } else if constexpr (std::is_same<T, bool>::value) {
    // Any nonzero byte is true: a bool object must hold 0 or 1.
    for (size_t i = 0; i < count; ++i) data.data()[i] = a.data[i] != 0;
  } else if (count > 0) {
    std::memcpy(static_cast<void*>(data.data()), a.data.data(), count * sizeof(T));
  }
  return true;
}

// An `out` parameter: it reads nothing and starts zero-filled (the kernel
// must write it; with checks on, reading it first is `uninitialized-read`).
template <class T>
inline void harness_out_buffer(const std::vector<uint64_t>& shape, HarnessBuffer<T>& data) {
  size_t count = 1;
  for (uint64_t d : shape) count *= static_cast<size_t>(d);
  data.assign(count);
}

namespace detail {

// The exact value of a scalar's text, or why it has none: integers in
// decimal or 0x hexadecimal within the dtype's range (no fraction, no
// rounding, no wrapping), floats as strtod reads them within the dtype's
// range (inf and nan when spelt so), bool as true/false/1/0.
template <class T>
inline bool parse_scalar_text(const std::string& text, T& value, std::string& why) {
  if constexpr (std::is_same<T, bool>::value) {
    if (text == "true" || text == "True" || text == "1") {
      value = true;
    } else if (text == "false" || text == "False" || text == "0") {
      value = false;
    } else {
      why = "is not a bool (true, false, 1 or 0)";
      return false;
    }
    return true;
  } else if constexpr (is_kd_int<T>::value) {
    size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
    unsigned base = 10;
    if (i + 1 < text.size() && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
      base = 16;
      i += 2;
    }
    if (i == text.size()) {
      why = "is not an integer";
      return false;
    }
    uint64_t magnitude = 0;
    bool overflow = false;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      unsigned digit;
      if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
      else if (base == 16 && c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
      else if (base == 16 && c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
      else {
        why = "is not an integer";
        return false;
      }
      if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / base) overflow = true;
      else magnitude = magnitude * base + digit;
    }
    const uint64_t max = static_cast<uint64_t>(std::numeric_limits<T>::max());
    const uint64_t min_magnitude =
        std::is_signed<T>::value ? max + 1 : 0;  // |min|: 2^(bits-1) for signed types, 0 for unsigned
    if (overflow || (!negative && magnitude > max) || (negative && magnitude > min_magnitude)) {
      why = "is out of range (" + std::to_string(+std::numeric_limits<T>::min()) + " to " +
            std::to_string(+std::numeric_limits<T>::max()) + ")";
      return false;
    }
    value = from_unsigned<T>(negative ? uint64_t{0} - magnitude : magnitude);
    return true;
  } else {
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(begin, &end);
    if (text.empty() || end != begin + text.size() || std::isspace(static_cast<unsigned char>(text[0]))) {
      why = "is not a number";
      return false;
    }
    const bool overflow = std::isinf(d) && errno == ERANGE;
    T v = convert<T>(d);
    if (overflow || (std::isfinite(d) && std::isinf(float_to_f64(v)))) {
      why = "is out of range for the dtype";
      return false;
    }
    value = v;
    return true;
  }
}

}  // namespace detail

template <class T>
inline bool harness_scalar(HarnessArgs& args, const char* name, const char* kd_dtype, T& value,
                           uint64_t param_index) {
  const std::string* text = find_input(args, name);
  if (!text) {
    if (!args.random_all && !detail::names_contain(args.random, name)) {
      return detail::harness_error(std::string("no input for scalar `") + name + "`: give --input " + name +
                                   "=VALUE, or --random " + name + " for a generated value");
    }
    fill_random(&value, 1, input_seed(args, param_index));
    args.generated.push_back(name);
    return true;
  }
  std::string why;
  if (!detail::parse_scalar_text(*text, value, why)) {
    return detail::harness_error(std::string("scalar input '") + name + "' (" + kd_dtype + "): '" + *text + "' " + why);
  }
  return true;
}

// Writes `size` bytes of an output to a temporary file next to
// DIR/NAME.npy (created with O_EXCL: an existing name, a symlink included,
// is never opened) and prints the output's summary line;
// harness_commit_outputs renames it into place.
KDT_RT_API bool harness_output_bytes(HarnessArgs& args, const char* name, const char* kd_dtype,
                                     const std::vector<uint64_t>& shape, const void* bytes, size_t size);
template <class T>
inline bool harness_output(HarnessArgs& args, const char* name, const char* kd_dtype,
                           const std::vector<uint64_t>& shape, const HarnessBuffer<T>& data) {
  return harness_output_bytes(args, name, kd_dtype, shape, data.data(), data.size() * sizeof(T));
}

// Removes the temporaries of outputs not renamed (after a failure).
KDT_RT_API void harness_discard_outputs(HarnessArgs& args);

// Renames every written output into place (rename replaces a symlink at
// DIR/NAME.npy instead of writing through it).
KDT_RT_API bool harness_commit_outputs(HarnessArgs& args);

// The summary line naming the parameters filled from the generator.
KDT_RT_API void print_generated(const HarnessArgs& args);

// ---------------------------------------------------------------------------
// Definitions of the functions declared KDT_RT_API above: inline in a
// self-contained file, compiled once into `kdt run`'s runtime library,
// and left out of a kernel that links that library (kdt_api.h).
// ---------------------------------------------------------------------------
#if !defined(KDT_RT_SEPARATE)

KDT_RT_API std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

KDT_RT_API RunError with_call_notes(const RunError& failure) {
  RunError e = failure;
  for (const CallSite* c = e.loc.call; c; c = c->at.call) {
    e.notes.emplace_back(std::string("in the call of `") + c->function + "` here", c->at);
  }
  return e;
}

KDT_RT_API std::string failure_json(const RunError& failure) {
  auto at = [](const SourceLoc& loc) {
    return "\"file\": \"" + json_escape(loc.file ? loc.file : "") + "\", \"line\": " + std::to_string(loc.line) +
           ", \"column\": " + std::to_string(loc.column) + ", \"begin\": " + std::to_string(loc.begin) +
           ", \"end\": " + std::to_string(loc.end);
  };
  std::string out = std::string("{\"code\": \"") + failure.code.name() + "\", \"message\": \"" +
                    json_escape(failure.message) + "\", " + at(failure.loc) + ", \"notes\": [";
  for (size_t i = 0; i < failure.notes.size(); ++i) {
    out += std::string(i ? ", " : "") + "{\"message\": \"" + json_escape(failure.notes[i].first) + "\", " +
           at(failure.notes[i].second) + "}";
  }
  return out + "]}";
}

KDT_RT_API void report_failure(const RunError& failure, const char* json_path) {
  // A failure inside an expanded function gets a note at each call on the way out.
  const RunError e = with_call_notes(failure);
  std::fprintf(stderr, "%s:%d:%d: error: %s [%s]\n", e.loc.file, e.loc.line, e.loc.column, e.message.c_str(),
               e.code.name());
  for (const auto& [message, loc] : e.notes) {
    std::fprintf(stderr, "%s:%d:%d: note: %s\n", loc.file, loc.line, loc.column, message.c_str());
  }
  if (!json_path || !*json_path) return;
  std::FILE* f = std::fopen(json_path, "w");
  if (!f) return;
  std::fprintf(f, "%s\n", failure_json(e).c_str());
  std::fclose(f);
}

KDT_RT_API bool detail::harness_error(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return false;
}

KDT_RT_API bool detail::names_contain(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

KDT_RT_API void detail::harness_on_signal(int sig) {
  std::atomic<const char*>* slots = temp_slots();
  for (int i = 0; i < kMaxTempSlots; ++i) {
    if (const char* p = slots[i].load()) ::unlink(p);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

KDT_RT_API void detail::unregister_temp(const char* path) {
  std::atomic<const char*>* slots = temp_slots();
  for (int i = 0; i < kMaxTempSlots; ++i) {
    const char* expected = path;
    if (slots[i].compare_exchange_strong(expected, nullptr)) return;
  }
}

KDT_RT_API bool detail::write_all_fd(int fd, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    bytes -= static_cast<size_t>(n);
  }
  return true;
}

KDT_RT_API std::string detail::shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

KDT_RT_API bool parse_harness_args(int argc, char** argv, HarnessArgs& out) {
  out.run.jobs = available_cores();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool missing = false;
    auto value = [&](const char* flag, std::string& into) {
      std::string prefix = std::string(flag) + "=";
      if (a.rfind(prefix, 0) == 0) {
        into = a.substr(prefix.size());
        return true;
      }
      if (a == flag) {
        if (i + 1 >= argc) {
          missing = true;
          return false;
        }
        into = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (value("--input", v)) {
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) {
        return detail::harness_error("--input expects NAME=PATH.npy or NAME=VALUE, got '" + v + "'");
      }
      std::string name = v.substr(0, eq);
      for (const auto& [n, unused] : out.inputs) {
        if (n == name) return detail::harness_error("--input " + name + " is given twice");
      }
      out.inputs.emplace_back(name, v.substr(eq + 1));
    } else if (value("--random", v)) {
      if (detail::names_contain(out.random, v)) return detail::harness_error("--random " + v + " is given twice");
      out.random.push_back(v);
    } else if (a == "--random-all") {
      out.random_all = true;
    } else if (value("--output-dir", v)) {
      out.output_dir = v;
    } else if (value("--diag-json", v)) {
      out.diag_json = v;
    } else if (value("--temp-tag", v)) {
      out.temp_tag = v;
    } else if (value("--seed", v)) {
      char* end = nullptr;
      errno = 0;
      out.run.seed = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end || errno != 0 || v[0] == '-') {
        return detail::harness_error("--seed expects a whole number, got '" + v + "'");
      }
    } else if (value("--dma-mode", v)) {
      if (v != "eager" && v != "on_wait") return detail::harness_error("--dma-mode expects eager or on_wait");
      out.run.eager_dma = v == "eager";
    } else if (value("--dma-order", v)) {
      if (v != "fifo" && v != "lifo" && v != "shuffle") {
        return detail::harness_error("--dma-order expects fifo, lifo or shuffle");
      }
      out.run.dma_order = v == "lifo" ? 1 : v == "shuffle" ? 2 : 0;
    } else if (value("--program-order", v)) {
      if (v != "forward" && v != "reverse" && v != "shuffle") {
        return detail::harness_error("--program-order expects forward, reverse or shuffle");
      }
      out.run.program_order = v == "reverse" ? 1 : v == "shuffle" ? 2 : 0;
    } else if (value("--jobs", v)) {
      char* end = nullptr;
      errno = 0;
      long jobs = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || errno != 0 || jobs < 1 || jobs > 4096) {
        return detail::harness_error("--jobs expects a number of threads from 1 to 4096, got '" + v + "'");
      }
      out.run.jobs = static_cast<int>(jobs);
    } else if (missing) {
      return detail::harness_error(a + " needs a value");
    } else {
      return detail::harness_error("unknown argument '" + a + "'");
    }
  }
  return true;
}

KDT_RT_API bool check_harness_params(HarnessArgs& args, std::initializer_list<HarnessParam> params) {
  auto find = [&](const std::string& name) -> const HarnessParam* {
    for (const HarnessParam& p : params) {
      if (name == p.name) return &p;
    }
    return nullptr;
  };
  auto known = [&]() {
    std::string list;
    for (const HarnessParam& p : params) list += std::string(list.empty() ? "" : ", ") + p.name;
    return list.empty() ? std::string("it has none") : "its parameters: " + list;
  };
  auto check = [&](const char* flag, const std::string& name) {
    const HarnessParam* p = find(name);
    if (!p) return detail::harness_error(std::string(flag) + " " + name + ": the kernel has no parameter `" + name + "` (" + known() + ")");
    if (p->kind == HarnessParamKind::Out) {
      return detail::harness_error(std::string(flag) + " " + name + ": `" + name +
                                   "` is an `out` parameter, written by the kernel and not read; it takes no input");
    }
    return true;
  };
  for (const auto& [name, unused] : args.inputs) {
    if (!check("--input", name)) return false;
  }
  for (const std::string& name : args.random) {
    if (!check("--random", name)) return false;
    for (const auto& [n, unused] : args.inputs) {
      if (n == name) return detail::harness_error("`" + name + "` has both --input and --random; give one of them");
    }
  }
  std::string missing;
  for (const HarnessParam& p : params) {
    if (p.kind == HarnessParamKind::Out || args.random_all || detail::names_contain(args.random, p.name)) continue;
    bool given = false;
    for (const auto& [n, unused] : args.inputs) given = given || n == p.name;
    if (!given) missing += std::string(missing.empty() ? "" : ", ") + "`" + p.name + "`";
  }
  if (!missing.empty()) {
    return detail::harness_error("no input for " + missing +
                                 ": give --input NAME=PATH.npy (NAME=VALUE for a scalar), or --random NAME or "
                                 "--random-all for generated data");
  }
  return true;
}

KDT_RT_API const std::string* find_input(const HarnessArgs& args, const char* name) {
  for (const auto& [n, v] : args.inputs) {
    if (n == name) return &v;
  }
  return nullptr;
}

KDT_RT_API uint64_t input_seed(const HarnessArgs& args, uint64_t param_index) {
  return args.run.seed * 0x9E3779B97F4A7C15ULL + param_index + 1;
}

KDT_RT_API void harness_discard_outputs(HarnessArgs& args) {
  for (const PendingOutput& p : args.pending) {
    ::unlink(p.temp.c_str());
    detail::unregister_temp(p.temp.c_str());
  }
  args.pending.clear();
}

KDT_RT_API bool harness_commit_outputs(HarnessArgs& args) {
  while (!args.pending.empty()) {
    const PendingOutput& p = args.pending.front();
    if (std::rename(p.temp.c_str(), p.path.c_str()) != 0) {
      const int saved = errno;
      const std::string path = p.path;
      harness_discard_outputs(args);
      return detail::harness_error("cannot write " + path + ": " + std::strerror(saved));
    }
    detail::unregister_temp(p.temp.c_str());
    args.pending.pop_front();
  }
  std::fflush(stdout);
  return true;
}

KDT_RT_API void print_generated(const HarnessArgs& args) {
  if (args.generated.empty()) return;
  std::string names;
  for (const std::string& n : args.generated) names += (names.empty() ? "" : ", ") + n;
  std::printf("generated inputs (seed %llu): %s\n", static_cast<unsigned long long>(args.run.seed), names.c_str());
}

KDT_RT_API InputSource harness_input_source(HarnessArgs& args, const char* name, const char* kd_dtype,
                                            const std::vector<uint64_t>& shape, NpyArray& file) {
  const std::string* path = find_input(args, name);
  if (!path) {
    if (!args.random_all && !detail::names_contain(args.random, name)) {
      detail::harness_error(std::string("no input for `") + name + "`: give --input " + name +
                            "=PATH.npy, or --random " + name + " for generated data");
      return InputSource::Failed;
    }
    args.generated.push_back(name);
    return InputSource::Generated;
  }
  std::string error;
  std::string mismatch;
  auto accept = [&](const NpyHeader& h) {
    if (!npy_descr_accepts(kd_dtype, h.descr)) {
      mismatch = std::string("input '") + name + "' (" + *path + "): the file holds dtype '" + h.descr +
                 "', but the parameter is " + kd_dtype + " (expected '" + npy_descr_for(kd_dtype) + "')";
      return false;
    }
    if (h.shape != shape) {
      mismatch = std::string("input '") + name + "' (" + *path + "): the file has shape " +
                 detail::shape_text(h.shape) + ", but the parameter needs " + detail::shape_text(shape);
      return false;
    }
    return true;
  };
  if (!npy_read(*path, file, error, accept)) {
    detail::harness_error(!mismatch.empty() ? mismatch : std::string("input '") + name + "': " + error);
    return InputSource::Failed;
  }
  return InputSource::File;
}

KDT_RT_API bool harness_output_bytes(HarnessArgs& args, const char* name, const char* kd_dtype,
                                     const std::vector<uint64_t>& shape, const void* bytes, size_t size) {
  PendingOutput out;
  out.path = args.output_dir + "/" + name + ".npy";
  std::string header, error;
  if (!npy_header(npy_descr_for(kd_dtype), shape, size, header, error)) {
    return detail::harness_error(std::string("output '") + name + "': " + error);
  }
  const bool tagged = !args.temp_tag.empty();
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    std::string tag = tagged ? args.temp_tag : std::to_string(::getpid()) + (attempt ? "-" + std::to_string(attempt) : "");
    out.temp = args.output_dir + "/." + name + ".npy.kdt-" + tag;
    fd = ::open(out.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || tagged)) break;
  }
  if (fd < 0) {
    return detail::harness_error(std::string("output '") + name + "': cannot create " + out.temp + ": " +
                                 std::strerror(errno));
  }
  args.pending.push_back(out);
  detail::register_temp(args.pending.back().temp.c_str());
  bool ok = detail::write_all_fd(fd, header.data(), header.size()) &&
            detail::write_all_fd(fd, bytes, size);
  const int saved = errno;
  ok = ::close(fd) == 0 && ok;
  if (!ok) {
    return detail::harness_error(std::string("output '") + name + "': cannot write " + out.temp + ": " +
                                 std::strerror(saved ? saved : errno));
  }
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  std::printf("output %s: %s[%s] checksum %016llx\n", name, kd_dtype, dims.c_str(),
              static_cast<unsigned long long>(fnv1a64(bytes, size)));
  return true;
}

#endif  // !KDT_RT_SEPARATE

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_HARNESS_H
