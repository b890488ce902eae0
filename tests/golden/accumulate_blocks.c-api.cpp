namespace kdt_kernels {

// Parameters of kernel `accumulate_blocks`: one pointer per ref (row-major), scalars by value.
struct accumulate_blocks_params {
  const float* x;  // f32[1024, 256] @global, in
  float* out;  // f32[128, 256] @global
};

// Scratch buffers and semaphores of one program (one instance per program).
struct accumulate_blocks_program_state {
  alignas(64) float tile[32768];
  kdt_rt::RefShadow tile_shadow_;
  kdt_rt::DmaSemaphore loaded[1];
  kdt_rt::DmaSemaphore stored[1];
  kdt_rt::ProgramClock clock;  // happens-before, for the cross-program race check
  int64_t program[1];  // program ids
  int64_t flat = 0;  // flattened program index
  int64_t position = 0;  // in the program order (add=true DMAs land in its order)
};

struct accumulate_blocks_launch {
  std::vector<accumulate_blocks_params> params;  // one set per device
  std::vector<kdt_rt::RefShadow> shadows;  // ref parameters, per device
  kdt_rt::RunOptions options;
  kdt_rt::DeviceScheduler scheduler{1};
  kdt_rt::ProgramPool pool;  // -j (kdt_parallel.h)
  std::vector<std::unique_ptr<accumulate_blocks_program_state>> worker_states;  // one per worker, sized before the launch
  accumulate_blocks_program_state& state(int worker, int device, int64_t flat) {
    auto& slot = worker_states[static_cast<size_t>(worker)];
    if (!slot) {
      slot = std::make_unique<accumulate_blocks_program_state>();
    } else {
      kdt_rt::renew(*slot);
    }
    init(*slot, device, flat);
    return *slot;
  }
  static void init(accumulate_blocks_program_state& s, int device, int64_t flat) {
    (void)device;
    s.flat = flat;
    s.clock.init(device, flat, 1);
    s.tile_shadow_.init("tile", {128, 256}, true, false);
    s.program[0] = flat / 1 % 8;
  }
};

// DMA #0: dst = src over 131072 bytes.
static void accumulate_blocks_dma0(accumulate_blocks_launch& L, const kdt_rt::DmaRecord& d) {
  const accumulate_blocks_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const accumulate_blocks_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  accumulate_blocks_program_state& ss = *static_cast<accumulate_blocks_program_state*>(d.issuer);
  accumulate_blocks_program_state& ds = ss;
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  std::memcpy(ds.tile + 0, sp.x + (starts[0]) * 256, 32768 * sizeof(float));
}

// DMA #1: dst += src over 131072 bytes.
static void accumulate_blocks_dma1(accumulate_blocks_launch& L, const kdt_rt::DmaRecord& d) {
  const accumulate_blocks_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const accumulate_blocks_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  accumulate_blocks_program_state& ss = *static_cast<accumulate_blocks_program_state*>(d.issuer);
  accumulate_blocks_program_state& ds = ss;
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  L.pool.wait_turn(d.dst_device, ss.position);  // additions land in the program order (kdt_parallel.h)
  kdt_rt::add_run(dp.out + 0, ss.tile + 0, int64_t{32768});
}

[[maybe_unused]] static void accumulate_blocks_run_dma(accumulate_blocks_launch& L, kdt_rt::DmaRecord& d) {
  (void)L;
  switch (d.site) {
    case 0: accumulate_blocks_dma0(L, d); break;
    case 1: accumulate_blocks_dma1(L, d); break;
    default: break;
  }
  d.landed = true;
}

// One program of `accumulate_blocks`.
static void accumulate_blocks_program(accumulate_blocks_launch& L, int device, accumulate_blocks_program_state& s) {
  const accumulate_blocks_params& p = L.params[static_cast<size_t>(device)];
  const kdt_rt::RunOptions& options = L.options;
  (void)p, (void)options;
#line 18 "samples/accumulate_blocks.kd"
  [[maybe_unused]] const int32_t i = static_cast<int32_t>(s.program[0]);
  auto dma0 = std::make_shared<kdt_rt::DmaRecord>();
#line 19
  dma0->site = 0;
#line 19
  dma0->bytes = 131072;
#line 19
  dma0->src_device = device;
#line 19
  dma0->dst_device = device;
#line 19
  dma0->program = s.flat;
#line 19
  dma0->issuer = &s;
#line 19
  dma0->loc = kdt_rt::SourceLoc{"samples/accumulate_blocks.kd", 19, 5, 659, 703};
#line 19
  dma0->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(128))), 128, 1024, kdt_rt::SourceLoc{"samples/accumulate_blocks.kd", 19, 20, 674, 679}, "DMA source index");
#line 19
  dma0->src_box = kdt_rt::Box{2, {dma0->starts[0], 0}, {128, 256}};
#line 19
  dma0->dst_box = kdt_rt::Box{2, {0, 0}, {128, 256}};
#line 19
  dma0->add = false;
#line 19
  dma0->src_shadow = &L.shadows[static_cast<size_t>(device) * 2 + 0];
#line 19
  dma0->dst_shadow = &s.tile_shadow_;
#line 19
  dma0->dst_sem = &s.loaded[0];
#line 19
  dma0->has_src_sem = false;
#line 19
  kdt_rt::claim_dma(dma0, s.clock);
#line 19
  if (options.eager_dma) accumulate_blocks_run_dma(L, *dma0);
#line 19
  s.loaded[0].in_flight.push_back(dma0);
  {
#line 20
    auto& sem_ = s.loaded[0];
#line 20
    L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `loaded` (no DMA in flight)", kdt_rt::SourceLoc{"samples/accumulate_blocks.kd", 20, 5, 708, 731}, s.flat});
#line 20
    std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 131072, options);
#line 20
    if (d_->bytes != 131072) {
#line 20
      kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 131072 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/accumulate_blocks.kd", 20, 5, 708, 731}, {{"the DMA was started here", d_->loc}}};
#line 20
      throw kdt_rt::RunFailure{e_};
#line 20
    }
#line 20
    kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 20
    if (!d_->landed) accumulate_blocks_run_dma(L, *d_);
#line 20
  }
  [[maybe_unused]] static const kdt_rt::SourceLoc site1 = kdt_rt::SourceLoc{"samples/accumulate_blocks.kd", 21, 17, 748, 752};
#line 21
  kdt_rt::check_access(s.tile_shadow_, kdt_rt::Box{2, {0, 0}, {128, 256}}, kdt_rt::Access::Read, s.clock, &site1);
#line 21
  [[maybe_unused]] static const kdt_rt::SourceLoc site2 = kdt_rt::SourceLoc{"samples/accumulate_blocks.kd", 21, 5, 736, 759};
#line 21
  kdt_rt::check_access(s.tile_shadow_, kdt_rt::Box{2, {0, 0}, {128, 256}}, kdt_rt::Access::Write, s.clock, &site2);
#line 21
  for (int64_t f3 = 0; f3 < 32768; ++f3) {
#line 21
    s.tile[f3] = kdt_rt::op_mul(s.tile[f3], 0x1p+1f);
#line 21
  }
  auto dma4 = std::make_shared<kdt_rt::DmaRecord>();
#line 22
  dma4->site = 1;
#line 22
  dma4->bytes = 131072;
#line 22
  dma4->src_device = device;
#line 22
  dma4->dst_device = device;
#line 22
  dma4->program = s.flat;
#line 22
  dma4->issuer = &s;
#line 22
  dma4->loc = kdt_rt::SourceLoc{"samples/accumulate_blocks.kd", 22, 5, 764, 803};
#line 22
  dma4->src_box = kdt_rt::Box{2, {0, 0}, {128, 256}};
#line 22
  dma4->dst_box = kdt_rt::Box{2, {0, 0}, {128, 256}};
#line 22
  dma4->add = true;
#line 22
  dma4->src_shadow = &s.tile_shadow_;
#line 22
  dma4->dst_shadow = &L.shadows[static_cast<size_t>(dma4->dst_device) * 2 + 1];
#line 22
  dma4->dst_sem = &s.stored[0];
#line 22
  dma4->has_src_sem = false;
#line 22
  kdt_rt::claim_dma(dma4, s.clock);
#line 22
  if (options.eager_dma) accumulate_blocks_run_dma(L, *dma4);
#line 22
  s.stored[0].in_flight.push_back(dma4);
  {
#line 23
    auto& sem_ = s.stored[0];
#line 23
    L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `stored` (no DMA in flight)", kdt_rt::SourceLoc{"samples/accumulate_blocks.kd", 23, 5, 834, 856}, s.flat});
#line 23
    std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 131072, options);
#line 23
    if (d_->bytes != 131072) {
#line 23
      kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 131072 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/accumulate_blocks.kd", 23, 5, 834, 856}, {{"the DMA was started here", d_->loc}}};
#line 23
      throw kdt_rt::RunFailure{e_};
#line 23
    }
#line 23
    kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 23
    if (!d_->landed) accumulate_blocks_run_dma(L, *d_);
#line 23
  }
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 24
    if (!s.loaded[k_].in_flight.empty()) {
#line 24
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.loaded[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `loaded`");
#line 24
    }
#line 24
  }
#line 24
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 24
    if (!s.stored[k_].in_flight.empty()) {
#line 24
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.stored[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `stored`");
#line 24
    }
#line 24
  }
#line 24
}
#line 5324 "<stdout>"

// Runs kernel `accumulate_blocks` over its grid [8], on options.jobs threads.
// Returns 0, or 1 when a run-time check failed (described in *error).
static int accumulate_blocks_run(const float* x, float* out, const kdt_rt::RunOptions& options, kdt_rt::RunError* error) {
  accumulate_blocks_launch L;
  L.options = options;
  for (int device = 0; device < 1; ++device) {
    L.params.push_back(accumulate_blocks_params{x, out});
    L.shadows.emplace_back();
    L.shadows.back().init("x", {1024, 256}, false, false, true);
    L.shadows.emplace_back();
    L.shadows.back().init("out", {128, 256}, false, true, true);
  }
  const std::vector<int64_t> order = kdt_rt::program_order(8, options);
  kdt_rt::RunError failure;
  L.worker_states.resize(static_cast<size_t>(kdt_rt::workers(options, 1)));
  // The program at `position` of the order on `device`, run by `worker`.
  auto program = [&](int worker, int device, int64_t position) {
    accumulate_blocks_program_state& s = L.state(worker, device, order[static_cast<size_t>(position)]);
    s.position = position;
    accumulate_blocks_program(L, device, s);
  };
  bool ok = kdt_rt::run_independent(L.scheduler, L.pool, 1, 8, options, program, failure, {});
  if (!ok) {
    if (error) *error = failure;
    return 1;
  }
  return 0;
}

// Runs kernel `accumulate_blocks`: on options.jobs threads, and when that fails, again on one thread
// from the same inout parameters, so that a failure is reported as on one thread.
inline int accumulate_blocks(const float* x, float* out, const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {
  if (!kdt_rt::runs_parallel(options, 8)) return accumulate_blocks_run(x, out, options, error);
  kdt_rt::ParameterSnapshot inouts;
  inouts.keep(out, 32768 * sizeof(float));
  if (accumulate_blocks_run(x, out, options, nullptr) == 0) return 0;
  inouts.restore();
  kdt_rt::RunOptions one_thread = options;
  one_thread.jobs = 1;
  return accumulate_blocks_run(x, out, one_thread, error);
}

}  // namespace kdt_kernels

// ===== C ABI (--emit=c-api, docs/c-api.md) =====
// int kdt_call_KERNEL(void* const* args, const struct kdt_options* options, struct kdt_error* error):
// args[i] is parameter i's first element (a ref: row-major, devices first) or its value (a scalar).
// Returns 0, 1 when a run-time check failed (*error says which, where), 2 for bad options.
extern "C" {
struct kdt_options {
  uint32_t size;          // sizeof(struct kdt_options): the ABI's version check
  int32_t dma_mode;       // 0 on_wait, 1 eager
  int32_t dma_order;      // 0 fifo, 1 lifo, 2 shuffle
  int32_t program_order;  // 0 forward, 1 reverse, 2 shuffle
  int32_t jobs;           // threads for the programs (1 to 4096)
  uint32_t reserved;      // 0
  uint64_t seed;          // for the shuffle orders
};
struct kdt_error {
  char code[64];          // the diagnostic code ("race", "out-of-bounds", ...), "" after a success
  char file[1024];        // the KD file, line and column of the failure
  int32_t line;
  int32_t column;
  char message[4096];
  char json[16384];       // the diagnostic as JSON, with its notes ("" if it would not fit)
};
__attribute__((visibility("default"))) int kdt_abi_version(void) { return 1; }
}  // extern "C"

namespace kdt_bind {
// Runs a launch; an exception (memory, threads) is a failure too, never an abort of the caller.
template <class Launch>
int launch(kdt_rt::RunError& failure, Launch&& run) {
  try {
    return run(failure);
  } catch (const std::exception& x) {
    failure.code = kdt_rt::Code::LimitExceeded;
    failure.message = std::string("the launch ran out of resources (") + x.what() + ")";
    return 1;
  }
}
}  // namespace kdt_bind

// The kernels of this file, their parameters (kind, dtype, the shape a caller passes) and the binding.
extern "C" __attribute__((visibility("default"))) const char* kdt_module_json(void) {
  return "{\"abi\":1,\"binding\":\"c-api\",\"checks\":true,\"kernels\":[{\"devices\":1,\"grid\":[8],\"mesh\":[1],\"name\":\"accumulate_blocks\",\"params\":[{\"dtype\":\"f32\",\"kind\":\"in\",\"name\":\"x\",\"shape\":[1024,256]},{\"dtype\":\"f32\",\"kind\":\"inout\",\"name\":\"out\",\"shape\":[128,256]}],\"symbol\":\"kdt_call_accumulate_blocks\"}],\"source\":\"samples/accumulate_blocks.kd\"}";
}

namespace kdt_bind {
// Copies `text` into `to` (a field of `size` bytes), cut to fit, NUL-terminated.
static void copy(char* to, size_t size, const std::string& text) {
  size_t n = text.size() < size ? text.size() : size - 1;
  std::memcpy(to, text.data(), n);
  to[n] = 0;
}
// Fills *error (when given) with `failure`, or empties it after a success.
static void report(int status, const kdt_rt::RunError& failure, kdt_error* error) {
  if (!error) return;
  if (status == 0) {
    error->code[0] = error->file[0] = error->message[0] = error->json[0] = 0;
    error->line = error->column = 0;
    return;
  }
  const kdt_rt::RunError e = kdt_rt::with_call_notes(failure);
  copy(error->code, sizeof error->code, e.code.name());
  copy(error->file, sizeof error->file, e.loc.file ? e.loc.file : "");
  error->line = e.loc.line;
  error->column = e.loc.column;
  copy(error->message, sizeof error->message, e.message);
  const std::string json = kdt_rt::failure_json(e);
  copy(error->json, sizeof error->json, json.size() < sizeof error->json ? json : std::string());
}
// The run options from the caller's struct; false (with *error) when they are not valid.
static bool options(const kdt_options* given, kdt_rt::RunOptions& run, kdt_error* error) {
  if (!given) return true;
  const char* problem = nullptr;
  if (given->size != sizeof(kdt_options)) problem = "struct kdt_options has the wrong size (another ABI version)";
  else if (given->dma_mode < 0 || given->dma_mode > 1) problem = "dma_mode must be 0 (on_wait) or 1 (eager)";
  else if (given->dma_order < 0 || given->dma_order > 2) problem = "dma_order must be 0, 1 or 2";
  else if (given->program_order < 0 || given->program_order > 2) problem = "program_order must be 0, 1 or 2";
  else if (given->jobs < 1 || given->jobs > 4096) problem = "jobs must be from 1 to 4096";
  if (problem) {
    if (error) {
      report(1, kdt_rt::RunError{kdt_rt::Code::CommandLine, problem, kdt_rt::SourceLoc{"", 0, 0, 0, 0}, {}}, error);
    }
    return false;
  }
  run.eager_dma = given->dma_mode == 1;
  run.dma_order = given->dma_order;
  run.program_order = given->program_order;
  run.jobs = given->jobs;
  run.seed = given->seed;
  return true;
}
}  // namespace kdt_bind

// Kernel `accumulate_blocks`.
extern "C" __attribute__((visibility("default"))) int kdt_call_accumulate_blocks(void* const* args, const kdt_options* options, kdt_error* error) {
  kdt_rt::RunOptions run;
  if (!kdt_bind::options(options, run, error)) return 2;
  const float* x = static_cast<const float*>(args[0]);
  float* out = static_cast<float*>(args[1]);
  kdt_rt::RunError failure;
  int status = kdt_bind::launch(failure, [&](kdt_rt::RunError& e) { return kdt_kernels::accumulate_blocks(x, out, run, &e); });
  kdt_bind::report(status, failure, error);
  return status;
}

