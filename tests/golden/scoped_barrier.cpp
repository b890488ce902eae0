namespace kdt_kernels {

// Parameters of kernel `scoped_barrier`: one pointer per ref (row-major), scalars by value.
struct scoped_barrier_params {
  const float* data;  // f32[8, 256] @global, in
  float* out;  // f32[8, 256] @global
  float* cur;  // f32[8, 256] @global
  float* mailbox;  // f32[8, 256] @global
};

// Scratch buffers and semaphores of one program (one instance per program).
struct scoped_barrier_program_state {
  alignas(64) float stage[1024];
  kdt_rt::RefShadow stage_shadow_;
  kdt_rt::RegularSemaphore entered[1];
  kdt_rt::RegularSemaphore leaving[1];
  kdt_rt::DmaSemaphore recv[1];
  kdt_rt::DmaSemaphore send[1];
  kdt_rt::DmaSemaphore copy[1];
  kdt_rt::ProgramClock clock;  // happens-before, for the cross-program race check
  int64_t program[1];  // program ids
  int64_t flat = 0;  // flattened program index
};

struct scoped_barrier_launch {
  std::vector<scoped_barrier_params> params;  // one set per device
  std::vector<kdt_rt::RefShadow> shadows;  // ref parameters, per device
  kdt_rt::RunOptions options;
  kdt_rt::DeviceScheduler scheduler{4};
  // By device * programs + flat index; ordered, so that the launch-end checks are deterministic.
  std::map<int64_t, std::unique_ptr<scoped_barrier_program_state>> states;
  scoped_barrier_program_state& state(int device, int64_t flat) {
    auto& slot = states[int64_t{device} * 2 + flat];
    if (!slot) {
      slot = std::make_unique<scoped_barrier_program_state>();
      init(*slot, device, flat);
    }
    return *slot;
  }
  static void init(scoped_barrier_program_state& s, int device, int64_t flat) {
    (void)device;
    s.flat = flat;
    s.clock.init(device, flat, 4);
    s.stage_shadow_.init("stage", {8, 128}, true, false);
    s.program[0] = flat / 1 % 2;
  }
};

// The calls of KD functions expanded in `scoped_barrier`, for the notes of run-time diagnostics.
[[maybe_unused]] static const kdt_rt::CallSite scoped_barrier_call0 = {"barrier", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 61, 9, 2867, 2896}};
[[maybe_unused]] static const kdt_rt::CallSite scoped_barrier_call1 = {"barrier", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 71, 9, 3327, 3356}};

// DMA #0: dst = src over 4096 bytes.
static void scoped_barrier_dma0(scoped_barrier_launch& L, const kdt_rt::DmaRecord& d) {
  const scoped_barrier_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const scoped_barrier_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  scoped_barrier_program_state& ss = L.state(d.src_device, d.program);
  scoped_barrier_program_state& ds = L.state(d.dst_device, d.program);
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  for (int64_t i0 = 0; i0 < 8; ++i0) {
    std::memcpy(dp.mailbox + (i0) * 256 + (starts[1]), sp.cur + (i0) * 256 + (starts[0]), 128 * sizeof(float));
  }
}

// DMA #1: dst = src over 4096 bytes.
static void scoped_barrier_dma1(scoped_barrier_launch& L, const kdt_rt::DmaRecord& d) {
  const scoped_barrier_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const scoped_barrier_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  scoped_barrier_program_state& ss = L.state(d.src_device, d.program);
  scoped_barrier_program_state& ds = L.state(d.dst_device, d.program);
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  for (int64_t i0 = 0; i0 < 8; ++i0) {
    std::memcpy(ds.stage + (i0) * 128, sp.mailbox + (i0) * 256 + (starts[0]), 128 * sizeof(float));
  }
}

[[maybe_unused]] static void scoped_barrier_run_dma(scoped_barrier_launch& L, kdt_rt::DmaRecord& d) {
  (void)L;
  switch (d.site) {
    case 0: scoped_barrier_dma0(L, d); break;
    case 1: scoped_barrier_dma1(L, d); break;
    default: break;
  }
  d.landed = true;
}

// One program of `scoped_barrier`.
static void scoped_barrier_program(scoped_barrier_launch& L, int device, scoped_barrier_program_state& s) {
  const scoped_barrier_params& p = L.params[static_cast<size_t>(device)];
  const kdt_rt::RunOptions& options = L.options;
  (void)p, (void)options;
#line 44 "samples/scoped_barrier.kd"
  [[maybe_unused]] const int32_t c0 = kdt_rt::op_mul(static_cast<int32_t>(s.program[0]), int32_t(128));
  [[maybe_unused]] const int32_t me = static_cast<int32_t>(device);
  [[maybe_unused]] const int32_t right = kdt_rt::int_rem<int32_t>(kdt_rt::op_add(me, int32_t(1)), kdt_rt::checked_divisor<int32_t>(int32_t(4), kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 46, 17, 2440, 2452}));
  [[maybe_unused]] const int32_t left = kdt_rt::int_rem<int32_t>(kdt_rt::op_sub(kdt_rt::op_add(me, int32_t(4)), int32_t(1)), kdt_rt::checked_divisor<int32_t>(int32_t(4), kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 47, 16, 2469, 2485}));
#line 49
  const int64_t start0 = kdt_rt::checked_index(static_cast<int64_t>(c0), 128, 256, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 49, 37, 2524, 2526}, "index");
#line 49
  [[maybe_unused]] static const kdt_rt::SourceLoc site1 = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 49, 26, 2513, 2532};
#line 49
  kdt_rt::check_access(L.shadows[static_cast<size_t>(device) * 4 + 0], kdt_rt::Box{2, {0, start0}, {8, 128}}, kdt_rt::Access::Read, s.clock, &site1);
#line 49
  const int64_t start2 = kdt_rt::checked_index(static_cast<int64_t>(c0), 128, 256, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 49, 15, 2502, 2504}, "index");
#line 49
  [[maybe_unused]] static const kdt_rt::SourceLoc site3 = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 49, 5, 2492, 2533};
#line 49
  kdt_rt::check_access(L.shadows[static_cast<size_t>(device) * 4 + 1], kdt_rt::Box{2, {0, start2}, {8, 128}}, kdt_rt::Access::Write, s.clock, &site3);
#line 49
  {
#line 49
    int64_t f4 = 0;
#line 49
    (void)f4;
#line 49
    for (int64_t i4_0 = 0; i4_0 < 8; ++i4_0) {
#line 49
      for (int64_t i4_1 = 0; i4_1 < 128; ++i4_1) {
#line 49
        p.out[(i4_0) * 256 + (start2 + i4_1)] = p.data[(i4_0) * 256 + (start0 + i4_1)];
#line 49
        ++f4;
#line 49
      }
#line 49
    }
#line 49
  }
  const int64_t start5 = kdt_rt::checked_index(static_cast<int64_t>(c0), 128, 256, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 50, 37, 2570, 2572}, "index");
#line 50
  [[maybe_unused]] static const kdt_rt::SourceLoc site6 = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 50, 26, 2559, 2578};
#line 50
  kdt_rt::check_access(L.shadows[static_cast<size_t>(device) * 4 + 0], kdt_rt::Box{2, {0, start5}, {8, 128}}, kdt_rt::Access::Read, s.clock, &site6);
#line 50
  const int64_t start7 = kdt_rt::checked_index(static_cast<int64_t>(c0), 128, 256, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 50, 15, 2548, 2550}, "index");
#line 50
  [[maybe_unused]] static const kdt_rt::SourceLoc site8 = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 50, 5, 2538, 2579};
#line 50
  kdt_rt::check_access(L.shadows[static_cast<size_t>(device) * 4 + 2], kdt_rt::Box{2, {0, start7}, {8, 128}}, kdt_rt::Access::Write, s.clock, &site8);
#line 50
  {
#line 50
    int64_t f9 = 0;
#line 50
    (void)f9;
#line 50
    for (int64_t i9_0 = 0; i9_0 < 8; ++i9_0) {
#line 50
      for (int64_t i9_1 = 0; i9_1 < 128; ++i9_1) {
#line 50
        p.cur[(i9_0) * 256 + (start7 + i9_1)] = p.data[(i9_0) * 256 + (start5 + i9_1)];
#line 50
        ++f9;
#line 50
      }
#line 50
    }
#line 50
  }
#line 52
  for (int64_t step_it = int32_t(0); step_it < int32_t(3); step_it += 1) {
#line 52
    [[maybe_unused]] const int32_t step = static_cast<int32_t>(step_it);
#line 54
    kdt_rt::enter_scope(s.stage_shadow_, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 54, 9, 2694, 2728});  // uninitialised at each entry
#line 54
    // barrier (KD function), expanded here
#line 61
    [[maybe_unused]] const int32_t left_2 = left;
#line 61
    [[maybe_unused]] const int32_t right_2 = right;
#line 35
    {
#line 35
      auto& sem_ = L.state(kdt_rt::checked_device(left_2, 4, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 35, 29, 2109, 2113, &scoped_barrier_call0}), s.flat).entered[0];
#line 35
      sem_.value += int32_t(1);
#line 35
      kdt_rt::release(sem_, s.clock);
#line 35
    }
    {
#line 36
      auto& sem_ = L.state(kdt_rt::checked_device(right_2, 4, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 36, 29, 2144, 2149, &scoped_barrier_call0}), s.flat).entered[0];
#line 36
      sem_.value += int32_t(1);
#line 36
      kdt_rt::release(sem_, s.clock);
#line 36
    }
    {
#line 37
      auto& sem_ = s.entered[0];
#line 37
      const int64_t amount_ = int32_t(2);
#line 37
      L.scheduler.wait_until(device, [&] { return sem_.value >= amount_; }, {"sem_wait on `entered` (value " + std::to_string(sem_.value) + ", needs " + std::to_string(amount_) + ")", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 37, 5, 2156, 2171, &scoped_barrier_call0}, s.flat});
#line 37
      sem_.value -= amount_;
#line 37
      kdt_rt::acquire(s.clock, sem_);
#line 37
    }
#line 64
    auto dma10 = std::make_shared<kdt_rt::DmaRecord>();
#line 64
    dma10->site = 0;
#line 64
    dma10->bytes = 4096;
#line 64
    dma10->src_device = device;
#line 64
    dma10->dst_device = kdt_rt::checked_device(right, 4, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 63, 31, 3015, 3020});
#line 64
    dma10->program = s.flat;
#line 64
    dma10->loc = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 64, 9, 3031, 3047};
#line 64
    dma10->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(c0), 128, 256, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 62, 34, 2931, 2933}, "DMA source index");
#line 64
    dma10->starts[1] = kdt_rt::checked_index(static_cast<int64_t>(c0), 128, 256, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 62, 58, 2955, 2957}, "DMA destination index");
#line 64
    dma10->src_box = kdt_rt::Box{2, {0, dma10->starts[0]}, {8, 128}};
#line 64
    dma10->dst_box = kdt_rt::Box{2, {0, dma10->starts[1]}, {8, 128}};
#line 64
    dma10->add = false;
#line 64
    dma10->src_shadow = &L.shadows[static_cast<size_t>(device) * 4 + 2];
#line 64
    dma10->dst_shadow = &L.shadows[static_cast<size_t>(dma10->dst_device) * 4 + 3];
#line 64
    dma10->dst_sem = &L.state(dma10->dst_device, s.flat).recv[0];
#line 64
    dma10->has_src_sem = true;
#line 64
    kdt_rt::claim_dma(dma10, s.clock);
#line 64
    if (options.eager_dma) scoped_barrier_run_dma(L, *dma10);
#line 64
    L.state(dma10->dst_device, s.flat).recv[0].in_flight.push_back(dma10);
#line 64
    s.send[0].in_flight.push_back(dma10);
    {
#line 65
      auto& sem_ = s.send[0];
#line 65
      L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `send` (no DMA in flight)", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 65, 9, 3056, 3071}, s.flat});
#line 65
      std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 4096, options);
#line 65
      if (d_->bytes != 4096) {
#line 65
        kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 4096 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 65, 9, 3056, 3071}, {{"the DMA was started here", d_->loc}}};
#line 65
        throw kdt_rt::RunFailure{e_};
#line 65
      }
#line 65
      kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 65
      if (!d_->landed) scoped_barrier_run_dma(L, *d_);
#line 65
    }
#line 65
    {
#line 65
      auto& sem_ = s.recv[0];
#line 65
      L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `recv` (no DMA in flight)", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 65, 9, 3056, 3071}, s.flat});
#line 65
      std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 4096, options);
#line 65
      if (d_->bytes != 4096) {
#line 65
        kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 4096 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 65, 9, 3056, 3071}, {{"the DMA was started here", d_->loc}}};
#line 65
        throw kdt_rt::RunFailure{e_};
#line 65
      }
#line 65
      kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 65
      if (!d_->landed) scoped_barrier_run_dma(L, *d_);
#line 65
    }
#line 67
    auto dma11 = std::make_shared<kdt_rt::DmaRecord>();
#line 67
    dma11->site = 1;
#line 67
    dma11->bytes = 4096;
#line 67
    dma11->src_device = device;
#line 67
    dma11->dst_device = device;
#line 67
    dma11->program = s.flat;
#line 67
    dma11->loc = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 67, 9, 3195, 3211};
#line 67
    dma11->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(c0), 128, 256, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 66, 38, 3163, 3165}, "DMA source index");
#line 67
    dma11->src_box = kdt_rt::Box{2, {0, dma11->starts[0]}, {8, 128}};
#line 67
    dma11->dst_box = kdt_rt::Box{2, {0, 0}, {8, 128}};
#line 67
    dma11->add = false;
#line 67
    dma11->src_shadow = &L.shadows[static_cast<size_t>(device) * 4 + 3];
#line 67
    dma11->dst_shadow = &s.stage_shadow_;
#line 67
    dma11->dst_sem = &s.copy[0];
#line 67
    dma11->has_src_sem = false;
#line 67
    kdt_rt::claim_dma(dma11, s.clock);
#line 67
    if (options.eager_dma) scoped_barrier_run_dma(L, *dma11);
#line 67
    s.copy[0].in_flight.push_back(dma11);
    {
#line 68
      auto& sem_ = s.copy[0];
#line 68
      L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `copy` (no DMA in flight)", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 68, 9, 3220, 3235}, s.flat});
#line 68
      std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 4096, options);
#line 68
      if (d_->bytes != 4096) {
#line 68
        kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 4096 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 68, 9, 3220, 3235}, {{"the DMA was started here", d_->loc}}};
#line 68
        throw kdt_rt::RunFailure{e_};
#line 68
      }
#line 68
      kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 68
      if (!d_->landed) scoped_barrier_run_dma(L, *d_);
#line 68
    }
    [[maybe_unused]] static const kdt_rt::SourceLoc site12 = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 69, 31, 3266, 3276};
#line 69
    kdt_rt::check_access(s.stage_shadow_, kdt_rt::Box{2, {0, 0}, {8, 128}}, kdt_rt::Access::Read, s.clock, &site12);
#line 69
    const int64_t start13 = kdt_rt::checked_index(static_cast<int64_t>(c0), 128, 256, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 69, 19, 3254, 3256}, "index");
#line 69
    [[maybe_unused]] static const kdt_rt::SourceLoc site14 = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 69, 9, 3244, 3277};
#line 69
    kdt_rt::check_access(L.shadows[static_cast<size_t>(device) * 4 + 1], kdt_rt::Box{2, {0, start13}, {8, 128}}, kdt_rt::Access::Update, s.clock, &site14);
#line 69
    {
#line 69
      int64_t f15 = 0;
#line 69
      (void)f15;
#line 69
      for (int64_t i15_0 = 0; i15_0 < 8; ++i15_0) {
#line 69
        for (int64_t i15_1 = 0; i15_1 < 128; ++i15_1) {
#line 69
          p.out[(i15_0) * 256 + (start13 + i15_1)] = kdt_rt::op_add(p.out[(i15_0) * 256 + (start13 + i15_1)], s.stage[(i15_0) * 128 + (i15_1)]);
#line 69
          ++f15;
#line 69
        }
#line 69
      }
#line 69
    }
    [[maybe_unused]] static const kdt_rt::SourceLoc site16 = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 70, 30, 3307, 3317};
#line 70
    kdt_rt::check_access(s.stage_shadow_, kdt_rt::Box{2, {0, 0}, {8, 128}}, kdt_rt::Access::Read, s.clock, &site16);
#line 70
    const int64_t start17 = kdt_rt::checked_index(static_cast<int64_t>(c0), 128, 256, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 70, 19, 3296, 3298}, "index");
#line 70
    [[maybe_unused]] static const kdt_rt::SourceLoc site18 = kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 70, 9, 3286, 3318};
#line 70
    kdt_rt::check_access(L.shadows[static_cast<size_t>(device) * 4 + 2], kdt_rt::Box{2, {0, start17}, {8, 128}}, kdt_rt::Access::Write, s.clock, &site18);
#line 70
    {
#line 70
      int64_t f19 = 0;
#line 70
      (void)f19;
#line 70
      for (int64_t i19_0 = 0; i19_0 < 8; ++i19_0) {
#line 70
        for (int64_t i19_1 = 0; i19_1 < 128; ++i19_1) {
#line 70
          p.cur[(i19_0) * 256 + (start17 + i19_1)] = s.stage[(i19_0) * 128 + (i19_1)];
#line 70
          ++f19;
#line 70
        }
#line 70
      }
#line 70
    }
#line 70
    // barrier (KD function), expanded here
    [[maybe_unused]] const int32_t left_3 = left;
#line 71
    [[maybe_unused]] const int32_t right_3 = right;
#line 35
    {
#line 35
      auto& sem_ = L.state(kdt_rt::checked_device(left_3, 4, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 35, 29, 2109, 2113, &scoped_barrier_call1}), s.flat).leaving[0];
#line 35
      sem_.value += int32_t(1);
#line 35
      kdt_rt::release(sem_, s.clock);
#line 35
    }
    {
#line 36
      auto& sem_ = L.state(kdt_rt::checked_device(right_3, 4, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 36, 29, 2144, 2149, &scoped_barrier_call1}), s.flat).leaving[0];
#line 36
      sem_.value += int32_t(1);
#line 36
      kdt_rt::release(sem_, s.clock);
#line 36
    }
    {
#line 37
      auto& sem_ = s.leaving[0];
#line 37
      const int64_t amount_ = int32_t(2);
#line 37
      L.scheduler.wait_until(device, [&] { return sem_.value >= amount_; }, {"sem_wait on `leaving` (value " + std::to_string(sem_.value) + ", needs " + std::to_string(amount_) + ")", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 37, 5, 2156, 2171, &scoped_barrier_call1}, s.flat});
#line 37
      sem_.value -= amount_;
#line 37
      kdt_rt::acquire(s.clock, sem_);
#line 37
    }
#line 72
    kdt_rt::check_scope_scratch(s.stage_shadow_, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 72, 5, 3362, 3363});
#line 72
    for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 72
      if (!s.recv[k_].in_flight.empty()) {
#line 72
        kdt_rt::RunError e_{kdt_rt::Code::SemaphoreLeak, "this DMA is never retired: its block ends with it in flight on `recv`", s.recv[k_].in_flight.front()->loc, {{"the block ends here", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 72, 5, 3362, 3363}}}};
#line 72
        throw kdt_rt::RunFailure{e_};
#line 72
      }
#line 72
    }
#line 72
    for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 72
      if (!s.send[k_].in_flight.empty()) {
#line 72
        kdt_rt::RunError e_{kdt_rt::Code::SemaphoreLeak, "this DMA is never retired: its block ends with it in flight on `send`", s.send[k_].in_flight.front()->loc, {{"the block ends here", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 72, 5, 3362, 3363}}}};
#line 72
        throw kdt_rt::RunFailure{e_};
#line 72
      }
#line 72
    }
#line 72
    for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 72
      if (!s.copy[k_].in_flight.empty()) {
#line 72
        kdt_rt::RunError e_{kdt_rt::Code::SemaphoreLeak, "this DMA is never retired: its block ends with it in flight on `copy`", s.copy[k_].in_flight.front()->loc, {{"the block ends here", kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 72, 5, 3362, 3363}}}};
#line 72
        throw kdt_rt::RunFailure{e_};
#line 72
      }
#line 72
    }
#line 52
  }
#line 73
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 73
    if (s.entered[k_].value != 0) {
#line 73
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 40, 1, 2175, 3365}, "semaphore `entered` is " + std::to_string(s.entered[k_].value) + " when the program ends; it must be back at 0");
#line 73
    }
#line 73
  }
#line 73
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 73
    if (s.leaving[k_].value != 0) {
#line 73
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 40, 1, 2175, 3365}, "semaphore `leaving` is " + std::to_string(s.leaving[k_].value) + " when the program ends; it must be back at 0");
#line 73
    }
#line 73
  }
#line 73
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 73
    if (!s.recv[k_].in_flight.empty()) {
#line 73
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.recv[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `recv`");
#line 73
    }
#line 73
  }
#line 73
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 73
    if (!s.send[k_].in_flight.empty()) {
#line 73
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.send[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `send`");
#line 73
    }
#line 73
  }
#line 73
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 73
    if (!s.copy[k_].in_flight.empty()) {
#line 73
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.copy[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `copy`");
#line 73
    }
#line 73
  }
#line 73
}
#line 5622 "<stdout>"

// Semaphores of every program when the launch ends (remote DMAs and signals may arrive after a program ended).
[[maybe_unused]] static void scoped_barrier_launch_end_checks(scoped_barrier_launch& L) {
  for (const auto& [key_, state_] : L.states) {
    scoped_barrier_program_state& s = *state_;
    const std::string when_ = "the launch ends (device " + std::to_string(key_ / 2) + ", program " + std::to_string(s.flat) + ")";
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (s.entered[k_].value != 0) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 40, 1, 2175, 3365}, "semaphore `entered` is " + std::to_string(s.entered[k_].value) + " when " + when_ + "; it must be back at 0");
      }
    }
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (s.leaving[k_].value != 0) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/scoped_barrier.kd", 40, 1, 2175, 3365}, "semaphore `leaving` is " + std::to_string(s.leaving[k_].value) + " when " + when_ + "; it must be back at 0");
      }
    }
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (!s.recv[k_].in_flight.empty()) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.recv[k_].in_flight.front()->loc, "this DMA is never retired: " + when_ + " with it in flight on `recv`");
      }
    }
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (!s.send[k_].in_flight.empty()) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.send[k_].in_flight.front()->loc, "this DMA is never retired: " + when_ + " with it in flight on `send`");
      }
    }
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (!s.copy[k_].in_flight.empty()) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.copy[k_].in_flight.front()->loc, "this DMA is never retired: " + when_ + " with it in flight on `copy`");
      }
    }
  }
}

// Runs kernel `scoped_barrier` over its grid [2] on 4 simulated devices (one pointer per device for each ref).
// Returns 0, or 1 when a run-time check failed (described in *error).
inline int scoped_barrier(const float* const* data, float* const* out, float* const* cur, float* const* mailbox, const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {
  scoped_barrier_launch L;
  L.options = options;
  for (int device = 0; device < 4; ++device) {
    L.params.push_back(scoped_barrier_params{data[device], out[device], cur[device], mailbox[device]});
    L.shadows.emplace_back();
    L.shadows.back().init("data", {8, 256}, false, false);
    L.shadows.emplace_back();
    L.shadows.back().init("out", {8, 256}, true, true);
    L.shadows.emplace_back();
    L.shadows.back().init("cur", {8, 256}, true, true);
    L.shadows.emplace_back();
    L.shadows.back().init("mailbox", {8, 256}, true, true);
  }
  const std::vector<int64_t> order = kdt_rt::program_order(2, options);
  kdt_rt::RunError failure;
  bool ok = L.scheduler.run([&](int device) {
    for (int64_t flat : order) {
      scoped_barrier_program(L, device, L.state(device, flat));
    }
  }, failure);
  if (ok) {
    try {
      scoped_barrier_launch_end_checks(L);
    } catch (const kdt_rt::RunFailure& f) {
      failure = f.error;
      ok = false;
    }
  }
  if (!ok) {
    if (error) *error = failure;
    return 1;
  }
  return 0;
}

}  // namespace kdt_kernels
