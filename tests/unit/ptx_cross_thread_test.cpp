// The one list of cross-thread PTX instructions (include/kdt/ptx_cross_thread.h)
// against what kdt does with each: the checker warns `asm-cross-lane` for
// exactly the `warned` ones, and discharge translates none of them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "kdt/ptx_cross_thread.h"
#include "test_support.h"

TEST_SUITE("ptx") {

TEST_CASE("every cross-thread instruction blocks the translation; the warned ones warn") {
  kdt::test::TempDir tmp;
  for (const kdt::ptx::CrossThreadInstruction& i : kdt::ptx::kCrossThreadInstructions) {
    const std::string mnemonic(i.mnemonic);
    CAPTURE(mnemonic);
    kdt::test::write_text(tmp.file("k.kd"), "kernel k(r: out u32[4] @global) grid(1) {\n"
                                            "    r[...] = asm ptx (a: u32 = u32(3)) -> (o: u32) {\n"
                                            "        \"" + mnemonic + ".b32 %o, %a;\"\n"
                                            "    };\n"
                                            "}\n");
    kdt::test::RunResult r =
        kdt::test::run_kdt("--emit=discharged-ir -o /dev/null --diagnostics-format=json " + tmp.file("k.kd"));
    CHECK(r.status == 1);
    bool warned = false, blocked = false;
    for (const nlohmann::json& d : nlohmann::json::parse(r.err)) {
      if (d["code"] == "asm-cross-lane") warned = true;
      if (d["code"] == "unsupported-discharge" &&
          d["message"].get<std::string>().find("`" + mnemonic + "` communicates between threads") != std::string::npos) {
        blocked = true;
      }
    }
    CHECK_MESSAGE(warned == i.warned, r.err);
    CHECK_MESSAGE(blocked, r.err);
  }
}

}  // TEST_SUITE
