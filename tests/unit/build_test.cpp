// `kdt build` (issue 18): its command line is checked before anything is
// compiled, and the library it prints has the C ABI's symbols. (The ABI
// itself is run from C by tests/c_api and from Python by python/tests.)
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <filesystem>
#include <string>

#include "test_support.h"

TEST_SUITE("run") {
  TEST_CASE("kdt build refuses bad command lines with a message naming the option") {
    kdt::test::TempDir tmp;
    std::string kd = tmp.file("k.kd");
    kdt::test::write_text(kd, "kernel k(y: out i32[2] @global) grid(2) { y[program_id(0)] = 1; }\n");
    std::string q = kdt::test::shell_quote(kd);
    struct Case {
      std::string args, expect;
    };
    const Case cases[] = {
        {"build", "no input file"},
        {"build " + q + " --emit=cpp", "kdt build makes c-api, xla-ffi or cuda-xla-ffi"},
        {"build " + q + " --emit=cuda-xla-ffi", "--emit=cuda-xla-ffi needs --xla-include DIR"},
        {"build " + q + " --emit=cuda-xla-ffi --cxx g++", "--emit=cuda-xla-ffi compiles with nvcc ($NVCC)"},
        {"build " + q + " --emit=cuda-xla-ffi --arch sm_9", "invalid value 'sm_9' for --arch"},
        {"build " + q + " --arch sm_90", "--arch applies to --emit=cuda-xla-ffi"},
        {"build " + q + " --emit=xla-ffi", "--emit=xla-ffi needs --xla-include DIR"},
        {"build " + q + " --emit=xla-ffi --xla-include " + kdt::test::shell_quote(tmp.path.string()),
         "there is no xla/ffi/api/ffi.h in it"},
        {"build " + q + " --xla-include /tmp", "--xla-include applies to --emit=xla-ffi and --emit=cuda-xla-ffi"},
        {"build " + q + " --dma-mode=eager", "chosen at each call of a built kernel"},
        {"build " + q + " --kernel nope", "--kernel nope: no such kernel"},
        {"build " + q + " -D NOPE=1", "-D NOPE"},
        {"build " + q + " --cxx /nonexistent/c++", "/nonexistent/c++"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.args);
      kdt::test::RunResult r = kdt::test::run_kdt(c.args);
      CHECK(r.status == 2);
      CHECK_MESSAGE(r.err.find(c.expect) != std::string::npos, r.err);
      CHECK(r.out.empty());
    }
    kdt::test::write_text(kd, "kernel k(y: out i32[2] @global) grid(2) { y[...] = z; }\n");
    kdt::test::RunResult bad = kdt::test::run_kdt("build " + q);
    CHECK(bad.status == 1);
    CHECK(bad.err.find("k.kd:1:") != std::string::npos);
    CHECK(bad.err.find("[undefined-name]") != std::string::npos);
    // A devices(N) kernel has no CUDA FFI handler: refused by name before nvcc runs.
    kdt::test::write_text(kd, "kernel k(y: out i32[2] @global) grid(1) devices(2) { y[...] = 1; }\n");
    std::string include = tmp.file("xla");
    std::filesystem::create_directories(tmp.file("xla/xla/ffi/api"));
    kdt::test::write_text(tmp.file("xla/xla/ffi/api/ffi.h"), "");
    kdt::test::RunResult multi = kdt::test::run_kdt("build " + q + " --emit=cuda-xla-ffi --xla-include " +
                                                    kdt::test::shell_quote(include));
    CHECK(multi.status == 2);
    CHECK_MESSAGE(multi.err.find("kernel `k` has devices(2): the CUDA XLA FFI handler runs single-device kernels") !=
                      std::string::npos, multi.err);
  }

  TEST_CASE("kdt build prints a library with the C ABI; a second build is served by the cache") {
    kdt::test::TempDir tmp;
    std::string kd = tmp.file("k.kd");
    kdt::test::write_text(kd, "kernel k(y: out i32[2] @global) grid(2) { y[program_id(0)] = program_id(0) + 1; }\n");
    std::string env = "KDT_CACHE_DIR=" + kdt::test::shell_quote(tmp.file("cache")) + " ";
    kdt::test::RunResult first = kdt::test::run_captured(env + kdt::test::shell_quote(kdt::test::kdt_binary()) +
                                                         " build " + kdt::test::shell_quote(kd));
    REQUIRE(first.status == 0);
    std::string path = first.out.substr(0, first.out.find('\n'));
    CHECK(path.rfind(tmp.file("cache"), 0) == 0);
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(lib, dlerror());
    using Call = int (*)(void* const*, const void*, void*);
    void* call_symbol = dlsym(lib, "kdt_call_k");
    REQUIRE(call_symbol != nullptr);
    auto call = reinterpret_cast<Call>(call_symbol);
    int32_t y[2] = {0, 0};
    void* args[1] = {y};
    CHECK(call(args, nullptr, nullptr) == 0);
    CHECK(y[0] == 1);
    CHECK(y[1] == 2);
    void* json_symbol = dlsym(lib, "kdt_module_json");
    REQUIRE(json_symbol != nullptr);
    auto json = reinterpret_cast<const char* (*)()>(json_symbol);
    CHECK(std::string(json()).find("\"kind\":\"out\"") != std::string::npos);
    dlclose(lib);
    kdt::test::RunResult second = kdt::test::run_captured(env + kdt::test::shell_quote(kdt::test::kdt_binary()) +
                                                          " build " + kdt::test::shell_quote(kd));
    CHECK(second.status == 0);
    CHECK(second.out == first.out);
  }
}
