// The man page and `--explain` cover every diagnostic code of the registry.
#include <doctest/doctest.h>

#include "kdt/diag/diagnostic.h"
#include "test_support.h"

TEST_SUITE("docs") {
  TEST_CASE("every code is in the man page and has an explanation with an example") {
    std::string man = kdt::test::read_text(kdt::test::source_dir() + "/man/kdt.1");
    REQUIRE(!man.empty());
    for (const kdt::DiagInfo& info : kdt::all_diagnostics()) {
      std::string code = info.name;
      CAPTURE(code);
      CHECK(man.find("\n.B " + code + "\n") != std::string::npos);
      const kdt::Explanation* e = kdt::find_explanation(code);
      REQUIRE(e != nullptr);
      CHECK(std::string(e->text).size() > 20);
      CHECK(std::string(e->example).size() > 5);
    }
  }

  TEST_CASE("kdt --explain prints the explanation; an unknown code exits 2") {
    kdt::test::RunResult r = kdt::test::run_kdt("--explain undefined-name");
    CHECK(r.status == 0);
    CHECK(r.out.find("undefined-name (error)") == 0);
    CHECK(kdt::test::run_kdt("--explain no-such-code").status == 2);
  }
}
