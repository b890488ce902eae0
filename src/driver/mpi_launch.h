// `kdt run --mpi` (issue 20): the flags of the MPI compiler wrapper, and the
// mpirun command that starts one rank per KD device on this machine.
#pragma once

#include <string>
#include <vector>

namespace kdt {

// `mpicxx --showme:compile` and `--showme:link` (the wrapper named by
// $MPICXX, else mpicxx on PATH): the flags the kernel's compile and link
// need. False with `error` when there is no usable wrapper.
bool mpi_compiler_flags(const std::string& work_dir, std::vector<std::string>& compile, std::vector<std::string>& link,
                        std::string& error);

// mpirun -n RANKS (Open MPI's): more ranks than cores allowed, and allowed
// as root, where the tests and CI run.
std::vector<std::string> mpirun_command(int ranks);

}  // namespace kdt
