/*
 * fuzz_common: what every libFuzzer target in tests/fuzz/ shares — one
 * private temp directory per fuzzing process (removed at exit), writing
 * an input into a file there, and silencing error() so that millions of
 * rejected inputs do not flood the terminal. Nothing here is part of abev.
 */
#ifndef ABEV_FUZZ_COMMON_H
#define ABEV_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry points, declared so that -Wmissing-prototypes stays quiet. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Creates the process's temp directory on first use (under $TMPDIR, else
 * /tmp) and returns it; it and everything fuzz_path() named in it are
 * removed at exit. Aborts when it cannot be made: the target cannot run.
 */
const char *fuzz_dir(void);
/* "<fuzz_dir>/<name>" (caller frees). */
char *fuzz_path(const char *name);
/* Writes data to <fuzz_dir>/<name>, replacing it; returns the path (caller frees). Aborts on failure. */
char *fuzz_write(const char *name, const void *data, size_t len);
/* error() and warning() print nothing from now on (set ABEV_FUZZ_VERBOSE=1 to keep them). */
void fuzz_quiet(void);

#endif
