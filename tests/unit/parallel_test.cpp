// Unit tests for include/kdt/runtime/kdt_parallel.h (issue 17, -j N): the
// pool runs every (device, position) once, add=true turns follow the
// program order whatever the interleaving, a failure stops the launch
// without a hang, and shared shadows stay consistent under threads.
#include <doctest/doctest.h>

#include "kdt/runtime/kdt_exec.h"
#include "kdt/runtime/kdt_harness.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace {

using namespace kdt_rt;

// A little work whose length depends on the position, so that threads
// overtake each other.
void spin(int64_t position) {
  volatile uint64_t x = 0;
  for (int64_t i = 0; i < (position * 7919) % 5000; ++i) x = x + static_cast<uint64_t>(i);
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("the program pool runs every program of every device once, on distinct workers") {
    for (int jobs : {2, 3, 8}) {
      CAPTURE(jobs);
      ProgramPool pool;
      std::mutex m;
      std::multiset<std::pair<int, int64_t>> seen;
      std::set<int> workers_seen;
      RunError failure;
      bool ok = pool.run(3, 100, jobs, [&](int worker, int device, int64_t position) {
        spin(position);
        std::lock_guard<std::mutex> lock(m);
        seen.insert({device, position});
        workers_seen.insert(worker);
      }, failure, {});
      CHECK(ok);
      CHECK(seen.size() == 300);
      for (int d = 0; d < 3; ++d) {
        for (int64_t p = 0; p < 100; ++p) CHECK(seen.count({d, p}) == 1);
      }
      for (int w : workers_seen) CHECK((w >= 0 && w < jobs));
    }
  }

  TEST_CASE("turns: what a program does after wait_turn happens in the program order of its device") {
    for (int repeat = 0; repeat < 20; ++repeat) {
      ProgramPool pool;
      std::mutex m;
      std::vector<std::vector<int64_t>> landed(2);
      RunError failure;
      bool ok = pool.run(2, 64, 4, [&](int, int device, int64_t position) {
        spin(64 - position);
        pool.wait_turn(device, position);
        std::lock_guard<std::mutex> lock(m);
        landed[static_cast<size_t>(device)].push_back(position);
      }, failure, {});
      REQUIRE(ok);
      for (const std::vector<int64_t>& order : landed) {
        REQUIRE(order.size() == 64);
        for (size_t i = 0; i < order.size(); ++i) CHECK(order[i] == static_cast<int64_t>(i));
      }
    }
  }

  TEST_CASE("a failing program stops the pool; programs waiting for their turn do not hang") {
    ProgramPool pool;
    std::atomic<int> ran{0};
    RunError failure;
    bool ok = pool.run(1, 200, 4, [&](int, int device, int64_t position) {
      ++ran;
      if (position == 5) fail(Code::OutOfBounds, SourceLoc{"k.kd", 3, 4, 0, 0}, "index 9 is out of bounds");
      pool.wait_turn(device, position);  // every later program waits for program 5, which never ends
    }, failure, {});
    CHECK_FALSE(ok);
    CHECK(failure.code == Code::OutOfBounds);
    CHECK(failure.message == "index 9 is out of bounds");
    CHECK(failure.loc.line == 3);
    CHECK(ran.load() < 200);
    // Outside a running pool there is nothing to wait for.
    pool.wait_turn(0, 100);
  }

  TEST_CASE("run_independent: one thread runs the devices' programs in order; -j N on the pool") {
    DeviceScheduler scheduler(2);
    ProgramPool pool;
    std::vector<std::pair<int, int64_t>> order;
    RunOptions one;
    RunError failure;
    CHECK(run_independent(scheduler, pool, 2, 3, one, [&](int worker, int device, int64_t position) {
      CHECK(worker == device);
      order.push_back({device, position});
    }, failure, {}));
    CHECK(order == std::vector<std::pair<int, int64_t>>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}});
    CHECK(workers(one, 2) == 2);
    RunOptions four = one;
    four.jobs = 4;
    CHECK(workers(four, 2) == 4);
    CHECK(runs_parallel(four, 2));
    CHECK_FALSE(runs_parallel(four, 1));
    CHECK_FALSE(runs_parallel(one, 100));
  }

  TEST_CASE("a wait that cannot go on in a pooled launch is a deadlock at once") {
    DeviceScheduler scheduler(1);
    scheduler.run_pooled(true);
    try {
      scheduler.wait_until(0, [] { return false; }, {"sem_wait on `s` (value 0, needs 1)", SourceLoc{"k.kd", 7, 5, 0, 0}, 3});
      FAIL("no deadlock reported");
    } catch (const RunFailure& f) {
      CHECK(f.error.code == Code::Deadlock);
      CHECK(f.error.message == "deadlock: no device can run; device 0, program 3: sem_wait on `s` (value 0, needs 1)");
      CHECK(f.error.loc.line == 7);
    }
  }

  TEST_CASE("shared shadows: checks from several threads see every access") {
    // 8 threads each write their own rows of one parameter, then read
    // them: no race. Then one thread reads a row another wrote: a race.
    RefShadow shadow;
    shadow.init("out", {64, 16}, true, true, true);
    ProgramPool pool;
    static const SourceLoc at{"k.kd", 1, 1, 0, 0};
    RunError failure;
    bool ok = pool.run(1, 64, 8, [&](int, int device, int64_t position) {
      ProgramClock c;
      c.init(device, position, 1);
      Box row{2, {position, 0}, {1, 16}};
      check_access(shadow, row, Access::Write, c, &at);
      check_access(shadow, row, Access::Read, c, &at);
    }, failure, {});
    CHECK(ok);
    CHECK(shadow.written.count() == 64 * 16);
    ProgramClock other;
    other.init(0, 100, 1);
    CHECK_THROWS_AS(check_access(shadow, Box{2, {5, 0}, {1, 16}}, Access::Read, other, &at), RunFailure);
  }

  // Free-running devices (kdt_scheduler.h): a token passed round a ring of
  // devices by signals, each device spinning between its waits.
  struct Ring {
    explicit Ring(int devices) : scheduler(devices), tokens(static_cast<size_t>(devices), 0) {}
    DeviceScheduler scheduler;
    std::vector<int64_t> tokens;  // each device's semaphore
    std::atomic<int> running{0}, most{0};
    std::vector<std::vector<int>> seen;  // what each device saw, in its order

    // Counts the devices inside at once (sleeping, so that they overlap).
    void overlap() {
      const int now = ++running;
      for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      --running;
    }

    // Device d, round r: waits for the token from d - 1 (device 0 starts
    // round 0), spins, passes it to d + 1.
    void device(int d, int rounds) {
      const int n = static_cast<int>(tokens.size());
      for (int r = 0; r < rounds; ++r) {
        if (d != 0 || r != 0) {
          DeviceScheduler::Comm comm(scheduler);
          int64_t& mine = tokens[static_cast<size_t>(d)];
          scheduler.wait_until(d, [&] { return mine >= 1; }, {"sem_wait on `token` (value 0, needs 1)",
                                                               SourceLoc{"ring.kd", 5, 3, 0, 0}, 0}, comm);
          mine -= 1;
        }
        seen[static_cast<size_t>(d)].push_back(r);
        spin(1000 + d);
        DeviceScheduler::Comm comm(scheduler);
        tokens[static_cast<size_t>((d + 1) % n)] += 1;
        scheduler.raised((d + 1) % n);
      }
    }
  };

  TEST_CASE("free-running devices: at most jobs run at once, blocked ones wake when raised, every round runs") {
    for (int jobs : {1, 2, 3, 8}) {
      CAPTURE(jobs);
      Ring ring(5);
      ring.seen.assign(5, {});
      ring.scheduler.free_running(jobs, jobs);
      CHECK(ring.scheduler.is_free_running());
      RunError failure;
      // Every device sleeps before its first wait: as many as jobs allows
      // sleep at once.
      bool ok = ring.scheduler.run([&](int d) {
        ring.overlap();
        ring.device(d, 20);
      }, failure);
      REQUIRE(ok);
      for (const std::vector<int>& rounds : ring.seen) CHECK(rounds.size() == 20);
      CHECK(ring.most.load() <= jobs);
      CHECK(ring.most.load() >= std::min(jobs, 2));
    }
  }

  TEST_CASE("free-running devices: every device blocked and none raised is the baton's deadlock") {
    for (int jobs : {1, 2, 4}) {
      CAPTURE(jobs);
      Ring ring(3);
      ring.seen.assign(3, {});
      ring.scheduler.free_running(jobs, jobs);
      RunError failure;
      // Device 0 never starts the token: each waits for its left neighbour.
      bool ok = ring.scheduler.run([&](int d) {
        DeviceScheduler::Comm comm(ring.scheduler);
        int64_t& mine = ring.tokens[static_cast<size_t>(d)];
        ring.scheduler.wait_until(d, [&] { return mine >= 1; }, {"sem_wait on `token` (value 0, needs 1)",
                                                                 SourceLoc{"ring.kd", 5, 3, 0, 0}, 0}, comm);
      }, failure);
      CHECK_FALSE(ok);
      CHECK(failure.code == Code::Deadlock);
      CHECK(failure.message == "deadlock: no device can run; device 0, program 0: sem_wait on `token` (value 0, needs 1)");
      CHECK(failure.loc.line == 5);
      REQUIRE(failure.notes.size() == 2);
      CHECK(failure.notes[1].first == "also blocked: device 2, program 0: sem_wait on `token` (value 0, needs 1)");
    }
  }

  TEST_CASE("free-running devices: a failure stops the others at their next communication") {
    Ring ring(4);
    ring.seen.assign(4, {});
    ring.scheduler.free_running(2, 1);
    RunError failure;
    bool ok = ring.scheduler.run([&](int d) {
      if (d == 2) fail(Code::OutOfBounds, SourceLoc{"ring.kd", 9, 1, 0, 0}, "index 4 is out of bounds");
      ring.device(d, 50);
    }, failure);
    CHECK_FALSE(ok);
    CHECK(failure.code == Code::OutOfBounds);
    CHECK(failure.loc.line == 9);
  }

  TEST_CASE("free-running devices: a DMA semaphore fed by two devices makes the launch run again") {
    DeviceScheduler baton(2), free(2);
    free.free_running(2, 2);
    DmaSemaphore sem;
    auto from = [](int device) {
      auto d = std::make_shared<DmaRecord>();
      d->src_device = device;
      return d;
    };
    // With the baton, any mix; free-running, one device's DMAs only.
    enqueue(baton, sem, from(0));
    enqueue(baton, sem, from(1));
    CHECK(sem.in_flight.size() == 2);
    DmaSemaphore one;
    enqueue(free, one, from(1));
    enqueue(free, one, from(1));
    CHECK(one.in_flight.size() == 2);
    try {
      enqueue(free, one, from(0));
      FAIL("a second device was accepted");
    } catch (const RunFailure& f) {
      CHECK(f.error.message.find("fed by two devices") != std::string::npos);
    }
    RunOptions options;
    options.jobs = 2;
    CHECK(runs_free(options));
    options.dma_order = 1;  // lifo retires the newest, which depends on the schedule
    CHECK_FALSE(runs_free(options));
    options.dma_order = 0;
    options.jobs = 1;
    CHECK_FALSE(runs_free(options));
  }

  TEST_CASE("the harness's --jobs: the cores available by default, 1 to 4096 threads") {
    auto parse = [](std::vector<std::string> words, HarnessArgs& out) {
      words.insert(words.begin(), "kernel");
      std::vector<char*> argv;
      for (std::string& w : words) argv.push_back(w.data());
      return parse_harness_args(static_cast<int>(argv.size()), argv.data(), out);
    };
    HarnessArgs defaults;
    CHECK(parse({}, defaults));
    CHECK(defaults.run.jobs == available_cores());
    CHECK(available_cores() >= 1);
    HarnessArgs three;
    CHECK(parse({"--jobs", "3"}, three));
    CHECK(three.run.jobs == 3);
    for (const char* bad : {"0", "-2", "4097", "x", ""}) {
      HarnessArgs out;
      CAPTURE(bad);
      CHECK_FALSE(parse({"--jobs", bad}, out));
    }
  }
}
