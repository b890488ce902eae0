// The fuzz targets' bodies: see fuzz_inputs.h.
#include "fuzz_inputs.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
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

// The stack every KD input runs on, as in kdt's main().
constexpr size_t kLargeStack = size_t{512} << 20;

const Options& fuzz_options() {
  static const Options options = [] {
    Options o;
    o.include_dirs = {KDT_FUZZ_INCLUDE_DIR};
    return o;
  }();
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

// The thread with the large stack, and the one body it runs at a time.
class LargeStackThread {
 public:
  // Null when no such thread can be made.
  static LargeStackThread* start() {
    auto* worker = new LargeStackThread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kLargeStack);
    pthread_t thread;
    int error = pthread_create(&thread, &attr, &LargeStackThread::main, worker);
    pthread_attr_destroy(&attr);
    if (error != 0) {
      delete worker;
      return nullptr;
    }
    // It waits for work until the process exits.
    pthread_detach(thread);
    return worker;
  }

  void run(const std::function<void()>& body) {
    std::unique_lock<std::mutex> lock(mutex_);
    body_ = &body;
    done_ = false;
    wake_.notify_one();
    finished_.wait(lock, [this] { return done_; });
  }

 private:
  static void* main(void* self) {
    auto* worker = static_cast<LargeStackThread*>(self);
    std::unique_lock<std::mutex> lock(worker->mutex_);
    while (true) {
      worker->wake_.wait(lock, [worker] { return worker->body_ != nullptr; });
      const std::function<void()>* body = worker->body_;
      lock.unlock();
      (*body)();
      lock.lock();
      worker->body_ = nullptr;
      worker->done_ = true;
      worker->finished_.notify_one();
    }
    return nullptr;
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  const std::function<void()>* body_ = nullptr;
  bool done_ = false;
};

// The front end on `source`, as kdt runs it on a file named kInputPath.
std::unique_ptr<Compilation> front_end(const std::string& source) {
  std::unique_ptr<Compilation> c = compile_front_end(kInputPath, fuzz_options(), source);
  if (c->ok && c->diags.has_errors()) fail("the front end accepted a program with errors", source, "");
  return c;
}

// After a front end that passed: lower, the IR dumps, both emitters.
void back_end(Compilation& c, const std::string& source) {
  ir::Module module = lower_program(c.program, "");
  (void)ir::print_module(module, c.sources);
  // The compiled path works on the IR before discharge.
  for (const char* arch : {"sm_80", "sm_90"}) {
    CudaEmitOptions cuda;
    cuda.arch = arch;
    cuda.input_name = kInputPath;
    std::string out;
    size_t errors = c.diags.error_count();
    if (!emit_cuda(module, c.sources, cuda, c.diags, out) && c.diags.error_count() == errors) {
      fail(std::string("emit_cuda failed without an error diagnostic for ") + arch, source, "");
    }
  }
  size_t errors = c.diags.error_count();
  if (discharge_module(module, c.diags)) {
    (void)ir::print_module(module, c.sources);
    for (bool checks : {true, false}) {
      CppEmitOptions cpp;
      cpp.checks = checks;
      cpp.harness = true;
      cpp.input_name = kInputPath;
      (void)emit_cpp(module, c.sources, cpp);
    }
  } else if (c.diags.error_count() == errors) {
    fail("discharge failed without an error diagnostic", source, "");
  }
}

bool on_main_thread() { return static_cast<pid_t>(syscall(SYS_gettid)) == getpid(); }

// Whether the main thread may grow its stack to kLargeStack: RLIMIT_STACK
// at least that (`ulimit -s 524288` before the process starts, as
// run_fuzzers.sh does). Linux grows the main thread's stack on demand up to
// the limit.
bool main_stack_is_large() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_STACK, &limit) != 0) return false;
  return limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= kLargeStack;
}

}  // namespace

void run_on_large_stack(const std::function<void()>& body) {
  // On a main thread with a large stack, the body runs right here: handing
  // it to the other thread and waiting cost two context switches per input
  // (some 4 % of fuzz_front_end's time).
  static const bool large_main_stack = main_stack_is_large();
  if (large_main_stack && on_main_thread()) {
    body();
    return;
  }
  static LargeStackThread* const thread = LargeStackThread::start();
  if (thread) {
    thread->run(body);
  } else {
    body();
  }
}

void front_end_input(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<Compilation> c = front_end(text);
  (void)render_text(c->diags.sorted(), c->sources, false);
}

void pipeline_source(const std::string& source, bool must_check) {
  std::unique_ptr<Compilation> c = front_end(source);
  if (!c->ok) {
    if (must_check) {
      fail("the front end rejects a generated program", source, render_text(c->diags.sorted(), c->sources, false));
    }
    (void)render_text(c->diags.sorted(), c->sources, false);
    return;
  }
  back_end(*c, source);
  if (!c->diags.diagnostics().empty()) (void)render_text(c->diags.sorted(), c->sources, false);
}

void all_outputs(const std::string& source, bool must_check) {
  std::unique_ptr<Compilation> c = front_end(source);
  if (!c->ok) {
    if (must_check) {
      fail("the front end rejects a generated program", source, render_text(c->diags.sorted(), c->sources, false));
    }
    render_all(c->diags.sorted(), c->sources, source);
    return;
  }
  std::string ast = ast_to_json(c->program.module, c->sources);
  if (!nlohmann::json::accept(ast)) fail("--emit=ast wrote invalid JSON", source, ast);
  back_end(*c, source);
  render_all(c->diags.sorted(), c->sources, source);
}

void outputs_input(const uint8_t* data, size_t size) {
  all_outputs(std::string(reinterpret_cast<const char*>(data), size), false);
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
