/*
 * dotnet_runtime: the runtime figures abev's startup hook (dotnet-hook/)
 * writes for each .NET process of a run — GC counts per generation, GC
 * pause time, allocated bytes, peak heap, lock contentions, thread-pool
 * items, JIT-compiled methods and JIT time — one file per process,
 * dotnet-<pid>.json in the run directory (evidence-schema/
 * dotnet-runtime.schema.json). This module reads them back as the hostile
 * input they are (the program under test may write anything there) and
 * combines one figure over the processes a metric selects. It does not
 * start anything, load the hook or decide what a metric means.
 */
#ifndef ABEV_DOTNET_RUNTIME_H
#define ABEV_DOTNET_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "record/file_read.h"

#define DOTNET_RT_SCHEMA "abev.dotnet-runtime/1"
/* A file is ~300 bytes; anything past this is not the hook's. */
#define DOTNET_RT_FILE_MAX 4096
/* More processes than this in one run are not read (dotnet test starts three). */
#define DOTNET_RT_FILES_MAX 256
/* The longest process name (the entry assembly's name) a file may give. */
#define DOTNET_RT_NAME_MAX 128

/*
 * The figures, the one table of them: figure i (< DOTNET_RT_FIGURES) is
 * the file's key and the metric's field dotnet_runtime_figure_name(i), in unit
 * dotnet_runtime_figure_unit(i) ("count", "us", "bytes"); both NULL past the
 * end. Over several processes a figure is their sum, except peak_heap_bytes,
 * their largest (dotnet_runtime_figure_is_max()). dotnet_runtime_figure_index() is
 * the i of a name, or -1 (also for NULL).
 */
enum dotnet_rt_figure {
	DOTNET_RT_GC_GEN0, DOTNET_RT_GC_GEN1, DOTNET_RT_GC_GEN2, DOTNET_RT_GC_PAUSE_US,
	DOTNET_RT_ALLOCATED_BYTES, DOTNET_RT_PEAK_HEAP_BYTES, DOTNET_RT_LOCK_CONTENTIONS,
	DOTNET_RT_THREADPOOL_ITEMS, DOTNET_RT_JIT_METHODS, DOTNET_RT_JIT_TIME_US,
	DOTNET_RT_FIGURES
};
const char *dotnet_runtime_figure_name(size_t i);
const char *dotnet_runtime_figure_unit(size_t i);
int dotnet_runtime_figure_is_max(size_t i);
int dotnet_runtime_figure_index(const char *name);

/*
 * One process's figures, and the file they come from: its name and the
 * SHA-256 and size of its bytes, hashed in the read that parsed them
 * (file.read.hashed 0: not read whole).
 */
struct dotnet_rt_proc {
	int64_t pid;
	char process[DOTNET_RT_NAME_MAX + 1];
	int64_t figures[DOTNET_RT_FIGURES];
	struct file_read_named file;
};

/*
 * Every process's figures of one run. why is set (owned) when the files
 * could not all be read; the figures are then not used.
 */
struct dotnet_rt_set {
	struct dotnet_rt_proc *procs;
	size_t n;
	char *why;
};
#define DOTNET_RT_SET_INIT { NULL, 0, NULL }
void dotnet_runtime_set_release(struct dotnet_rt_set *set);


/*
 * Reads every dotnet-<pid>.json in the directory rel beneath dir (no
 * link followed; with dir NULL, rel is a plain path), in pid order, into
 * *set (released first). Each must be a regular file of at most
 * DOTNET_RT_FILE_MAX bytes that parses, and give the pid of its name;
 * other names are not looked at. A missing directory gives no processes.
 * Any bad file sets set->why, naming it: figures from a run where one
 * process's are unreadable are not used. Each file read whole, also one
 * that does not parse, has its hash in procs[].file.
 */
struct dirat;
void dotnet_runtime_read(const struct dirat *dir, const char *rel, struct dotnet_rt_set *set);

/*
 * Figure i combined over the processes whose name matches glob (fnmatch;
 * NULL: every process): 0 with *value, or -1 with *why (caller frees)
 * when the set is bad, has no process, or none matches (the names read
 * are listed).
 */
int dotnet_runtime_combine(const struct dotnet_rt_set *set, size_t i, const char *glob, double *value,
			   char **why);

#endif
