#include "driver/host_cpu.h"

#include <fstream>

namespace kdt {

std::string host_cpu_identity() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, identity;
  // The first processor's block is enough: -march=native reads one CPU.
  while (std::getline(in, line) && !line.empty()) {
    const std::string key = line.substr(0, line.find(':'));
    for (const char* wanted : {"vendor_id", "model name", "flags", "CPU implementer", "CPU part", "Features"}) {
      if (key.rfind(wanted, 0) == 0) identity += line + "\n";
    }
  }
  return identity;
}

}  // namespace kdt
