// libFuzzer's driver, linked in by -sanitize=fuzzer. SwiftPM renames an executable's entry point
// (and links main to it), so libFuzzer's own main is never linked: forkstore-fuzz's main calls
// the driver itself. Only referenced in FORKSTORE_FUZZ builds.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
