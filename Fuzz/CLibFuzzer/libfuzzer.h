// libFuzzer's entry for programs with their own main (https://llvm.org/docs/LibFuzzer.html, "Using libFuzzer as a
// library"): mobiusd-fuzz picks its target from its first argument, then hands the rest of the command line to it.
// The library itself is linked by `-sanitize=fuzzer`.
#ifndef MOBIUSD_CLIBFUZZER_H
#define MOBIUSD_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
