// The compile cache of `kdt run`: binaries keyed by a hash of the emitted
// C++, the compiler's identity and the flags, in a directory no other user
// can write, each entry verified before it is run.
//
// Layout: ROOT/KEY/kernel (the binary), ROOT/KEY/kernel.cpp (its source, for
// people) and ROOT/KEY/kernel.sum, written last, after the binary was
// renamed into place: the entry's second key hash and the binary's size and
// FNV-1a hash. An entry whose sum is missing or does not match is rebuilt.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kdt {

struct CacheDir {
  std::string root;  // "" when there is no usable cache: compile for this run only
  std::string note;  // why there is none (a warning for text mode), or ""
};

// How the cache spells a 64-bit hash (keys, entry names, sums): 16 hex digits.
std::string hex64(uint64_t v);

// Picks the cache directory: $KDT_CACHE_DIR, else $XDG_CACHE_HOME/kdt, else
// $HOME/.cache/kdt, else $TMPDIR/kdt-cache-UID (one per user), and creates
// what is missing with mode 0700. False, with `error`, when another user
// could write it or a directory above it (the owner must be the current
// user, or root for the directories above; no group or other write
// permission unless the group is the user's private group, or, above the
// cache, the directory is sticky like /tmp). A cache that cannot be created
// (read-only file system, no permission) is no error: `root` stays empty.
bool open_cache(CacheDir& cache, std::string& error);

// The verified binary of entry `key`, or "" when there is none or it is
// damaged (the caller rebuilds it). False, with `error`, when the entry is
// not safe to run (a file or directory others could have written).
bool find_entry(const CacheDir& cache, const std::string& key, const std::string& check, std::string& binary,
                std::string& error);

// Copies `built` (a freshly compiled binary) and `source` into entry `key`:
// binary to a temporary file, renamed into place, then the sum file, also
// renamed. Returns the cached binary's path, or "" with `error` when the
// cache could not take it (read-only, full): the caller runs `built`.
std::string store_entry(const CacheDir& cache, const std::string& key, const std::string& check,
                        const std::string& built, const std::string& source, std::string& error);

// Entries of several files verified together, such as `kdt run`'s runtime
// library: ROOT/KEY/NAME for each name, and ROOT/KEY/SUM_NAME, written
// last, over every byte of the `hashed` files and the size of the `sized`
// ones (large files that only a compiler reads, never run: the precompiled
// header). find_files sets `dir` to ROOT/KEY when the entry is whole and
// matches, "" otherwise (the caller rebuilds it); false, with `error`, when
// a file others could have written is there. store_files copies
// FROM_DIR/NAME for each name into the entry and returns ROOT/KEY, or ""
// with `error`.
bool find_files(const CacheDir& cache, const std::string& key, const std::string& check,
                const std::vector<std::string>& hashed, const std::vector<std::string>& sized,
                const std::string& sum_name, std::string& dir, std::string& error);
std::string store_files(const CacheDir& cache, const std::string& key, const std::string& check,
                        const std::string& from_dir, const std::vector<std::string>& hashed,
                        const std::vector<std::string>& sized, const std::string& sum_name, std::string& error);

// Why another user could change the file or directory at `path`, or ""
// (`above_cache`: a directory above the cache root, where root's and sticky
// directories are fine).
std::string foreign_writable(const std::string& path, bool above_cache);

}  // namespace kdt
