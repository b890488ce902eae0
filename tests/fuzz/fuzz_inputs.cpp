// The fuzz targets' bodies: see fuzz_inputs.h.
#include "fuzz_inputs.h"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "kdt/diag/render.h"
#include "kdt/discharge/discharge.h"
#include "kdt/driver/compile.h"
#include "kdt/emit/emit_cpp.h"
#include "kdt/emit/emit_cuda.h"
#include "kdt/ir/lower.h"
#include "kdt/runtime/kdt_runtime.h"
#include "kdt/syntax/ast_json.h"

namespace kdt::fuzz {

namespace {

// Inputs are read as if they were this file: a directory that does not
// exist, so that relative includes resolve only through the -I directory
// below (the samples, whose `include "common.kd"` the seeds use).
const char* const kInputPath = "/kdt-fuzz/input.kd";

Options fuzz_options() {
  Options options;
  options.include_dirs = {KDT_FUZZ_INCLUDE_DIR};
  return options;
}

[[noreturn]] void fail(const std::string& what, const std::string& input, const std::string& details) {
  std::fprintf(stderr, "kdt fuzz: %s\n----- input -----\n%s\n----- details -----\n%s\n", what.c_str(), input.c_str(),
               details.c_str());
  std::fflush(stderr);
  std::abort();
}

// Renders the diagnostics in every format; the JSON and SARIF documents
// must be valid JSON whatever the input bytes were.
void render_all(const std::vector<Diagnostic>& diags, const SourceManager& sources, const std::string& input) {
  (void)render_text(diags, sources, false);
  (void)render_text(diags, sources, true);
  std::string json = render_json(diags, sources);
  std::string sarif = render_sarif(diags, sources);
  if (!nlohmann::json::accept(json)) fail("render_json wrote invalid JSON", input, json);
  if (!nlohmann::json::accept(sarif)) fail("render_sarif wrote invalid JSON", input, sarif);
}

}  // namespace

void run_on_large_stack(const std::function<void()>& body) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t{512} << 20);
  pthread_t thread;
  auto trampoline = [](void* p) -> void* {
    (*static_cast<const std::function<void()>*>(p))();
    return nullptr;
  };
  if (pthread_create(&thread, &attr, trampoline, const_cast<std::function<void()>*>(&body)) != 0) {
    pthread_attr_destroy(&attr);
    body();
    return;
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

void front_end_input(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<Compilation> c = compile_front_end(kInputPath, fuzz_options(), text);
  if (c->ok && c->diags.has_errors()) fail("the front end accepted a program with errors", text, "");
  render_all(c->diags.sorted(), c->sources, text);
}

void pipeline_source(const std::string& source, bool must_check) {
  std::unique_ptr<Compilation> c = compile_front_end(kInputPath, fuzz_options(), source);
  if (!c->ok) {
    if (must_check) {
      fail("the front end rejects a generated program", source, render_text(c->diags.sorted(), c->sources, false));
    }
    render_all(c->diags.sorted(), c->sources, source);
    return;
  }
  (void)ast_to_json(c->program.module, c->sources);
  ir::Module module = lower_program(c->program, "");
  (void)ir::print_module(module, c->sources);
  // The compiled path works on the IR before discharge.
  for (const char* arch : {"sm_80", "sm_90"}) {
    CudaEmitOptions cuda;
    cuda.arch = arch;
    cuda.input_name = kInputPath;
    std::string out;
    size_t errors = c->diags.error_count();
    if (!emit_cuda(module, c->sources, cuda, c->diags, out) && c->diags.error_count() == errors) {
      fail(std::string("emit_cuda failed without an error diagnostic for ") + arch, source, "");
    }
  }
  size_t errors = c->diags.error_count();
  if (discharge_module(module, c->diags)) {
    (void)ir::print_module(module, c->sources);
    for (bool checks : {true, false}) {
      CppEmitOptions cpp;
      cpp.checks = checks;
      cpp.harness = true;
      cpp.input_name = kInputPath;
      (void)emit_cpp(module, c->sources, cpp);
    }
  } else if (c->diags.error_count() == errors) {
    fail("discharge failed without an error diagnostic", source, "");
  }
  render_all(c->diags.sorted(), c->sources, source);
}

void npy_input(const uint8_t* data, size_t size) {
  kdt_rt::NpyArray array;
  array.descr = "untouched";
  std::string error;
  if (!kdt_rt::npy_parse(data, size, array, error)) {
    if (error.empty()) fail("npy_parse failed without a message", "(binary)", "");
    if (array.descr != "untouched") fail("npy_parse changed its output on failure", "(binary)", error);
    return;
  }
  // An accepted array holds exactly product(shape) x item size bytes.
  size_t itemsize = 0;
  std::string message;
  if (!kdt_rt::detail::npy_parse_descr(array.descr, itemsize, message)) {
    fail("npy_parse accepted a descr that npy_parse_descr refuses", array.descr, message);
  }
  uint64_t count = 1;
  for (uint64_t d : array.shape) count *= d;
  if (count * itemsize != array.data.size()) {
    fail("npy_parse returned data whose size does not match its shape", array.descr,
         kdt_rt::detail::npy_shape_repr(array.shape) + " " + std::to_string(array.data.size()));
  }
  // What the harness then asks of it.
  for (const char* dtype : {"bool", "i8", "i32", "u8", "f16", "bf16", "f32", "f64"}) {
    (void)kdt_rt::npy_descr_accepts(dtype, array.descr);
  }
}

}  // namespace kdt::fuzz
