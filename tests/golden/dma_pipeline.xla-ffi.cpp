namespace kdt_kernels {

// Parameters of kernel `dma_pipeline`: one pointer per ref (row-major), scalars by value.
struct dma_pipeline_params {
  const float* x;  // f32[2048, 256] @global, in
  float scale;
  float* y;  // f32[2048, 256] @global
};

// Scratch buffers and semaphores of one program (one instance per program).
struct dma_pipeline_program_state {
  alignas(64) float in_buf[16384];
  kdt_rt::RefShadow in_buf_shadow_;
  alignas(64) float out_buf[16384];
  kdt_rt::RefShadow out_buf_shadow_;
  kdt_rt::DmaSemaphore in_sem[2];
  kdt_rt::DmaSemaphore out_sem[2];
  kdt_rt::RegularSemaphore stored[1];
  kdt_rt::ProgramClock clock;  // happens-before, for the cross-program race check
  int64_t program[1];  // program ids
  int64_t flat = 0;  // flattened program index
};

struct dma_pipeline_launch {
  std::vector<dma_pipeline_params> params;  // one set per device
  std::vector<kdt_rt::RefShadow> shadows;  // ref parameters, per device
  kdt_rt::RunOptions options;
  kdt_rt::DeviceScheduler scheduler{1};
  // By device * programs + flat index; ordered, so that the launch-end checks are deterministic.
  std::map<int64_t, std::unique_ptr<dma_pipeline_program_state>> states;
  dma_pipeline_program_state& state(int device, int64_t flat) {
    auto& slot = states[int64_t{device} * 4 + flat];
    if (!slot) {
      slot = std::make_unique<dma_pipeline_program_state>();
      init(*slot, device, flat);
    }
    return *slot;
  }
  static void init(dma_pipeline_program_state& s, int device, int64_t flat) {
    (void)device;
    s.flat = flat;
    s.clock.init(device, flat, 1);
    s.in_buf_shadow_.init("in_buf", {2, 32, 256}, true, false);
    s.out_buf_shadow_.init("out_buf", {2, 32, 256}, true, false);
    s.program[0] = flat / 1 % 4;
  }
};

// DMA #0: dst = src over 32768 bytes.
static void dma_pipeline_dma0(dma_pipeline_launch& L, const kdt_rt::DmaRecord& d) {
  const dma_pipeline_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const dma_pipeline_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  dma_pipeline_program_state& ss = L.state(d.src_device, d.program);
  dma_pipeline_program_state& ds = L.state(d.dst_device, d.program);
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  std::memcpy(ds.in_buf + 0, sp.x + (starts[0]) * 256, 8192 * sizeof(float));
}

// DMA #1: dst = src over 32768 bytes.
static void dma_pipeline_dma1(dma_pipeline_launch& L, const kdt_rt::DmaRecord& d) {
  const dma_pipeline_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const dma_pipeline_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  dma_pipeline_program_state& ss = L.state(d.src_device, d.program);
  dma_pipeline_program_state& ds = L.state(d.dst_device, d.program);
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  std::memcpy(ds.in_buf + (starts[1]) * 8192, sp.x + (starts[0]) * 256, 8192 * sizeof(float));
}

// DMA #2: dst = src over 32768 bytes.
static void dma_pipeline_dma2(dma_pipeline_launch& L, const kdt_rt::DmaRecord& d) {
  const dma_pipeline_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const dma_pipeline_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  dma_pipeline_program_state& ss = L.state(d.src_device, d.program);
  dma_pipeline_program_state& ds = L.state(d.dst_device, d.program);
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  std::memcpy(dp.y + (starts[1]) * 256, ss.out_buf + (starts[0]) * 8192, 8192 * sizeof(float));
}

[[maybe_unused]] static void dma_pipeline_run_dma(dma_pipeline_launch& L, kdt_rt::DmaRecord& d) {
  (void)L;
  switch (d.site) {
    case 0: dma_pipeline_dma0(L, d); break;
    case 1: dma_pipeline_dma1(L, d); break;
    case 2: dma_pipeline_dma2(L, d); break;
    default: break;
  }
  d.landed = true;
}

// One program of `dma_pipeline`.
static void dma_pipeline_program(dma_pipeline_launch& L, int device, dma_pipeline_program_state& s) {
  const dma_pipeline_params& p = L.params[static_cast<size_t>(device)];
  const kdt_rt::RunOptions& options = L.options;
  (void)p, (void)options;
#line 27 "samples/dma_pipeline.kd"
  if (!((int32_t(16) >= int32_t(2)))) kdt_rt::fail(kdt_rt::Code::AssertFailed, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 27, 5, 899, 970}, "assertion failed: the drain below expects both output slots in use");
  [[maybe_unused]] const int32_t base = kdt_rt::op_mul(static_cast<int32_t>(s.program[0]), int32_t(512));
#line 31
  auto dma0 = std::make_shared<kdt_rt::DmaRecord>();
#line 31
  dma0->site = 0;
#line 31
  dma0->bytes = 32768;
#line 31
  dma0->src_device = device;
#line 31
  dma0->dst_device = device;
#line 31
  dma0->program = s.flat;
#line 31
  dma0->loc = kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 31, 5, 1048, 1100};
#line 31
  dma0->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(base), 32, 2048, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 31, 20, 1063, 1067}, "DMA source index");
#line 31
  dma0->src_box = kdt_rt::Box{2, {dma0->starts[0], 0}, {32, 256}};
#line 31
  dma0->dst_box = kdt_rt::Box{3, {0, 0, 0}, {1, 32, 256}};
#line 31
  dma0->add = false;
#line 31
  dma0->src_shadow = &L.shadows[static_cast<size_t>(device) * 2 + 0];
#line 31
  dma0->dst_shadow = &s.in_buf_shadow_;
#line 31
  dma0->dst_sem = &s.in_sem[kdt_rt::checked_index(int32_t(0), 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 31, 53, 1096, 1097}, "semaphore index")];
#line 31
  dma0->has_src_sem = false;
#line 31
  kdt_rt::claim_dma(dma0, s.clock);
#line 31
  if (options.eager_dma) dma_pipeline_run_dma(L, *dma0);
#line 31
  s.in_sem[kdt_rt::checked_index(int32_t(0), 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 31, 53, 1096, 1097}, "semaphore index")].in_flight.push_back(dma0);
#line 31
  L.scheduler.note_effect(device);
#line 33
  for (int64_t t_it = int32_t(0); t_it < int32_t(16); t_it += 1) {
#line 33
    [[maybe_unused]] const int32_t t = static_cast<int32_t>(t_it);
    [[maybe_unused]] const int32_t slot = kdt_rt::int_rem<int32_t>(t, kdt_rt::checked_divisor<int32_t>(int32_t(2), kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 34, 20, 1145, 1150}));
    [[maybe_unused]] const int32_t other = kdt_rt::op_sub(int32_t(1), slot);
#line 37
    if ((kdt_rt::op_add(t, int32_t(1)) < int32_t(16))) {
      auto dma1 = std::make_shared<kdt_rt::DmaRecord>();
#line 38
      dma1->site = 1;
#line 38
      dma1->bytes = 32768;
#line 38
      dma1->src_device = device;
#line 38
      dma1->dst_device = device;
#line 38
      dma1->program = s.flat;
#line 38
      dma1->loc = kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 38, 13, 1296, 1371};
#line 38
      dma1->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_add(base, kdt_rt::op_mul(kdt_rt::op_add(t, int32_t(1)), int32_t(32)))), 32, 2048, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 38, 28, 1311, 1330}, "DMA source index");
#line 38
      dma1->starts[1] = kdt_rt::checked_index(static_cast<int64_t>(other), 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 38, 65, 1348, 1353}, "DMA destination index");
#line 38
      dma1->src_box = kdt_rt::Box{2, {dma1->starts[0], 0}, {32, 256}};
#line 38
      dma1->dst_box = kdt_rt::Box{3, {dma1->starts[1], 0, 0}, {1, 32, 256}};
#line 38
      dma1->add = false;
#line 38
      dma1->src_shadow = &L.shadows[static_cast<size_t>(device) * 2 + 0];
#line 38
      dma1->dst_shadow = &s.in_buf_shadow_;
#line 38
      dma1->dst_sem = &s.in_sem[kdt_rt::checked_index(other, 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 38, 80, 1363, 1368}, "semaphore index")];
#line 38
      dma1->has_src_sem = false;
#line 38
      kdt_rt::claim_dma(dma1, s.clock);
#line 38
      if (options.eager_dma) dma_pipeline_run_dma(L, *dma1);
#line 38
      s.in_sem[kdt_rt::checked_index(other, 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 38, 80, 1363, 1368}, "semaphore index")].in_flight.push_back(dma1);
#line 38
      L.scheduler.note_effect(device);
#line 38
    }
#line 40
    {
#line 40
      auto& sem_ = s.in_sem[kdt_rt::checked_index(slot, 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 40, 25, 1406, 1410}, "semaphore index")];
#line 40
      L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `in_sem` (no DMA in flight)", kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 40, 9, 1390, 1427}, s.flat});
#line 40
      std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 32768, options);
#line 40
      if (d_->bytes != 32768) {
#line 40
        kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 32768 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 40, 9, 1390, 1427}, {{"the DMA was started here", d_->loc}}};
#line 40
        throw kdt_rt::RunFailure{e_};
#line 40
      }
#line 40
      kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 40
      if (!d_->landed) dma_pipeline_run_dma(L, *d_);
#line 40
    }
#line 40
    L.scheduler.note_effect(device);
#line 43
    if ((t >= int32_t(2))) {
      {
#line 44
        auto& sem_ = s.out_sem[kdt_rt::checked_index(slot, 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 44, 30, 1608, 1612}, "semaphore index")];
#line 44
        L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `out_sem` (no DMA in flight)", kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 44, 13, 1591, 1630}, s.flat});
#line 44
        std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 32768, options);
#line 44
        if (d_->bytes != 32768) {
#line 44
          kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 32768 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 44, 13, 1591, 1630}, {{"the DMA was started here", d_->loc}}};
#line 44
          throw kdt_rt::RunFailure{e_};
#line 44
        }
#line 44
        kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 44
        if (!d_->landed) dma_pipeline_run_dma(L, *d_);
#line 44
      }
#line 44
      L.scheduler.note_effect(device);
#line 44
    }
#line 47
    const int64_t start2 = kdt_rt::checked_index(static_cast<int64_t>(slot), 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 47, 40, 1709, 1713}, "index");
#line 47
    [[maybe_unused]] static const kdt_rt::SourceLoc site3 = kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 47, 33, 1702, 1714};
#line 47
    kdt_rt::check_access(s.in_buf_shadow_, kdt_rt::Box{3, {start2, 0, 0}, {1, 32, 256}}, kdt_rt::Access::Read, s.clock, &site3);
#line 47
    const int64_t start4 = kdt_rt::checked_index(static_cast<int64_t>(slot), 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 47, 17, 1686, 1690}, "index");
#line 47
    [[maybe_unused]] static const kdt_rt::SourceLoc site5 = kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 47, 9, 1678, 1735};
#line 47
    kdt_rt::check_access(s.out_buf_shadow_, kdt_rt::Box{3, {start4, 0, 0}, {1, 32, 256}}, kdt_rt::Access::Write, s.clock, &site5);
#line 47
    {
#line 47
      int64_t f6 = 0;
#line 47
      (void)f6;
#line 47
      for (int64_t i6_0 = 0; i6_0 < 32; ++i6_0) {
#line 47
        for (int64_t i6_1 = 0; i6_1 < 256; ++i6_1) {
#line 47
          s.out_buf[(start4) * 8192 + (i6_0) * 256 + (i6_1)] = kdt_rt::op_add(kdt_rt::op_mul(kdt_rt::maximum(s.in_buf[(start2) * 8192 + (i6_0) * 256 + (i6_1)], 0x0p+0f), p.scale), 0x1p+0f);
#line 47
          ++f6;
#line 47
        }
#line 47
      }
#line 47
    }
#line 47
    L.scheduler.note_effect(device);
#line 49
    auto dma7 = std::make_shared<kdt_rt::DmaRecord>();
#line 49
    dma7->site = 2;
#line 49
    dma7->bytes = 32768;
#line 49
    dma7->src_device = device;
#line 49
    dma7->dst_device = device;
#line 49
    dma7->program = s.flat;
#line 49
    dma7->loc = kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 49, 9, 1778, 1847};
#line 49
    dma7->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(slot), 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 49, 27, 1796, 1800}, "DMA source index");
#line 49
    dma7->starts[1] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_add(base, kdt_rt::op_mul(t, int32_t(32)))), 32, 2048, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 49, 39, 1808, 1821}, "DMA destination index");
#line 49
    dma7->src_box = kdt_rt::Box{3, {dma7->starts[0], 0, 0}, {1, 32, 256}};
#line 49
    dma7->dst_box = kdt_rt::Box{2, {dma7->starts[1], 0}, {32, 256}};
#line 49
    dma7->add = false;
#line 49
    dma7->src_shadow = &s.out_buf_shadow_;
#line 49
    dma7->dst_shadow = &L.shadows[static_cast<size_t>(dma7->dst_device) * 2 + 1];
#line 49
    dma7->dst_sem = &s.out_sem[kdt_rt::checked_index(slot, 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 49, 71, 1840, 1844}, "semaphore index")];
#line 49
    dma7->has_src_sem = false;
#line 49
    kdt_rt::claim_dma(dma7, s.clock);
#line 49
    if (options.eager_dma) dma_pipeline_run_dma(L, *dma7);
#line 49
    s.out_sem[kdt_rt::checked_index(slot, 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 49, 71, 1840, 1844}, "semaphore index")].in_flight.push_back(dma7);
#line 49
    L.scheduler.note_effect(device);
    {
#line 50
      auto& sem_ = s.stored[0];
#line 50
      sem_.value += int32_t(1);
#line 50
      kdt_rt::release(sem_, s.clock);
#line 50
    }
#line 50
    L.scheduler.note_effect(device);
#line 33
  }
#line 54
  {
#line 54
    auto& sem_ = s.out_sem[kdt_rt::checked_index(int32_t(0), 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 54, 22, 1953, 1954}, "semaphore index")];
#line 54
    L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `out_sem` (no DMA in flight)", kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 54, 5, 1936, 1969}, s.flat});
#line 54
    std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 32768, options);
#line 54
    if (d_->bytes != 32768) {
#line 54
      kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 32768 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 54, 5, 1936, 1969}, {{"the DMA was started here", d_->loc}}};
#line 54
      throw kdt_rt::RunFailure{e_};
#line 54
    }
#line 54
    kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 54
    if (!d_->landed) dma_pipeline_run_dma(L, *d_);
#line 54
  }
#line 54
  L.scheduler.note_effect(device);
  {
#line 55
    auto& sem_ = s.out_sem[kdt_rt::checked_index(int32_t(1), 1, 2, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 55, 22, 1991, 1992}, "semaphore index")];
#line 55
    L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `out_sem` (no DMA in flight)", kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 55, 5, 1974, 2007}, s.flat});
#line 55
    std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 32768, options);
#line 55
    if (d_->bytes != 32768) {
#line 55
      kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 32768 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 55, 5, 1974, 2007}, {{"the DMA was started here", d_->loc}}};
#line 55
      throw kdt_rt::RunFailure{e_};
#line 55
    }
#line 55
    kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 55
    if (!d_->landed) dma_pipeline_run_dma(L, *d_);
#line 55
  }
#line 55
  L.scheduler.note_effect(device);
  const int32_t sem8 = static_cast<int32_t>(L.scheduler.read_semaphore(device, [&] { return s.stored[0].value; }, [] {}));
#line 56
  if (!((sem8 == int32_t(16)))) kdt_rt::fail(kdt_rt::Code::AssertFailed, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 56, 5, 2012, 2068}, "assertion failed: a tile was skipped");
  {
#line 57
    auto& sem_ = s.stored[0];
#line 57
    const int64_t amount_ = int32_t(16);
#line 57
    L.scheduler.wait_until(device, [&] { return sem_.value >= amount_; }, {"sem_wait on `stored` (value " + std::to_string(sem_.value) + ", needs " + std::to_string(amount_) + ")", kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 57, 5, 2073, 2097}, s.flat});
#line 57
    sem_.value -= amount_;
#line 57
    kdt_rt::acquire(s.clock, sem_);
#line 57
  }
#line 57
  L.scheduler.note_effect(device);
  for (int64_t k_ = 0; k_ < 2; ++k_) {
#line 58
    if (!s.in_sem[k_].in_flight.empty()) {
#line 58
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.in_sem[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `in_sem[" + std::to_string(k_) + "]`");
#line 58
    }
#line 58
  }
#line 58
  for (int64_t k_ = 0; k_ < 2; ++k_) {
#line 58
    if (!s.out_sem[k_].in_flight.empty()) {
#line 58
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.out_sem[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `out_sem[" + std::to_string(k_) + "]`");
#line 58
    }
#line 58
  }
#line 58
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 58
    if (s.stored[k_].value != 0) {
#line 58
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/dma_pipeline.kd", 14, 1, 548, 2139}, "semaphore `stored` is " + std::to_string(s.stored[k_].value) + " when the program ends; it must be back at 0");
#line 58
    }
#line 58
  }
#line 58
}
#line 5511 "<stdout>"

// Runs kernel `dma_pipeline` over its grid [4].
// Returns 0, or 1 when a run-time check failed (described in *error).
inline int dma_pipeline(const float* x, float scale, float* y, const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {
  dma_pipeline_launch L;
  L.options = options;
  for (int device = 0; device < 1; ++device) {
    L.params.push_back(dma_pipeline_params{x, scale, y});
    L.shadows.emplace_back();
    L.shadows.back().init("x", {2048, 256}, false, false);
    L.shadows.emplace_back();
    L.shadows.back().init("y", {2048, 256}, true, true);
  }
  const std::vector<int64_t> order = kdt_rt::program_order(4, options);
  kdt_rt::RunError failure;
  bool ok = L.scheduler.run([&](int device) {
    for (int64_t flat : order) {
      dma_pipeline_program(L, device, L.state(device, flat));
      // One device: nothing can reach a finished program's state.
      L.states.erase(flat);
    }
  }, failure);
  if (!ok) {
    if (error) *error = failure;
    return 1;
  }
  return 0;
}

}  // namespace kdt_kernels

// ===== XLA FFI handlers (--emit=xla-ffi, docs/c-api.md) =====
// One handler per kernel, `kdt_xla_KERNEL`, for jax.ffi.register_ffi_target(platform="cpu"). Compile
// with the headers jaxlib ships: -isystem $(python -c 'import jax; print(jax.ffi.include_dir())').
#include "xla/ffi/api/ffi.h"

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
  return "{\"abi\":1,\"binding\":\"xla-ffi\",\"checks\":true,\"kernels\":[{\"devices\":1,\"grid\":[4],\"mesh\":[1],\"name\":\"dma_pipeline\",\"params\":[{\"dtype\":\"f32\",\"kind\":\"in\",\"name\":\"x\",\"shape\":[2048,256]},{\"dtype\":\"f32\",\"kind\":\"scalar\",\"name\":\"scale\"},{\"dtype\":\"f32\",\"kind\":\"out\",\"name\":\"y\",\"shape\":[2048,256]}],\"symbol\":\"kdt_xla_dma_pipeline\"}],\"source\":\"samples/dma_pipeline.kd\"}";
}

namespace kdt_bind {
namespace ffi = xla::ffi;
// A failure as the FFI error JAX raises: the message, then the diagnostic's JSON on a line of its own.
static ffi::Error error_of(const kdt_rt::RunError& failure) {
  const kdt_rt::RunError e = kdt_rt::with_call_notes(failure);
  return ffi::Error(ffi::ErrorCode::kInvalidArgument, std::string(e.loc.file ? e.loc.file : "") + ":" +
                    std::to_string(e.loc.line) + ":" + std::to_string(e.loc.column) + ": " + e.message + " [" +
                    e.code.name() + "]\nkdt-diagnostic: " + kdt_rt::failure_json(e));
}
// A buffer of the wrong type or size (a caller that bypassed kdt.jax's checks).
static bool fits(const ffi::AnyBuffer& b, ffi::DataType type, size_t count) {
  return b.element_type() == type && b.element_count() == count;
}
// The run options from the call's attributes.
static bool options(int32_t dma_mode, int32_t dma_order, int32_t program_order, int32_t jobs, int64_t seed, kdt_rt::RunOptions& run) {
  if (dma_mode < 0 || dma_mode > 1 || dma_order < 0 || dma_order > 2 || program_order < 0 || program_order > 2) return false;
  if (jobs < 1 || jobs > 4096) return false;
  run.eager_dma = dma_mode == 1;
  run.dma_order = dma_order;
  run.program_order = program_order;
  run.jobs = jobs;
  run.seed = static_cast<uint64_t>(seed);
  return true;
}
}  // namespace kdt_bind

// Kernel `dma_pipeline`.
static kdt_bind::ffi::Error kdt_xla_dma_pipeline_impl(kdt_bind::ffi::AnyBuffer x_in, kdt_bind::ffi::Result<kdt_bind::ffi::AnyBuffer> y_out, float scale_attr, int32_t kdt_dma_mode, int32_t kdt_dma_order, int32_t kdt_program_order, int32_t kdt_jobs, int64_t kdt_seed) {
  if (!(kdt_bind::fits(x_in, kdt_bind::ffi::DataType::F32, 524288) && kdt_bind::fits(*y_out, kdt_bind::ffi::DataType::F32, 524288))) {
    return kdt_bind::ffi::Error(kdt_bind::ffi::ErrorCode::kInvalidArgument, "kdt: kernel `dma_pipeline` was called with buffers of other dtypes or sizes than its parameters");
  }
  kdt_rt::RunOptions run;
  if (!kdt_bind::options(kdt_dma_mode, kdt_dma_order, kdt_program_order, kdt_jobs, kdt_seed, run)) {
    return kdt_bind::ffi::Error(kdt_bind::ffi::ErrorCode::kInvalidArgument, "kdt: invalid run options");
  }
  float scale_value = scale_attr;
  const float* x = static_cast<const float*>(x_in.untyped_data());
  const float scale = *static_cast<const float*>(&scale_value);
  float* y = static_cast<float*>(y_out->untyped_data());
  kdt_rt::RunError failure;
  int status = kdt_bind::launch(failure, [&](kdt_rt::RunError& e) { return kdt_kernels::dma_pipeline(x, scale, y, run, &e); });
  if (status != 0) return kdt_bind::error_of(failure);
  return kdt_bind::ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(kdt_xla_dma_pipeline, kdt_xla_dma_pipeline_impl, kdt_bind::ffi::Ffi::Bind().Arg<kdt_bind::ffi::AnyBuffer>().Ret<kdt_bind::ffi::AnyBuffer>().Attr<float>("scale").Attr<int32_t>("kdt_dma_mode").Attr<int32_t>("kdt_dma_order").Attr<int32_t>("kdt_program_order").Attr<int32_t>("kdt_jobs").Attr<int64_t>("kdt_seed"));

