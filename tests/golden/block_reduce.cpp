namespace kdt_kernels {

// Parameters of kernel `row_sums`: one pointer per ref (row-major), scalars by value.
struct row_sums_params {
  const float* x;  // f32[256, 1024] @global, in
  float* y;  // f32[256, 1] @global
};

// Scratch buffers and semaphores of one program (one instance per program).
struct row_sums_program_state {
  alignas(64) float x_blocks[8192];
  kdt_rt::RefShadow x_blocks_shadow_;
  alignas(64) float y_blocks[64];
  kdt_rt::RefShadow y_blocks_shadow_;
  kdt_rt::DmaSemaphore x_sems[2];
  kdt_rt::DmaSemaphore y_sems[2];
  kdt_rt::ProgramClock clock;  // happens-before, for the cross-program race check
  int64_t program[1];  // program ids
  int64_t flat = 0;  // flattened program index
  int64_t position = 0;  // in the program order (add=true DMAs land in its order)
};

struct row_sums_launch {
  std::vector<row_sums_params> params;  // one set per device
  std::vector<kdt_rt::RefShadow> shadows;  // ref parameters, per device
  kdt_rt::RunOptions options;
  kdt_rt::DeviceScheduler scheduler{1};
  kdt_rt::ProgramPool pool;  // -j (kdt_parallel.h)
  std::vector<std::unique_ptr<row_sums_program_state>> worker_states;  // one per worker, sized before the launch
  row_sums_program_state& state(int worker, int device, int64_t flat) {
    auto& slot = worker_states[static_cast<size_t>(worker)];
    if (!slot) {
      slot = std::make_unique<row_sums_program_state>();
    } else {
      kdt_rt::renew(*slot);
    }
    init(*slot, device, flat);
    return *slot;
  }
  static void init(row_sums_program_state& s, int device, int64_t flat) {
    (void)device;
    s.flat = flat;
    s.clock.init(device, flat, 1);
    s.x_blocks_shadow_.init("x_blocks", {2, 32, 128}, true, false);
    s.y_blocks_shadow_.init("y_blocks", {2, 32, 1}, true, false);
    s.program[0] = flat / 1 % 8;
  }
};

// DMA #0: dst = src over 16384 bytes.
static void row_sums_dma0(row_sums_launch& L, const kdt_rt::DmaRecord& d) {
  const row_sums_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const row_sums_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  row_sums_program_state& ss = *static_cast<row_sums_program_state*>(d.issuer);
  row_sums_program_state& ds = ss;
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  for (int64_t i0 = 0; i0 < 32; ++i0) {
    std::memcpy(ds.x_blocks + (starts[2]) * 4096 + (i0) * 128, sp.x + (starts[0] + i0) * 1024 + (starts[1]), 128 * sizeof(float));
  }
}

// DMA #1: dst = src over 16384 bytes.
static void row_sums_dma1(row_sums_launch& L, const kdt_rt::DmaRecord& d) {
  const row_sums_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const row_sums_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  row_sums_program_state& ss = *static_cast<row_sums_program_state*>(d.issuer);
  row_sums_program_state& ds = ss;
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  for (int64_t i0 = 0; i0 < 32; ++i0) {
    std::memcpy(ds.x_blocks + (starts[2]) * 4096 + (i0) * 128, sp.x + (starts[0] + i0) * 1024 + (starts[1]), 128 * sizeof(float));
  }
}

// DMA #2: dst = src over 128 bytes.
static void row_sums_dma2(row_sums_launch& L, const kdt_rt::DmaRecord& d) {
  const row_sums_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const row_sums_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  row_sums_program_state& ss = *static_cast<row_sums_program_state*>(d.issuer);
  row_sums_program_state& ds = ss;
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  for (int64_t i0 = 0; i0 < 32; ++i0) {
    std::memcpy(dp.y + (starts[1] + i0) + (starts[2]), ss.y_blocks + (starts[0]) * 32 + (i0), 1 * sizeof(float));
  }
}

[[maybe_unused]] static void row_sums_run_dma(row_sums_launch& L, kdt_rt::DmaRecord& d) {
  (void)L;
  switch (d.site) {
    case 0: row_sums_dma0(L, d); break;
    case 1: row_sums_dma1(L, d); break;
    case 2: row_sums_dma2(L, d); break;
    default: break;
  }
  d.landed = true;
}

// One program of `row_sums`.
static void row_sums_program(row_sums_launch& L, int device, row_sums_program_state& s) {
  const row_sums_params& p = L.params[static_cast<size_t>(device)];
  const kdt_rt::RunOptions& options = L.options;
  (void)p, (void)options;
#line 16 "samples/block_reduce.kd"
  [[maybe_unused]] const int32_t i = static_cast<int32_t>(s.program[0]);
#line 14
  [[maybe_unused]] int32_t x_slot = int32_t(0);
#line 14
  [[maybe_unused]] int32_t x_at0 = int32_t(0);
#line 14
  [[maybe_unused]] int32_t x_next0 = int32_t(0);
#line 14
  [[maybe_unused]] int32_t x_at1 = int32_t(0);
#line 14
  [[maybe_unused]] int32_t x_next1 = int32_t(0);
#line 14
  [[maybe_unused]] bool x_incoming = false;
#line 14
  [[maybe_unused]] bool x_prefetched = false;
  [[maybe_unused]] int32_t y_slot = int32_t(0);
#line 15
  [[maybe_unused]] int32_t y_at0 = int32_t(0);
#line 15
  [[maybe_unused]] int32_t y_next0 = int32_t(0);
#line 15
  [[maybe_unused]] int32_t y_at1 = int32_t(0);
#line 15
  [[maybe_unused]] int32_t y_next1 = int32_t(0);
#line 15
  [[maybe_unused]] bool y_changes = false;
#line 15
  [[maybe_unused]] bool y_writing = false;
#line 15
  [[maybe_unused]] bool y_fresh = true;
  for (int64_t k_it = int32_t(0); k_it < int32_t(8); k_it += 1) {
#line 16
    [[maybe_unused]] const int32_t k = static_cast<int32_t>(k_it);
#line 16
    if ((k == int32_t(0))) {
#line 16
      x_at0 = i;
#line 16
      x_at1 = k;
#line 14
      auto dma0 = std::make_shared<kdt_rt::DmaRecord>();
#line 14
      dma0->site = 0;
#line 14
      dma0->bytes = 16384;
#line 14
      dma0->src_device = device;
#line 14
      dma0->dst_device = device;
#line 14
      dma0->program = s.flat;
#line 14
      dma0->issuer = &s;
#line 14
      dma0->loc = kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541};
#line 14
      dma0->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(x_at0, int32_t(32))), 32, 256, kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, "block spec of `x`: the block at");
#line 14
      dma0->starts[1] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(x_at1, int32_t(128))), 128, 1024, kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, "block spec of `x`: the block at");
#line 14
      dma0->starts[2] = kdt_rt::checked_index(static_cast<int64_t>(x_slot), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 16, 32, 640, 641}, "DMA destination index");
#line 14
      dma0->src_box = kdt_rt::Box{2, {dma0->starts[0], dma0->starts[1]}, {32, 128}};
#line 14
      dma0->dst_box = kdt_rt::Box{3, {dma0->starts[2], 0, 0}, {1, 32, 128}};
#line 14
      dma0->add = false;
#line 14
      dma0->copies_written = true;  // a block spec's copy: unwritten elements stay so
#line 14
      dma0->src_shadow = &L.shadows[static_cast<size_t>(device) * 2 + 0];
#line 14
      dma0->dst_shadow = &s.x_blocks_shadow_;
#line 14
      dma0->dst_sem = &s.x_sems[kdt_rt::checked_index(x_slot, 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 16, 32, 640, 641}, "semaphore index")];
#line 14
      dma0->has_src_sem = false;
#line 14
      kdt_rt::claim_dma(dma0, s.clock);
#line 14
      if (options.eager_dma) row_sums_run_dma(L, *dma0);
#line 14
      s.x_sems[kdt_rt::checked_index(x_slot, 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 16, 32, 640, 641}, "semaphore index")].in_flight.push_back(dma0);
#line 16
      x_incoming = true;
#line 16
      y_at0 = i;
#line 16
      y_at1 = int32_t(0);
#line 16
    }
#line 14
    if (x_incoming) {
#line 14
      {
#line 14
        auto& sem_ = s.x_sems[kdt_rt::checked_index(x_slot, 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, "semaphore index")];
#line 14
        L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `x_sems` (no DMA in flight)", kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, s.flat});
#line 14
        std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 16384, options);
#line 14
        if (d_->bytes != 16384) {
#line 14
          kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 16384 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, {{"the DMA was started here", d_->loc}}};
#line 14
          throw kdt_rt::RunFailure{e_};
#line 14
        }
#line 14
        kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 14
        if (!d_->landed) row_sums_run_dma(L, *d_);
#line 14
      }
#line 14
      x_incoming = false;
#line 14
    }
    if (y_fresh) {
#line 15
      kdt_rt::forget_block(s.y_blocks_shadow_, y_slot);  // a new output block: uninitialised
#line 15
      y_fresh = false;
#line 15
    }
    if ((kdt_rt::op_add(k, int32_t(1)) < int32_t(8))) {
#line 16
      [[maybe_unused]] const int32_t k_next = kdt_rt::op_add(k, int32_t(1));
#line 14
      x_next0 = i;
#line 14
      x_next1 = k_next;
#line 14
      if (((x_next0 != x_at0) || (x_next1 != x_at1))) {
#line 14
        auto dma1 = std::make_shared<kdt_rt::DmaRecord>();
#line 14
        dma1->site = 1;
#line 14
        dma1->bytes = 16384;
#line 14
        dma1->src_device = device;
#line 14
        dma1->dst_device = device;
#line 14
        dma1->program = s.flat;
#line 14
        dma1->issuer = &s;
#line 14
        dma1->loc = kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541};
#line 14
        dma1->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(x_next0, int32_t(32))), 32, 256, kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, "block spec of `x`: the block at");
#line 14
        dma1->starts[1] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(x_next1, int32_t(128))), 128, 1024, kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, "block spec of `x`: the block at");
#line 14
        dma1->starts[2] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_sub(int32_t(1), x_slot)), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, "DMA destination index");
#line 14
        dma1->src_box = kdt_rt::Box{2, {dma1->starts[0], dma1->starts[1]}, {32, 128}};
#line 14
        dma1->dst_box = kdt_rt::Box{3, {dma1->starts[2], 0, 0}, {1, 32, 128}};
#line 14
        dma1->add = false;
#line 14
        dma1->copies_written = true;  // a block spec's copy: unwritten elements stay so
#line 14
        dma1->src_shadow = &L.shadows[static_cast<size_t>(device) * 2 + 0];
#line 14
        dma1->dst_shadow = &s.x_blocks_shadow_;
#line 14
        dma1->dst_sem = &s.x_sems[kdt_rt::checked_index(kdt_rt::op_sub(int32_t(1), x_slot), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, "semaphore index")];
#line 14
        dma1->has_src_sem = false;
#line 14
        kdt_rt::claim_dma(dma1, s.clock);
#line 14
        if (options.eager_dma) row_sums_run_dma(L, *dma1);
#line 14
        s.x_sems[kdt_rt::checked_index(kdt_rt::op_sub(int32_t(1), x_slot), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, "semaphore index")].in_flight.push_back(dma1);
#line 14
        x_prefetched = true;
#line 14
      }
      y_next0 = i;
#line 15
      y_next1 = int32_t(0);
#line 15
      y_changes = ((y_next0 != y_at0) || (y_next1 != y_at1));
#line 15
    }
#line 18
    if ((k == int32_t(0))) {
#line 18
      const int64_t start2 = kdt_rt::checked_index(static_cast<int64_t>(y_slot), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, "index");
#line 18
      [[maybe_unused]] static const kdt_rt::SourceLoc site3 = kdt_rt::SourceLoc{"samples/block_reduce.kd", 18, 17, 669, 696};
#line 18
      kdt_rt::check_access(s.y_blocks_shadow_, kdt_rt::Box{3, {start2, 0, 0}, {1, 32, 1}}, kdt_rt::Access::Write, s.clock, &site3);
#line 18
      {
#line 18
        int64_t f4 = 0;
#line 18
        (void)f4;
#line 18
        for (int64_t i4_0 = 0; i4_0 < 32; ++i4_0) {
#line 18
          for (int64_t i4_1 = 0; i4_1 < 1; ++i4_1) {
#line 18
            s.y_blocks[(start2) * 32 + (i4_0)] = 0x0p+0f;
#line 18
            ++f4;
#line 18
          }
#line 18
        }
#line 18
      }
#line 18
    }
    alignas(64) float t6[4096];
#line 19
    const int64_t start7 = kdt_rt::checked_index(static_cast<int64_t>(x_slot), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541}, "index");
#line 19
    [[maybe_unused]] static const kdt_rt::SourceLoc site8 = kdt_rt::SourceLoc{"samples/block_reduce.kd", 19, 19, 717, 723};
#line 19
    kdt_rt::check_access(s.x_blocks_shadow_, kdt_rt::Box{3, {start7, 0, 0}, {1, 32, 128}}, kdt_rt::Access::Read, s.clock, &site8);
#line 19
    {
#line 19
      int64_t f9 = 0;
#line 19
      (void)f9;
#line 19
      for (int64_t i9_0 = 0; i9_0 < 32; ++i9_0) {
#line 19
        for (int64_t i9_1 = 0; i9_1 < 128; ++i9_1) {
#line 19
          t6[f9] = s.x_blocks[(start7) * 4096 + (i9_0) * 128 + (i9_1)];
#line 19
          ++f9;
#line 19
        }
#line 19
      }
#line 19
    }
#line 19
    alignas(64) float t5[32];
#line 19
    for (int64_t o_ = 0; o_ < 32; ++o_) {
#line 19
      for (int64_t in_ = 0; in_ < 1; ++in_) {
#line 19
        t5[o_ * 1 + in_] = kdt_rt::reduce_sum(t6 + o_ * 128 + in_, 128, 1);
#line 19
      }
#line 19
    }
#line 19
    const int64_t start10 = kdt_rt::checked_index(static_cast<int64_t>(y_slot), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, "index");
#line 19
    [[maybe_unused]] static const kdt_rt::SourceLoc site11 = kdt_rt::SourceLoc{"samples/block_reduce.kd", 19, 5, 703, 748};
#line 19
    kdt_rt::check_access(s.y_blocks_shadow_, kdt_rt::Box{3, {start10, 0, 0}, {1, 32, 1}}, kdt_rt::Access::Update, s.clock, &site11);
#line 19
    {
#line 19
      int64_t f12 = 0;
#line 19
      (void)f12;
#line 19
      for (int64_t i12_0 = 0; i12_0 < 32; ++i12_0) {
#line 19
        for (int64_t i12_1 = 0; i12_1 < 1; ++i12_1) {
#line 19
          s.y_blocks[(start10) * 32 + (i12_0)] = kdt_rt::op_add(s.y_blocks[(start10) * 32 + (i12_0)], t5[f12]);
#line 19
          ++f12;
#line 19
        }
#line 19
      }
#line 19
    }
#line 14
    kdt_rt::check_block_step(s.x_blocks_shadow_, s.x_sems, 2, "x", kdt_rt::SourceLoc{"samples/block_reduce.kd", 14, 41, 517, 541});
#line 14
    if (x_prefetched) {
#line 14
      x_slot = kdt_rt::op_sub(int32_t(1), x_slot);
#line 14
      x_at0 = x_next0;
#line 14
      x_at1 = x_next1;
#line 14
      x_incoming = true;
#line 14
      x_prefetched = false;
#line 14
    }
    kdt_rt::check_block_step(s.y_blocks_shadow_, s.y_sems, 2, "y", kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607});
#line 15
    if (((k == int32_t(7)) || y_changes)) {
#line 15
      auto dma13 = std::make_shared<kdt_rt::DmaRecord>();
#line 15
      dma13->site = 2;
#line 15
      dma13->bytes = 128;
#line 15
      dma13->src_device = device;
#line 15
      dma13->dst_device = device;
#line 15
      dma13->program = s.flat;
#line 15
      dma13->issuer = &s;
#line 15
      dma13->loc = kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607};
#line 15
      dma13->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(y_slot), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, "DMA source index");
#line 15
      dma13->starts[1] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(y_at0, int32_t(32))), 32, 256, kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, "block spec of `y`: the block at");
#line 15
      dma13->starts[2] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(y_at1, int32_t(1))), 1, 1, kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, "block spec of `y`: the block at");
#line 15
      dma13->src_box = kdt_rt::Box{3, {dma13->starts[0], 0, 0}, {1, 32, 1}};
#line 15
      dma13->dst_box = kdt_rt::Box{2, {dma13->starts[1], dma13->starts[2]}, {32, 1}};
#line 15
      dma13->add = false;
#line 15
      dma13->copies_written = true;  // a block spec's copy: unwritten elements stay so
#line 15
      dma13->src_shadow = &s.y_blocks_shadow_;
#line 15
      dma13->dst_shadow = &L.shadows[static_cast<size_t>(dma13->dst_device) * 2 + 1];
#line 15
      dma13->dst_sem = &s.y_sems[kdt_rt::checked_index(y_slot, 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, "semaphore index")];
#line 15
      dma13->has_src_sem = false;
#line 15
      kdt_rt::claim_dma(dma13, s.clock);
#line 15
      if (options.eager_dma) row_sums_run_dma(L, *dma13);
#line 15
      s.y_sems[kdt_rt::checked_index(y_slot, 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, "semaphore index")].in_flight.push_back(dma13);
#line 15
      if (y_writing) {
#line 15
        {
#line 15
          auto& sem_ = s.y_sems[kdt_rt::checked_index(kdt_rt::op_sub(int32_t(1), y_slot), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, "semaphore index")];
#line 15
          L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `y_sems` (no DMA in flight)", kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, s.flat});
#line 15
          std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 128, options);
#line 15
          if (d_->bytes != 128) {
#line 15
            kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 128 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, {{"the DMA was started here", d_->loc}}};
#line 15
            throw kdt_rt::RunFailure{e_};
#line 15
          }
#line 15
          kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 15
          if (!d_->landed) row_sums_run_dma(L, *d_);
#line 15
        }
#line 15
      }
#line 15
      y_writing = true;
#line 15
      y_slot = kdt_rt::op_sub(int32_t(1), y_slot);
#line 15
      y_at0 = y_next0;
#line 15
      y_at1 = y_next1;
#line 15
      y_fresh = true;
#line 15
    }
  }
#line 16
  if (y_writing) {
#line 15
    {
#line 15
      auto& sem_ = s.y_sems[kdt_rt::checked_index(kdt_rt::op_sub(int32_t(1), y_slot), 1, 2, kdt_rt::SourceLoc{"samples/block_reduce.kd", 16, 32, 640, 641}, "semaphore index")];
#line 15
      L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `y_sems` (no DMA in flight)", kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, s.flat});
#line 15
      std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 128, options);
#line 15
      if (d_->bytes != 128) {
#line 15
        kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 128 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/block_reduce.kd", 15, 42, 584, 607}, {{"the DMA was started here", d_->loc}}};
#line 15
        throw kdt_rt::RunFailure{e_};
#line 15
      }
#line 15
      kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 15
      if (!d_->landed) row_sums_run_dma(L, *d_);
#line 15
    }
#line 15
  }
#line 20
  for (int64_t k_ = 0; k_ < 2; ++k_) {
#line 20
    if (!s.x_sems[k_].in_flight.empty()) {
#line 20
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.x_sems[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `x_sems[" + std::to_string(k_) + "]`");
#line 20
    }
#line 20
  }
#line 20
  for (int64_t k_ = 0; k_ < 2; ++k_) {
#line 20
    if (!s.y_sems[k_].in_flight.empty()) {
#line 20
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.y_sems[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `y_sems[" + std::to_string(k_) + "]`");
#line 20
    }
#line 20
  }
#line 20
}
#line 5630 "<stdout>"

// Runs kernel `row_sums` over its grid [8], on options.jobs threads.
// Returns 0, or 1 when a run-time check failed (described in *error).
static int row_sums_run(const float* x, float* y, const kdt_rt::RunOptions& options, kdt_rt::RunError* error) {
  row_sums_launch L;
  L.options = options;
  for (int device = 0; device < 1; ++device) {
    L.params.push_back(row_sums_params{x, y});
    L.shadows.emplace_back();
    L.shadows.back().init("x", {256, 1024}, false, false, true);
    L.shadows.emplace_back();
    L.shadows.back().init("y", {256, 1}, true, true, true);
  }
  const std::vector<int64_t> order = kdt_rt::program_order(8, options);
  kdt_rt::RunError failure;
  L.worker_states.resize(static_cast<size_t>(kdt_rt::workers(options, 1)));
  // The program at `position` of the order on `device`, run by `worker`.
  auto program = [&](int worker, int device, int64_t position) {
    row_sums_program_state& s = L.state(worker, device, order[static_cast<size_t>(position)]);
    s.position = position;
    row_sums_program(L, device, s);
  };
  bool ok = kdt_rt::run_independent(L.scheduler, L.pool, 1, 8, options, program, failure, kdt_rt::StackNeed{16512, kdt_rt::SourceLoc{"samples/block_reduce.kd", 19, 19, 717, 723}, "a temporary"});
  if (!ok) {
    if (error) *error = failure;
    return 1;
  }
  return 0;
}

// Runs kernel `row_sums`: on options.jobs threads, and when that fails, again on one thread
// from the same inout parameters, so that a failure is reported as on one thread.
inline int row_sums(const float* x, float* y, const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {
  if (!kdt_rt::runs_parallel(options, 8)) return row_sums_run(x, y, options, error);
  kdt_rt::ParameterSnapshot inouts;
  if (row_sums_run(x, y, options, nullptr) == 0) return 0;
  inouts.restore();
  kdt_rt::RunOptions one_thread = options;
  one_thread.jobs = 1;
  return row_sums_run(x, y, one_thread, error);
}

}  // namespace kdt_kernels
