/* The C ABI of `kdt build --emit=c-api` (docs/c-api.md), used from C as a
 * user would: the structs declared here from the documentation, the
 * library opened with dlopen. The expected values are computed here with
 * plain loops, in the order kdt documents (programs in order, each adding
 * its doubled block), so they must match bit for bit.
 *
 * usage: c_api_test ACCUMULATE_BLOCKS_LIBRARY RACE_LIBRARY */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct kdt_options {
  uint32_t size;
  int32_t dma_mode, dma_order, program_order, jobs;
  uint32_t reserved;
  uint64_t seed;
};
struct kdt_error {
  char code[64];
  char file[1024];
  int32_t line, column;
  char message[4096];
  char json[16384];
};
typedef int (*kdt_call)(void* const* args, const struct kdt_options* options, struct kdt_error* error);

static int failures = 0;
#define EXPECT(cond)                                          \
  do {                                                        \
    if (!(cond)) {                                            \
      fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #cond); \
      ++failures;                                             \
    }                                                         \
  } while (0)

static void* open_library(const char* path) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
  return lib;
}

enum { N = 1024, B = 128, C = 256 };
static float x[N * C], out[B * C], want[B * C];

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  void* lib = open_library(argv[1]);
  void* race_lib = open_library(argv[2]);
  if (!lib || !race_lib) return 1;
  int (*abi_version)(void) = (int (*)(void))dlsym(lib, "kdt_abi_version");
  const char* (*module_json)(void) = (const char* (*)(void))dlsym(lib, "kdt_module_json");
  kdt_call accumulate = (kdt_call)dlsym(lib, "kdt_call_accumulate_blocks");
  EXPECT(abi_version && abi_version() == 1);
  EXPECT(module_json && strstr(module_json(), "\"name\":\"accumulate_blocks\"") != NULL);
  EXPECT(accumulate != NULL);
  if (!accumulate) return 1;

  for (int jobs = 1; jobs <= 4; jobs *= 2) {
    for (int i = 0; i < N * C; ++i) x[i] = (float)((i * 7919) % 1000) / 997.0f - 0.5f;
    for (int i = 0; i < B * C; ++i) out[i] = want[i] = (float)(i % 89) / 13.0f;
    for (int p = 0; p < N / B; ++p) {
      for (int i = 0; i < B * C; ++i) want[i] = want[i] + x[p * B * C + i] * 2.0f;
    }
    struct kdt_options options = {sizeof(struct kdt_options), 0, 0, 0, jobs, 0, 0};
    struct kdt_error error;
    void* args[2] = {x, out};
    EXPECT(accumulate(args, &options, &error) == 0);
    EXPECT(error.code[0] == 0);
    EXPECT(memcmp(out, want, sizeof out) == 0);
  }
  /* No options: the defaults (one thread). */
  void* args[2] = {x, out};
  EXPECT(accumulate(args, NULL, NULL) == 0);

  /* Options of another ABI version are refused. */
  struct kdt_options wrong = {sizeof(struct kdt_options) + 8, 0, 0, 0, 1, 0, 0};
  struct kdt_error error;
  EXPECT(accumulate(args, &wrong, &error) == 2);
  EXPECT(strcmp(error.code, "command-line") == 0);
  wrong.size = sizeof(struct kdt_options);
  wrong.jobs = 0;
  EXPECT(accumulate(args, &wrong, &error) == 2);
  EXPECT(strstr(error.message, "jobs") != NULL);

  /* A failed run-time check: its code, KD location, message and JSON. */
  kdt_call race = (kdt_call)dlsym(race_lib, "kdt_call_k");
  EXPECT(race != NULL);
  if (race) {
    float rx[8] = {1, 1, 1, 1, 1, 1, 1, 1}, total[4] = {0, 0, 0, 0};
    void* race_args[2] = {rx, total};
    EXPECT(race(race_args, NULL, &error) == 1);
    EXPECT(strcmp(error.code, "race") == 0);
    EXPECT(strstr(error.file, "fail_race_cross_program.kd") != NULL);
    EXPECT(error.line == 5 && error.column == 5);
    EXPECT(strstr(error.message, "written by another program") != NULL);
    EXPECT(strstr(error.json, "\"code\": \"race\"") != NULL && strstr(error.json, "\"notes\": [{") != NULL);
  }
  if (failures == 0) printf("c_api_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
