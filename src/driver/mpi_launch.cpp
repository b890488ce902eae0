#include "driver/mpi_launch.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "driver/spawn.h"
#include "kdt/driver/output.h"

namespace kdt {

namespace {

// One `--showme:WHAT` of the wrapper, split into words.
bool showme(const std::string& wrapper, const std::string& what, const std::string& work_dir,
            std::vector<std::string>& words, std::string& error) {
  ProcessSpec spec;
  if (!split_words(wrapper, spec.argv, error) || spec.argv.empty()) {
    error = "$MPICXX '" + wrapper + "': " + (error.empty() ? "empty" : error);
    return false;
  }
  spec.argv.push_back("--showme:" + what);
  spec.stdout_path = spec.stderr_path = work_dir + "/mpicxx-" + what + ".txt";
  spec.timeout_s = 60;
  ProcessResult ran = run_process(spec);
  std::string text = read_text(spec.stdout_path);
  if (ran.kind != ProcessResult::Kind::Exited || ran.code != 0) {
    error = "the MPI compiler wrapper `" + wrapper + "` " + describe(ran) +
            (ran.kind == ProcessResult::Kind::NotStarted && ran.code == ENOENT
                 ? "; install Open MPI (libopenmpi-dev, openmpi-bin) or name the wrapper with $MPICXX"
                 : " on --showme:" + what + ": " + text.substr(0, 400));
    return false;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (!split_words(text, words, error)) {
    error = "cannot read `" + wrapper + " --showme:" + what + "`: " + error;
    return false;
  }
  return true;
}

}  // namespace

bool mpi_compiler_flags(const std::string& work_dir, std::vector<std::string>& compile, std::vector<std::string>& link,
                        std::string& error) {
  const char* env = std::getenv("MPICXX");
  const std::string wrapper = env && *env ? env : "mpicxx";
  return showme(wrapper, "compile", work_dir, compile, error) && showme(wrapper, "link", work_dir, link, error);
}

std::vector<std::string> mpirun_command(int ranks) {
  std::vector<std::string> argv = {"mpirun", "-n", std::to_string(ranks), "--oversubscribe"};
  if (::geteuid() == 0) argv.push_back("--allow-run-as-root");
  return argv;
}

}  // namespace kdt
