// Constants that two places must agree on, tied at compile time: kdt_tests
// does not build when they drift apart. Each assertion names both places.
// (Twins inside one file are asserted there, e.g. tests/gen/scalar.h.)
#include <doctest/doctest.h>

#include <string_view>

#include "kdt/limits.h"
#include "kdt/runtime/kdt_exec.h"
#include "kdt/version.h"

// The checker refuses refs of more dimensions than the C++ runtime's
// element-set boxes hold (include/kdt/limits.h, include/kdt/runtime/kdt_exec.h).
static_assert(kdt::kMaxRefRank == kdt_rt::kMaxRank, "kdt::kMaxRefRank must equal kdt_rt::kMaxRank");

// The version kdt prints and writes into emitted files (include/kdt/version.h)
// is the CMake package's (CMakeLists.txt: project(kdt VERSION ...)).
static_assert(std::string_view(KDT_VERSION) == std::string_view(KDT_PROJECT_VERSION),
              "KDT_VERSION must equal the project VERSION of CMakeLists.txt");
