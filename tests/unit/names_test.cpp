// KD names that are C++ keywords, CUDA built-ins, or spellings the emitters
// use for themselves still give C++ (and CUDA) that compiles, and `kdt run`
// keeps the KD spelling for .npy files and --input (ir.h: name / kd_name).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <vector>

#include "test_support.h"

namespace {

using kdt::test::read_text;
using kdt::test::run_kdt;
using kdt::test::shell_quote;
using kdt::test::TempDir;

// Colliding spellings, each used as a kernel name, a ref parameter, a
// scalar parameter and a local.
const std::vector<std::string> kNames = {
    "class", "int",   "new",    "template", "this",     "p",      "s",        "L",       "d",        "e",
    "error", "args",  "argc",   "start",    "ms",       "main",   "stream",   "sync",    "device",   "peers",
    "group", "std",   "int32_t", "threadIdx", "blockIdx", "kdt_tid", "kdt_smem", "kdt_rt", "x_shadow_", "i0_",
    "e0_",   "t_it",  "k_",     "t0",       "f1",       "i2",     "start3",   "dma4",    "asm5_x",   "_Foo",
    "a__b"};

std::string program() {
  std::string kd;
  int n = 0;
  for (const std::string& name : kNames) {
    std::string id = std::to_string(n++);
    kd += "kernel " + name + "(" + name + ": in f32[8] @global, o: out f32[8] @global, " + name + "_in: inout f32[8] @global) grid(2) {\n"
          "    let v = " + name + "[...];\n"
          "    o[...] = v + " + name + "_in[...];\n"
          "}\n"
          "kernel scalar" + id + "(x: in f32[8] @global, o: out f32[8] @global, " + name + ": i32) grid(2) {\n"
          "    scratch sc: f32[8] @shared;\n"
          "    sem sm: dma;\n"
          "    dma_start(x, sc, sm);\n"
          "    dma_wait(sm, sc);\n"
          "    for it in 0..2 { o[...] = sc[...] * f32(" + name + "); }\n"
          "}\n"
          "kernel local" + id + "(x: in f32[8] @global, o: out f32[8] @global) grid(2) {\n"
          "    let " + name + " = x[...] * 2.0;\n"
          "    o[...] = " + name + ";\n"
          "    for j in 0..1 { let " + name + " = x[...] * 3.0; o[...] = " + name + "; }\n"
          "}\n";
  }
  return kd;
}

int sh(const std::string& cmd) {
  int raw = std::system(cmd.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128;
}

// The int32 payload of a little-endian .npy file.
std::vector<int32_t> npy_i32(const std::string& path) {
  std::string bytes = read_text(path);
  size_t data = bytes.find('\n') + 1;
  std::vector<int32_t> v((bytes.size() - data) / 4);
  std::memcpy(v.data(), bytes.data() + data, v.size() * 4);
  return v;
}

}  // namespace

TEST_SUITE("robustness") {
  TEST_CASE("KD names that are C++ keywords or emitter names give C++ that compiles") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("names.kd"), program());
    REQUIRE(run_kdt(shell_quote(tmp.file("names.kd"))).status == 0);
    for (const char* flags : {"", " --no-checks"}) {
      INFO("flags:" << flags);
      REQUIRE(run_kdt("--emit=cpp" + std::string(flags) + " " + shell_quote(tmp.file("names.kd")) + " -o " +
                      shell_quote(tmp.file("names.cpp"))).status == 0);
      CHECK_MESSAGE(sh("c++ -std=c++17 -fsyntax-only " + shell_quote(tmp.file("names.cpp")) + " 2>" +
                       shell_quote(tmp.file("log"))) == 0,
                    read_text(tmp.file("log")).substr(0, 2000));
    }
  }

  TEST_CASE("the IR keeps KD's names; the emitters rename what C++ cannot hold") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"),
                          "kernel class(x: in f32[8] @global, e: out f32[8] @global) grid(1) {\n"
                          "    let int_ = x[...];\n"
                          "    for j in 0..1 { let int_ = x[...] * 2.0; e[...] = int_; }\n"
                          "}\n");
    kdt::test::RunResult ir = run_kdt("--emit=ir " + shell_quote(tmp.file("k.kd")));
    REQUIRE(ir.status == 0);
    for (const char* kd : {"kernel @class", "param %e:", "let %int_ =", "let %int__2 ="}) CHECK_MESSAGE(ir.out.find(kd) != std::string::npos, kd);
    CHECK(ir.out.find("kd_") == std::string::npos);
    kdt::test::RunResult cpp = run_kdt("--emit=cpp " + shell_quote(tmp.file("k.kd")));
    REQUIRE(cpp.status == 0);
    for (const char* c : {"inline int kd_class(", "float* kd_e", "float kd_int_[8]", "float kd_int__2[8]"}) {
      CHECK_MESSAGE(cpp.out.find(c) != std::string::npos, c);
    }
  }

  TEST_CASE("kdt run keeps the KD spelling of parameters for --input and .npy files") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("k.kd"),
                          "kernel new(class: i32, int: out i32[4] @global, args: out i32[4] @global) grid(1) {\n"
                          "    int[...] = iota(i32[4], 0) * class;\n"
                          "    args[...] = iota(i32[4], 0) + class;\n"
                          "}\n");
    kdt::test::RunResult r = run_kdt("run " + shell_quote(tmp.file("k.kd")) + " --input class=3 --output-dir " +
                                     shell_quote(tmp.file("out")));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK((r.out + r.err).find("kernel new:") != std::string::npos);
    CHECK(npy_i32(tmp.file("out/int.npy")) == std::vector<int32_t>{0, 3, 6, 9});
    CHECK(npy_i32(tmp.file("out/args.npy")) == std::vector<int32_t>{3, 4, 5, 6});
  }
}

TEST_SUITE("cuda_nvcc_sm90") {
  TEST_CASE("KD names that are C++ keywords, CUDA built-ins or emitter names give CUDA that compiles") {
    std::string nvcc = kdt::test::nvcc_or_skip();
    if (nvcc.empty()) return;
    TempDir tmp;
    kdt::test::write_text(tmp.file("names.kd"), program());
    REQUIRE(run_kdt("--emit=cuda " + shell_quote(tmp.file("names.kd")) + " -o " + shell_quote(tmp.file("names.cu"))).status == 0);
    CHECK_MESSAGE(sh(nvcc + " -std=c++17 -arch=sm_90 -Werror all-warnings -c " + shell_quote(tmp.file("names.cu")) + " -o " +
                     shell_quote(tmp.file("names.o")) + " >" + shell_quote(tmp.file("log")) + " 2>&1") == 0,
                  read_text(tmp.file("log")).substr(0, 2000));
  }
}

// Issue 12, item 8: KD names spelled like a macro of the headers the
// emitted code includes (`EOF`, `errno`, `M_PI`, `stdin`, `major`,
// `CUDART_VERSION`, ...) get the `kd_` prefix, so the preprocessor never
// sees them. The table is src/emit/macro_names.def, generated by
// scripts/gen-macro-names.sh; names that start with `_` and an uppercase
// letter or contain `__`, and the preludes' own `KDT_*` macros, are
// reserved by rule.
namespace {

// The checked-in table, in file order.
std::vector<std::string> macro_table() {
  std::vector<std::string> names;
  std::istringstream in(read_text(kdt::test::source_dir() + "/src/emit/macro_names.def"));
  for (std::string line; std::getline(in, line);) {
    if (line.size() > 3 && line.front() == '"') names.push_back(line.substr(1, line.size() - 3));
  }
  return names;
}

bool reserved_by_rule(const std::string& n) {
  return n.find("__") != std::string::npos || (n.size() > 1 && n[0] == '_' && std::isupper(static_cast<unsigned char>(n[1]))) ||
         n.compare(0, 3, "KDT") == 0 || n.compare(0, 3, "kdt") == 0;
}

bool kd_identifier(const std::string& n) {
  static const std::set<std::string> kd_words = {
      "include", "const", "kernel", "in",   "scratch", "sem",  "let",  "var",  "for", "while", "if",
      "else",    "return", "asm",   "assert", "true",  "false", "inf", "nan", "bool", "i8",    "i16",
      "i32",     "i64",   "u8",     "u16",  "u32",     "u64",  "f16",  "bf16", "f32", "f64"};
  if (n.empty() || kd_words.count(n) || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  return std::all_of(n.begin(), n.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The names of the issue, which are also kernel names below.
const std::vector<std::string> kIssueNames = {
    "errno", "EOF",      "NULL",   "M_PI",     "SIZE_MAX", "stdin",  "stdout", "stderr",        "INFINITY",
    "NAN",   "CHAR_BIT", "INT_MAX", "UINT32_MAX", "RAND_MAX", "EXIT_SUCCESS", "FLT_MAX", "offsetof", "major",
    "minor", "unix",     "linux",  "__CUDA_ARCH__", "CUDART_VERSION", "va_start", "setjmp"};

// Every macro name of the table (and some the rule covers) as a ref
// parameter, a scalar parameter, a local, a scratch buffer and a semaphore,
// in batches that keep the emitted code small enough to compile in a test;
// kernels named like the issue's names and like every 12th name of the
// table (a kernel costs the compiler more than a name); an asm whose
// operands are named so. `kd_EOF` next to `EOF` checks that the prefixed
// spelling cannot collide.
std::string macro_program() {
  std::vector<std::string> names;
  for (const std::string& n : macro_table()) {
    if (kd_identifier(n)) names.push_back(n);
  }
  const std::vector<std::string> table = names;
  for (const char* n : {"_Foo", "a__b", "__CUDA_ARCH__", "__GNUC__", "_GLIBCXX_RELEASE", "KDT_HAS_BULK", "KDT_CU_MATH",
                        "kd_EOF", "kd_kd_EOF", "kdt_tid"}) {
    names.push_back(n);
  }
  auto join = [](const std::vector<std::string>& parts, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
    return out;
  };
  std::string kd;
  const size_t batch = 330;
  for (size_t j = 0; j < names.size(); j += batch) {
    std::vector<std::string> g(names.begin() + j, names.begin() + std::min(names.size(), j + batch));
    std::string id = std::to_string(j);
    std::vector<std::string> refs, scalars, loads, reads;
    for (const std::string& n : g) {
      refs.push_back(n + ": in f32[2] @global");
      scalars.push_back(n + ": i32");
      loads.push_back(n + "[...]");
      reads.push_back("sem_read(" + n + ")");
    }
    kd += "kernel refs" + id + "(o: out f32[2] @global, " + join(refs, ", ") + ") grid(1) {\n    o[...] = " +
          join(loads, " + ") + ";\n}\n";
    kd += "kernel scalars" + id + "(o: out i32[2] @global, " + join(scalars, ", ") + ") grid(1) {\n    o[...] = " +
          join(g, " + ") + ";\n}\n";
    kd += "kernel locals" + id + "(o: out i32[2] @global) grid(1) {\n";
    for (size_t i = 0; i < g.size(); ++i) kd += "    let " + g[i] + " = " + (i ? g[i - 1] : "1") + " + 1;\n";
    kd += "    o[...] = " + g.back() + ";\n}\n";
    kd += "kernel scratch" + id + "(o: out i32[2] @global) grid(1) {\n";
    for (size_t i = 0; i < g.size(); ++i) {
      kd += "    scratch " + g[i] + ": i32[1] @shared;\n    " + g[i] + "[0] = " + (i ? g[i - 1] + "[0]" : "1") + ";\n";
    }
    kd += "    o[...] = " + g.back() + "[0];\n}\n";
    kd += "kernel sems" + id + "(o: out i32[2] @global) grid(1) {\n";
    for (const std::string& n : g) kd += "    sem " + n + ": regular;\n";
    kd += "    o[...] = " + join(reads, " + ") + ";\n}\n";
  }
  std::set<std::string> kernels(kIssueNames.begin(), kIssueNames.end());
  for (size_t i = 0; i < table.size(); i += 12) kernels.insert(table[i]);
  for (const std::string& n : kernels) kd += "kernel " + n + "(o: out i32[2] @global) grid(2) { o[program_id(0)] = 1; }\n";
  kd += "kernel asm_operands(x: in f32[2] @global, o: out f32[2] @global) grid(1) {\n"
        "    o[...] = asm ptx (EOF: f32 = x[...], stdin: f32 = x[...]) -> (NULL: f32) {\n"
        "        \"add.f32 %NULL, %EOF, %stdin;\"\n"
        "    } fallback { NULL = EOF + stdin; };\n"
        "}\n";
  return kd;
}

// `#define` names that `command` (a -dM preprocessor run) prints.
std::set<std::string> defined_macros(const std::string& command, const TempDir& tmp) {
  std::set<std::string> out;
  if (sh(command + " >" + shell_quote(tmp.file("macros")) + " 2>&1") != 0) {
    FAIL_CHECK("preprocessing failed: " << command << "\n" << read_text(tmp.file("macros")).substr(0, 2000));
    return out;
  }
  std::istringstream in(read_text(tmp.file("macros")));
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, 8, "#define ") != 0) continue;
    std::string name = line.substr(8);
    name = name.substr(0, name.find_first_of(" ("));
    out.insert(name);
  }
  return out;
}

// Macros the emitted code sees on this machine, all in the table or the rule.
void check_table_covers(const std::set<std::string>& macros) {
  const std::vector<std::string> table = macro_table();
  const std::set<std::string> known(table.begin(), table.end());
  std::string missing;
  for (const std::string& m : macros) {
    if (!reserved_by_rule(m) && !known.count(m)) missing += " " + m;
  }
  CHECK_MESSAGE(missing.empty(), "macros missing from src/emit/macro_names.def (run scripts/gen-macro-names.sh):" << missing);
  CHECK(macros.size() > 100);
}

}  // namespace

TEST_SUITE("names") {
  TEST_CASE("the macro table is sorted, unique and holds the issue's names") {
    const std::vector<std::string> table = macro_table();
    REQUIRE(table.size() > 500);
    // target_names.cpp looks names up with std::binary_search.
    CHECK(std::is_sorted(table.begin(), table.end()));
    CHECK(std::adjacent_find(table.begin(), table.end()) == table.end());
    for (const std::string& n : kIssueNames) {
      INFO(n);
      CHECK((reserved_by_rule(n) || std::binary_search(table.begin(), table.end(), n)));
    }
  }

  TEST_CASE("KD names that are C and C++ macros give C++ that compiles") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("macros.kd"), macro_program());
    for (const char* flags : {"", " --no-checks"}) {
      INFO("flags:" << flags);
      kdt::test::RunResult r = run_kdt("--emit=cpp" + std::string(flags) + " " + shell_quote(tmp.file("macros.kd")) +
                                       " -o " + shell_quote(tmp.file("macros.cpp")));
      REQUIRE_MESSAGE(r.status == 0, r.err.substr(0, 2000));
      std::string text = read_text(tmp.file("macros.cpp"));
      CHECK(text.find("inline int kd_EOF(") != std::string::npos);
      CHECK(text.find("kd_kd_EOF") != std::string::npos);
      CHECK_MESSAGE(sh("c++ -std=c++17 -fsyntax-only " + shell_quote(tmp.file("macros.cpp")) + " 2>" +
                       shell_quote(tmp.file("log"))) == 0,
                    read_text(tmp.file("log")).substr(0, 3000));
    }
    // Every macro the emitted C++ sees here (strict and GNU modes, which add
    // `linux` and `unix`) is one the scheme renames.
    for (const char* std_flag : {"-std=c++17", "-std=gnu++17"}) {
      INFO(std_flag);
      check_table_covers(defined_macros("c++ " + std::string(std_flag) + " -dM -E " + shell_quote(tmp.file("macros.cpp")), tmp));
    }
  }

  TEST_CASE("KD names that are C, C++ and CUDA macros give CUDA that compiles") {
    TempDir tmp;
    kdt::test::write_text(tmp.file("macros.kd"), macro_program());
    kdt::test::RunResult r =
        run_kdt("--emit=cuda " + shell_quote(tmp.file("macros.kd")) + " -o " + shell_quote(tmp.file("macros.cu")));
    REQUIRE_MESSAGE(r.status == 0, r.err.substr(0, 2000));
    CHECK(read_text(tmp.file("macros.cu")).find("kd_CUDART_VERSION") != std::string::npos);
    std::string nvcc = kdt::test::nvcc_or_skip();
    if (nvcc.empty()) return;
    CHECK_MESSAGE(sh(nvcc + " -std=c++17 -arch=sm_90 -Werror all-warnings -c " + shell_quote(tmp.file("macros.cu")) + " -o " +
                     shell_quote(tmp.file("macros.o")) + " >" + shell_quote(tmp.file("log")) + " 2>&1") == 0,
                  read_text(tmp.file("log")).substr(0, 3000));
    // nvcc -E preprocesses for the device; -Xcompiler -dM lists the macros.
    check_table_covers(defined_macros(nvcc + " -std=c++17 -arch=sm_90 -E -Xcompiler -dM " + shell_quote(tmp.file("macros.cu")) +
                                          " -o -",
                                      tmp));
  }
}
