// What `-march=native` compiles for, as text for the `kdt run` cache key:
// a cache shared between machines (a home directory on NFS) must not hand
// one machine a binary built for another's instruction set.
#pragma once

#include <string>

namespace kdt {

// The host processor's model and feature flags (from /proc/cpuinfo on
// Linux); "" where the system does not say.
std::string host_cpu_identity();

}  // namespace kdt
