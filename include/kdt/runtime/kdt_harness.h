// kdt_harness.h - the optional main() of emitted C++ (`--harness`, `kdt run`):
// its arguments, .npy inputs and outputs, scalars, and the failure report
// `kdt run` reads. Included (embedded) after kdt_exec.h.
#ifndef KDT_RUNTIME_KDT_HARNESS_H
#define KDT_RUNTIME_KDT_HARNESS_H

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kdt_exec.h"

namespace kdt_rt {

// ---------------------------------------------------------------------------
// Harness support (used by `--harness` and `kdt run`).
// ---------------------------------------------------------------------------
inline std::string json_escape(const std::string& s) {
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

// One line on stderr for a person, and one JSON line for `kdt run`.
inline void report_failure(const RunError& e, const char* json_path) {
  std::fprintf(stderr, "%s:%d:%d: error: %s [%s]\n", e.loc.file, e.loc.line, e.loc.column, e.message.c_str(),
               e.code.c_str());
  for (const auto& [message, loc] : e.notes) {
    std::fprintf(stderr, "%s:%d:%d: note: %s\n", loc.file, loc.line, loc.column, message.c_str());
  }
  if (!json_path || !*json_path) return;
  std::FILE* f = std::fopen(json_path, "w");
  if (!f) return;
  std::fprintf(f, "{\"code\": \"%s\", \"message\": \"%s\", \"begin\": %u, \"end\": %u, \"notes\": [", e.code.c_str(),
               json_escape(e.message).c_str(), e.loc.begin, e.loc.end);
  for (size_t i = 0; i < e.notes.size(); ++i) {
    std::fprintf(f, "%s{\"message\": \"%s\", \"begin\": %u, \"end\": %u}", i ? ", " : "",
                 json_escape(e.notes[i].first).c_str(), e.notes[i].second.begin, e.notes[i].second.end);
  }
  std::fprintf(f, "]}\n");
  std::fclose(f);
}

struct HarnessArgs {
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string output_dir = ".";
  std::string diag_json;
  RunOptions run;
};

inline bool parse_harness_args(int argc, char** argv, HarnessArgs& out) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag, std::string& into) {
      std::string prefix = std::string(flag) + "=";
      if (a.rfind(prefix, 0) == 0) {
        into = a.substr(prefix.size());
        return true;
      }
      if (a == flag && i + 1 < argc) {
        into = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (value("--input", v)) {
      size_t eq = v.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "error: --input expects NAME=PATH or NAME=VALUE\n");
        return false;
      }
      out.inputs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (value("--output-dir", v)) {
      out.output_dir = v;
    } else if (value("--diag-json", v)) {
      out.diag_json = v;
    } else if (value("--seed", v)) {
      out.run.seed = std::strtoull(v.c_str(), nullptr, 0);
    } else if (value("--dma-mode", v)) {
      out.run.eager_dma = v == "eager";
    } else if (value("--program-order", v)) {
      out.run.program_order = v == "reverse" ? 1 : v == "shuffle" ? 2 : 0;
    } else {
      std::fprintf(stderr, "error: unknown argument '%s'\n", a.c_str());
      return false;
    }
  }
  return true;
}

inline const std::string* find_input(const HarnessArgs& args, const char* name) {
  for (const auto& [n, v] : args.inputs) {
    if (n == name) return &v;
  }
  return nullptr;
}

// Loads parameter `name` from its .npy file, or fills it from the seeded
// generator. Returns false (with a message) for a file of the wrong dtype
// or shape.
template <class T>
inline bool harness_input(const HarnessArgs& args, const char* name, const char* kd_dtype,
                          const std::vector<uint64_t>& shape, std::vector<T>& data, uint64_t param_index) {
  size_t count = 1;
  for (uint64_t d : shape) count *= static_cast<size_t>(d);
  data.assign(count, T{});
  const std::string* path = find_input(args, name);
  if (!path) {
    fill_random(data.data(), count, args.run.seed * 0x9E3779B97F4A7C15ULL + param_index + 1);
    return true;
  }
  NpyArray a;
  std::string error;
  if (!npy_read(*path, a, error)) {
    std::fprintf(stderr, "error: input '%s': %s\n", name, error.c_str());
    return false;
  }
  if (!npy_descr_accepts(kd_dtype, a.descr)) {
    std::fprintf(stderr, "error: input '%s' (%s): the file holds dtype '%s', but the parameter is %s (expected '%s')\n",
                 name, path->c_str(), a.descr.c_str(), kd_dtype, npy_descr_for(kd_dtype));
    return false;
  }
  if (a.shape != shape) {
    std::string want = "(", got = "(";
    for (size_t i = 0; i < shape.size(); ++i) want += (i ? ", " : "") + std::to_string(shape[i]);
    for (size_t i = 0; i < a.shape.size(); ++i) got += (i ? ", " : "") + std::to_string(a.shape[i]);
    std::fprintf(stderr, "error: input '%s' (%s): the file has shape %s), but the parameter needs %s)\n", name,
                 path->c_str(), got.c_str(), want.c_str());
    return false;
  }
  std::memcpy(static_cast<void*>(data.data()), a.data.data(), count * sizeof(T));
  return true;
}

template <class T>
inline bool harness_scalar(const HarnessArgs& args, const char* name, T& value, uint64_t param_index) {
  const std::string* text = find_input(args, name);
  if (!text) {
    fill_random(&value, 1, args.run.seed * 0x9E3779B97F4A7C15ULL + param_index + 1);
    return true;
  }
  char* end = nullptr;
  double v = std::strtod(text->c_str(), &end);
  if (end == text->c_str() || *end) {
    std::fprintf(stderr, "error: scalar input '%s': '%s' is not a number\n", name, text->c_str());
    return false;
  }
  value = convert<T>(v);
  return true;
}

template <class T>
inline bool harness_output(const HarnessArgs& args, const char* name, const char* kd_dtype,
                           const std::vector<uint64_t>& shape, const std::vector<T>& data) {
  std::string path = args.output_dir + "/" + name + ".npy";
  std::string error;
  if (!npy_write(path, npy_descr_for(kd_dtype), shape, data.data(), data.size() * sizeof(T), error)) {
    std::fprintf(stderr, "error: output '%s': %s\n", name, error.c_str());
    return false;
  }
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  std::printf("output %s: %s[%s] checksum %016llx\n", name, kd_dtype, dims.c_str(),
              static_cast<unsigned long long>(fnv1a64(data.data(), data.size() * sizeof(T))));
  return true;
}

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_HARNESS_H
