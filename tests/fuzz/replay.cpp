// kdt_fuzz_replay: runs inputs through the fuzz targets' bodies without
// libFuzzer, so that the ordinary (g++) build replays the regressions and
// the seed corpora, and the coverage build replays the fuzzers' corpora.
//
//   kdt_fuzz_replay TARGET PATH...     each file (directories: every file
//                                      in them, recursively) as one input
//   kdt_fuzz_replay --regressions DIR  DIR/<TARGET>/* for every TARGET
//   kdt_fuzz_replay --print-generated FILE
//                                      the KD source the generator makes
//                                      of FILE's bytes
//
// TARGET: lexer (bytes -> the Scanner against the grammar's lexer),
// front_end (bytes -> front end), pipeline (bytes -> generator ->
// pipeline), outputs (bytes as a KD file -> every output), kd (the same),
// kd_valid (a KD file that must check clean -> every output), npy (bytes ->
// .npy parser).
// A bug aborts (or a sanitizer stops the process); exit status 0 otherwise.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_inputs.h"

namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The files under `path`, sorted so that runs are reproducible.
std::vector<fs::path> files_under(const fs::path& path) {
  std::vector<fs::path> files;
  if (fs::is_directory(path)) {
    for (const auto& entry : fs::recursive_directory_iterator(path)) {
      if (entry.is_regular_file() && entry.path().filename().string()[0] != '.') files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  return files;
}

bool known_target(const std::string& target) {
  return target == "lexer" || target == "front_end" || target == "pipeline" || target == "outputs" || target == "kd" ||
         target == "kd_valid" || target == "npy";
}

void replay_one(const std::string& target, const std::vector<uint8_t>& bytes) {
  const uint8_t* data = bytes.data();
  size_t size = bytes.size();
  kdt::fuzz::run_on_large_stack([&] {
    if (target == "lexer") kdt::fuzz::lexer_input(data, size);
    else if (target == "front_end") kdt::fuzz::front_end_input(data, size);
    else if (target == "pipeline") kdt::fuzz::pipeline_input(data, size);
    else if (target == "npy") kdt::fuzz::npy_input(data, size);
    else kdt::fuzz::all_outputs(std::string(bytes.begin(), bytes.end()), target == "kd_valid");
  });
}

// Returns the number of inputs replayed.
size_t replay(const std::string& target, const std::vector<std::string>& paths) {
  size_t count = 0;
  for (const std::string& p : paths) {
    for (const fs::path& file : files_under(p)) {
      replay_one(target, read_bytes(file));
      ++count;
    }
  }
  return count;
}

int usage() {
  std::cerr << "usage: kdt_fuzz_replay lexer|front_end|pipeline|outputs|kd|kd_valid|npy PATH...\n"
               "       kdt_fuzz_replay --regressions DIR\n"
               "       kdt_fuzz_replay --print-generated FILE\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 2) return usage();
  if (args[0] == "--print-generated") {
    if (!kdt::fuzz::have_generator()) {
      std::cerr << "kdt_fuzz_replay: built without the generator (tests/gen)\n";
      return 2;
    }
    std::vector<uint8_t> bytes = read_bytes(args[1]);
    std::cout << kdt::fuzz::generated_source(bytes.data(), bytes.size());
    return 0;
  }
  if (args[0] == "--regressions") {
    for (const char* target : {"lexer", "front_end", "pipeline", "outputs", "kd", "kd_valid", "npy"}) {
      fs::path dir = fs::path(args[1]) / target;
      if (!fs::is_directory(dir)) continue;
      // Generator bytes mean something only to the generator they were found with.
      if (std::string(target) == "pipeline" && !kdt::fuzz::have_generator()) {
        std::cout << "pipeline: skipped (no generator in this build)\n";
        continue;
      }
      std::cout << target << ": " << replay(target, {dir.string()}) << " inputs\n";
    }
    return 0;
  }
  if (!known_target(args[0])) return usage();
  if (args[0] == "pipeline" && !kdt::fuzz::have_generator()) {
    std::cerr << "kdt_fuzz_replay: built without the generator (tests/gen)\n";
    return 2;
  }
  size_t count = replay(args[0], {args.begin() + 1, args.end()});
  std::cout << args[0] << ": " << count << " inputs\n";
  return 0;
}
