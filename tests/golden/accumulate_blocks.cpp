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
