/*
 * plan_doc: the reference as data. The order of the rows is the order of
 * the keys in messages ("expected one of: ...") and in the printed
 * reference. Meanings are written for both the terminal and Markdown:
 * `backticks` mark literal names and are dropped on the terminal.
 */
#include "plan/plan_doc.h"

#include <string.h>

#include "decide/stats.h"
#include "decide/stats_exact.h"
#include "plan/plan.h"
#include "record/gate_def.h"
#include "results/metrics.h"
#include "util/compiler.h"
#include "util/json_in.h"
#include "util/strbuf.h"

#define WRAP 78

/*
 * A setting's row (plan_doc.h): the member m of struct plan, of C type
 * ct — a row naming a member of another type does not compile
 * (comparison of distinct pointer types) — its bounds and its default.
 */
#define PLAN_DEST(m, ct) (offsetof(struct plan, m) + 0 * sizeof(&((struct plan *)0)->m == (ct *)0))
#define PLAN_UNSIGNED(m, lo, hi, d) \
	.value = PLAN_VALUE_UNSIGNED, .offset = PLAN_DEST(m, unsigned), .min = (lo), .max = (hi), .def = (d)
#define PLAN_U64(m, lo, hi, d) \
	.value = PLAN_VALUE_U64, .offset = PLAN_DEST(m, uint64_t), .min = (lo), .max = (hi), .def = (d)
#define PLAN_I64(m, lo, hi, d) \
	.value = PLAN_VALUE_I64, .offset = PLAN_DEST(m, int64_t), .min = (lo), .max = (hi), .def = (d)
#define PLAN_NUMBER(m, lo, hi, d) \
	.value = PLAN_VALUE_NUMBER, .offset = PLAN_DEST(m, double), .min = (lo), .max = (hi), .def = (d)
#define PLAN_BOOL(m, d) \
	.value = PLAN_VALUE_BOOL, .offset = PLAN_DEST(m, int), .min = 0, .max = 1, .def = (d)

const struct plan_doc_key plan_doc_keys[] = {
	{ .key = "schema", .type = "string", .dflt = "required",
	  .meaning = "must be `\"abev.plan/1\"`" },
	{ .key = "name", .type = "string", .dflt = "required",
	  .meaning = "the comparison's name, shown in the report; at most 256 characters, no control, bidirectional, invisible or line-separator characters" },
	{ .key = "description", .type = "string", .dflt = "none", .meaning = "free text" },
	{ .key = "variants", .type = "array of objects", .dflt = "none",
	  .meaning = "the variants, in order; at least one variant overall (here or from `variants_file`)" },
	{ .key = "variants[].name", .type = "string", .dflt = "required",
	  .meaning = "`[A-Za-z0-9._-]`, not starting with `.`, at most 64 characters, unique also ignoring "
	  "case" },
	{ .key = "variants[].cwd", .type = "string", .dflt = "the plan's directory",
	  .meaning = "working directory, relative to the plan file; must exist" },
	{ .key = "variants[].command", .type = "array of strings", .dflt = "required",
	  .meaning = "argv, executed directly — no shell unless you write `[\"sh\", \"-c\", \"...\"]`; a "
	  "program name without `/` is looked up in the child's `PATH`; elements take "
	  "placeholders" },
	{ .key = "variants[].env", .type = "object of strings", .dflt = "none",
	  .meaning = "variables added to the inherited environment; values take placeholders" },
	{ .key = "variants[].parameters", .type = "object of strings", .dflt = "none",
	  .meaning = "the scan values the variant was made with, by parameter name (`abev bench -L`/`-P` "
	  "write them: `{\"v\": \"1\"}`); taken literally, they change nothing in the run and "
	  "are what hyperfine's exports show as `parameters` and `parameter_<name>`; not in "
	  "`base`" },
	{ .key = "variants[].assemblies", .type = "array of strings", .dflt = "none",
	  .meaning = "glob patterns of the files under test, relative to `cwd`: `*`, `?` and `[...]` within "
	  "a directory (not matching a leading dot, as in the shell), `**` for any number of "
	  "directories (not entering hidden ones or following directory links); each matching "
	  "file's size and SHA-256 go into `metadata.json` (a link to a file is recorded under "
	  "its own path with its target's hash); a pattern that matches nothing is an error; "
	  "matched before the run, or for a variant with a `setup` step (which may build them) "
	  "once it ended ok; only the `{variant}` placeholder" },
	{ .key = "variants[].cpus", .type = "string", .dflt = "`schedule.cpus`",
	  .meaning = "the CPUs the variant's child may run on, in the kernel's list syntax (`\"1\"`, "
	  "`\"0-1\"`, `\"0,2-3\"`), set with `sched_setaffinity` before exec and recorded per "
	  "invocation" },
	{ .key = "variants[].output", .type = "string", .dflt = "`log`",
	  .meaning = "where the command's stdout and stderr go, as hyperfine's `--output`: `log` "
	  "(`test.log` and `stderr.log`, their first and last `limits.log_keep_bytes` kept), "
	  "`null` (/dev/null: nothing recorded), `pipe` (read through pipes and discarded, "
	  "for a command that behaves differently on /dev/null; no logs), `inherit` (abev's "
	  "own stdout and stderr; no live progress line), or a file, a path with a `/` "
	  "(`./out.txt`, relative to the plan's directory): stdout whole to it, truncated at "
	  "each run, stderr to `stderr.log`; abev opens it without following a symlink and "
	  "refuses one that is a symlink, a hard link or not a regular file. Each stream's "
	  "size and SHA-256 are recorded but with `null` and `inherit`; a `stdout` metric "
	  "needs `log`, a `stderr` metric `log` or a file" },
	{ .key = "variants[].prepare", .type = "array of strings", .dflt = "`schedule.prepare`",
	  .meaning = "a command (argv, placeholders as in `command`) run before each of the variant's "
	  "invocations, warmups included, in its `cwd` and `env` with the step limit "
	  "(`schedule.step_timeout_seconds`), and not measured (hyperfine's `--prepare`); its "
	  "output goes to the invocation's `prepare.log` (at most `limits.max_step_log_bytes`) and its `result.json` records "
	  "it; when it does not exit 0 the measured command is not run and the invocation "
	  "fails; not in `base`" },
	{ .key = "variants[].setup", .type = "array of strings", .dflt = "`schedule.setup`",
	  .meaning = "a command (argv; only the `{variant}` placeholder) run once before the variant's "
	  "first invocation (every variant's before the first round, in order; with the order "
	  "`sequential`, just before the variant's own runs), in its `cwd` "
	  "and `env` with the step limit (`schedule.step_timeout_seconds`), and not measured "
	  "(hyperfine's `--setup`: "
	  "build once what the runs use); its output goes to `runs/<variant>/setup.log` (at "
	  "most `limits.max_step_log_bytes`) and `result.json`'s `steps` records it; when it "
	  "does not exit 0 no invocation runs and the evidence says why; not in `base`" },
	{ .key = "variants[].cleanup", .type = "array of strings", .dflt = "`schedule.cleanup`",
	  .meaning = "a command (argv; only `{variant}`) run once after the variant's last invocation "
	  "(every variant's after the last round, or with `sequential` right after its own "
	  "runs; also when the plan stopped early, not after "
	  "an interrupt or when its setup failed), as `setup` is (hyperfine's `--cleanup`); "
	  "its output goes to `runs/<variant>/cleanup.log`; a failure is a note, the runs "
	  "still count; not in `base`" },
	{ .key = "base", .type = "object", .dflt = "none",
	  .meaning = "a variant without `name` that the lines of `variants_file` build on; required with, "
	  "and only with, `variants_file`" },
	{ .key = "variants_file", .type = "string", .dflt = "none",
	  .meaning = "a regular file (a symbolic link is followed) of `name|ENV=V ENV2=W|extra args` lines, "
	  "relative to the plan: each line is a "
	  "variant with the base's environment plus the assignments and the base's command plus "
	  "the extra arguments (split on blanks; quotes group); at most these three fields (quote "
	  "a `|` in an argument), each variable once; UTF-8, a leading byte order mark skipped; "
	  "blank lines and `#` comments are skipped, CRLF is accepted; these variants follow "
	  "those of `variants`" },
	{ .key = "schedule", .type = "object", .dflt = "all defaults",
	  .meaning = "how the runs are ordered and timed" },
	{ .key = "schedule.warmups", .type = "integer", .dflt = "0",
	  .meaning = "warmup rounds, run first and never counted",
	  PLAN_UNSIGNED(set.warmups, 0, PLAN_MAX_ROUNDS, 0) },
	{ .key = "schedule.runs", .type = "integer", .dflt = "3 (with a gate: until `decided`)",
	  .meaning = "recorded rounds (each runs every variant once), at least 1; a plan with a gate "
	  "and no `runs` runs until every gate is decided (`until` `decided`, `max_rounds` "
	  "@DECIDED_MAX_ROUNDS@, looks after rounds @LOOKS@), and `result.json` says who chose "
	  "(`schedule.runs_from`: `plan`, `default` or `gates`); with a gate, fewer rounds than "
	  "can ever decide it are refused before anything runs (exit 2): @CHANGE_RUNS@ for a "
	  "change gate at @CONFIDENCE@ % (the exact unpaired interval), @BUDGET_RUNS@ for a "
	  "`budget` (its median's)",
	  PLAN_UNSIGNED(set.runs, 1, PLAN_MAX_ROUNDS, 3) },
	{ .key = "schedule.until", .type = "string", .dflt = "`runs`",
	  .meaning = "`runs` (a fixed number of rounds) or `decided`: rounds are added until every gate is "
	  "pass or fail, or `max_rounds` is reached; the gates are looked at after the rounds in "
	  "`looks`, each at confidence 1 − (1 − `decision.confidence`) / looks (Bonferroni), and "
	  "the report states the design and the looks taken; needs a gate, and no `runs`; the "
	  "default of a plan with a gate and no `runs`" },
	{ .key = "schedule.min_rounds", .type = "integer", .dflt = "the first look",
	  .meaning = "with `until` `decided`: rounds always run before the first look" },
	{ .key = "schedule.max_rounds", .type = "integer",
	  .dflt = "@DECIDED_MAX_ROUNDS@ for a plan with a gate and no `runs`",
	  .meaning = "with `until` `decided` (required when `until` is given): the most rounds, the "
	  "last look" },
	{ .key = "schedule.looks", .type = "array of integers",
	  .dflt = "@LOOKS@ at @CONFIDENCE@ % and @DECIDED_MAX_ROUNDS@ rounds",
	  .meaning = "with `until` `decided`: the rounds after which the gates are looked at, ascending, from "
	  "`min_rounds` to `max_rounds` (which is always the last look); at most 64. By default "
	  "from the first round at which the paired interval reaches the per-look confidence "
	  "(at least `min_rounds`), then half as many again (at least 2 more) each time, and "
	  "`max_rounds` last: with `decision.confidence` @CONFIDENCE@ % and `max_rounds` "
	  "@DECIDED_MAX_ROUNDS@, @LOOKS@, each at @LOOK_CONFIDENCE@ %" },
	{ .key = "schedule.order", .type = "string", .dflt = "`balanced`",
	  .meaning = "`balanced` (A B, B A, …: each variant in each slot of a round equally often, so a "
	  "machine drifting in time slows every variant alike; for three or more, a Williams "
	  "design), `alternate` (A B, A B, …: the later slot is always the same variant's), "
	  "`reverse` (A B, B A, A B, …), `shuffle` (each round drawn from `seed`) or `sequential` "
	  "(every run of A, then of B, each variant after its own setup and before its own "
	  "cleanup, as hyperfine runs; more exposed to drift; not with `until` `decided`). A plan "
	  "that names none, whose variants' setups differ and share a cwd, runs `sequential`; "
	  "naming another order for it is an error" },
	{ .key = "schedule.seed", .type = "integer", .dflt = "1",
	  .meaning = "seed of `shuffle`, recorded in the evidence",
	  PLAN_U64(set.seed, 0, JSON_INT_MAX, 1) },
	{ .key = "schedule.gap_seconds", .type = "number", .dflt = "0",
	  .meaning = "pause between the end of one process and the start of the next, 0–86400",
	  PLAN_NUMBER(set.gap_seconds, 0, 86400, 0) },
	{ .key = "schedule.timeout_seconds", .type = "number", .dflt = "none",
	  .meaning = "per-process limit (> 0) of the measured command, and of the `setup`, `cleanup` and "
	  "`prepare` steps when `step_timeout_seconds` is not given: SIGTERM to the process "
	  "group, SIGKILL after the grace period; "
	  "the run's reason names the signals sent and the exit code or signal it ended with; "
	  "with or without it, a process that stopped itself (SIGSTOP, SIGTSTP) and stayed stopped "
	  "10 s is ended the same way, its reason saying so",
	  PLAN_NUMBER(set.timeout_seconds, 0, 7 * 86400.0, 0), .min_exclusive = 1 },
	{ .key = "schedule.step_timeout_seconds", .type = "number",
	  .dflt = "3600 (or `timeout_seconds`)",
	  .meaning = "per-process limit (> 0, at most 7 days) of every `setup`, `cleanup` and `prepare` "
	  "step, so that a step that hangs (`sleep infinity`, a build waiting on a lock) cannot keep abev "
	  "waiting for ever; by default `timeout_seconds` when the plan sets one, else an hour. "
	  "A step at the limit is ended as `timeout_seconds` ends a process, and fails as any "
	  "failing step does (a setup: nothing runs; a prepare: its invocation fails; a "
	  "cleanup: a note); its reason names the limit and where it came from, and "
	  "`result.json` records it with who chose it (`schedule.step_timeout_seconds_from`: "
	  "`plan`, `timeout_seconds` or `default`). The measured command keeps "
	  "`timeout_seconds`, none by default as in hyperfine and BenchExec: a test suite may "
	  "legitimately run long",
	  PLAN_NUMBER(set.step_timeout_seconds, 0, 7 * 86400.0, PLAN_STEP_TIMEOUT_DEFAULT),
	  .min_exclusive = 1 },
	{ .key = "schedule.kill_grace_seconds", .type = "number", .dflt = "5",
	  .meaning = "SIGTERM-to-SIGKILL delay at a timeout or an interrupt, 0–3600",
	  PLAN_NUMBER(kill_grace_seconds, 0, 3600, 5) },
	{ .key = "schedule.cpus", .type = "string", .dflt = "any",
	  .meaning = "the CPUs every variant without its own `cpus` runs on (see `variants[].cpus`)" },
	{ .key = "schedule.prepare", .type = "array of strings", .dflt = "none",
	  .meaning = "the prepare command of every variant without its own (see `variants[].prepare`)" },
	{ .key = "schedule.setup", .type = "array of strings", .dflt = "none",
	  .meaning = "the setup command of every variant without its own (see `variants[].setup`)" },
	{ .key = "schedule.cleanup", .type = "array of strings", .dflt = "none",
	  .meaning = "the cleanup command of every variant without its own (see `variants[].cleanup`)" },
	{ .key = "results", .type = "object", .dflt = "none",
	  .meaning = "the test-result files each run writes" },
	{ .key = "results.files", .type = "string", .dflt = "none",
	  .meaning = "pattern (glob) of the TRX / JUnit files a run writes, relative to the variant's "
	  "`cwd`, matched as `assemblies` are (`**` for any number of directories); read after "
	  "every invocation, with a warning when it matches nothing after the first run; takes "
	  "placeholders" },
	{ .key = "results.min_executed", .type = "integer", .dflt = "1 with `results.files`",
	  .meaning = "fewest executed tests a run's result files must report; only with `results.files`" },
	{ .key = "results.known_failures", .type = "array of strings", .dflt = "none",
	  .meaning = "tests allowed to fail: `fnmatch` patterns of test names as result.json writes them "
	  "(`Namespace.Class.Method`, + the data row); any other failed, errored, aborted or "
	  "timed-out test fails its run's `tests_passed` guard and rejects the decision; only "
	  "with `results.files`" },
	{ .key = "metrics", .type = "array of objects", .dflt = "none",
	  .meaning = "the numbers taken from each run, in order (see docs/plan.md, **Metrics**)" },
	{ .key = "metrics[].name", .type = "string", .dflt = "required",
	  .meaning = "unique, at most 128 characters, no control, bidirectional, invisible or line-separator characters; not `wall`, `cpu`, "
	  "`max_rss` or `wall_own` (the built-in metrics)" },
	{ .key = "metrics[].unit", .type = "string", .dflt = "implied by `source`",
	  .meaning = "`stdout`, `stderr` and `results` only, e.g. `\"ms\"` (`process`, `duration` and "
	  "`dotnet` imply theirs)" },
	{ .key = "metrics[].better", .type = "string", .dflt = "`lower`",
	  .meaning = "`lower` or `higher`" },
	{ .key = "metrics[].source", .type = "string", .dflt = "required",
	  .meaning = "`process`, `stdout`, `stderr`, `results`, `duration` or `dotnet` (needs "
	  "`dotnet_runtime`)" },
	{ .key = "metrics[].field", .type = "string", .dflt = "required for `process`, `dotnet`",
	  .meaning = "`process`: `wall`, `user`, `sys`, `cpu` (ms), `max_rss` (bytes), `minflt`, "
	  "`majflt`, `nvcsw`, `nivcsw` (counts); `dotnet`: `gc_gen0`, `gc_gen1`, `gc_gen2` "
	  "(collections of that generation), `gc_pause_us` (us), `allocated_bytes`, "
	  "`peak_heap_bytes` (bytes), `lock_contentions`, `threadpool_items`, `jit_methods` "
	  "(counts), `jit_time_us` (us)" },
	{ .key = "metrics[].process", .type = "string", .dflt = "none (the whole tree; every .NET process)",
	  .meaning = "`process` with field `max_rss` or `cpu`: a glob over the command name (or an "
	  "argument's last path component) of the tree's processes, e.g. `\"testhost*\"`: the "
	  "largest peak RSS, or the sum of CPU time, of those it names, less any that started "
	  "another it names (MTP's test host controller); `dotnet`: a glob over "
	  "the names of the run's .NET processes (the entry assembly: `testhost`, `dotnet`, "
	  "`vstest.console`, `MSBuild`, ...), the figure summed over those that match, "
	  "`peak_heap_bytes` their largest" },
	{ .key = "metrics[].test", .type = "string", .dflt = "required for `results`, `duration`",
	  .meaning = "`results` and `duration` only: a glob over test names (`*`, `?`, `[...]`), matched "
	  "against a test's class-qualified name or its name as the file writes it" },
	{ .key = "metrics[].pattern", .type = "string", .dflt = "required for `stdout`, `stderr`, `results`",
	  .meaning = "`stdout`, `stderr` and `results` only: a POSIX extended regular expression whose "
	  "first group captures the number" },
	{ .key = "metrics[].match", .type = "string", .dflt = "`first`",
	  .meaning = "how the matches combine: `first`, `last`, `sum` or `mean`; not for `process` or "
	  "`dotnet`" },
	{ .key = "metrics[].derive", .type = "string", .dflt = "none",
	  .meaning = "`rate`: also report `<name> (rate)`" },
	{ .key = "metrics[].max_regression_pct", .type = "number", .dflt = "none",
	  .meaning = "a gate: the largest regression tolerated, in percent (≥ 0)" },
	{ .key = "metrics[].max_improvement_pct", .type = "number", .dflt = "none",
	  .meaning = "a gate: the largest gain tolerated before someone looks, in percent (≥ 0)" },
	{ .key = "metrics[].budget", .type = "number", .dflt = "none",
	  .meaning = "a gate: an absolute limit on a candidate's median, in the metric's unit (at most for "
	  "`lower`, at least for `higher`)" },
	{ .key = "load", .type = "object", .dflt = "all defaults",
	  .meaning = "when a recorded run is discarded and repeated" },
	{ .key = "load.max_cpu_wait_pct", .type = "number", .dflt = "10",
	  .meaning = "share of a recorded run's wall time (0–100 %) its processes may spend ready to run "
	  "but waiting for CPUs other processes held (`foreign_wait_pct`; its own threads "
	  "waiting for each other do not count) before it is discarded; "
	  "`abev run --max-cpu-wait-pct P` "
	  "overrides it, and `result.json` records which applied "
	  "(`schedule.max_cpu_wait_pct_from`); see docs/plan.md, **Contention**",
	  PLAN_NUMBER(set.max_cpu_wait_pct, 0, 100, PLAN_MAX_CPU_WAIT_PCT_DEFAULT) },
	{ .key = "load.max_foreign_cpu", .type = "number", .dflt = "none",
	  .meaning = "a second, optional limit: cores other processes may keep busy during a recorded run "
	  "before it is discarded. Busy cores slow a run only when they take its CPU, which "
	  "`max_cpu_wait_pct` measures, so by default there is none: on a 2-core machine with "
	  "one busy core every run would otherwise be discarded",
	  PLAN_NUMBER(set.max_foreign_cpu, 0, 1e6, -1) },
	{ .key = "load.max_repeats", .type = "integer", .dflt = "2",
	  .meaning = "how often a discarded slot is repeated, 0–1000; its last attempt is kept, marked "
	  "`loaded`, when the load figures alone discarded it",
	  PLAN_UNSIGNED(set.max_repeats, 0, 1000, 2) },
	{ .key = "load.max_wait_seconds", .type = "number", .dflt = "60",
	  .meaning = "seconds (0–86400) one run of the plan may spend in all waiting for a quieter machine: "
	  "before a recorded run abev looks at the cores other processes keep busy on the run's "
	  "CPUs and, above what the run can stand (`max_foreign_cpu`, else its CPUs less what "
	  "it used last time), waits, backing off; once this is spent runs go ahead under load "
	  "and are kept, marked `loaded`; `abev run --max-load-wait S` overrides it; see "
	  "docs/plan.md, **Contention**",
	  PLAN_NUMBER(set.max_wait_seconds, 0, 86400, PLAN_MAX_WAIT_SECONDS_DEFAULT) },
	{ .key = "load.exclusive", .type = "array of strings", .dflt = "none",
	  .meaning = "command-line patterns (`fnmatch`: `*`, `?`, `[...]`) of processes a recorded run "
	  "must not overlap, e.g. `[\"dotnet test*\", \"*k6 run*\"]`; matched against a "
	  "process's whole command line and against it without the program's directory, never "
	  "against abev's own tree; a recorded run that overlapped one is discarded and "
	  "repeated, and its `result.json` names the process (see docs/plan.md, **Overlap**)" },
	{ .key = "run_as", .type = "string", .dflt = "none",
	  .meaning = "a user name: every command of the plan (invocations, prepare, versions) runs as "
	  "that user, with its groups (abev must run as root; git runs as abev), so that it "
	  "can neither read the signing key nor write the evidence outside its own run "
	  "directory, which abev hands to the user for the invocation, nor read the rest of the "
	  "evidence, whatever the umask: abev writes it under 077 meanwhile (the commands keep the "
	  "umask abev was started with) and takes each run directory back private, 0700 and 0600, "
	  "so the evidence is root's to share; an unknown user is an "
	  "error; `abev run --run-as USER` overrides it; `result.json` records it (`run_as`)" },
	{ .key = "dotnet_runtime", .type = "boolean", .dflt = "`false`",
	  .meaning = "`true`: abev adds its startup hook to `DOTNET_STARTUP_HOOKS` (after the user's own) "
	  "of each invocation's command, and every .NET process of the run writes its runtime "
	  "figures (GC, allocations, lock contention, JIT) at exit into `dotnet-<pid>.json` in "
	  "its run directory, for `dotnet` metrics; the hook is found through "
	  "`ABEV_DOTNET_HOOK`, beside the binary (`build/dotnet-hook/`) or installed "
	  "(`../lib/abev/`), and `metadata.json` records its path and SHA-256 (`dotnet_hook`)",
	  PLAN_BOOL(dotnet_runtime, 0) },
	{ .key = "allowed_exit_codes", .type = "array of integers", .dflt = "`[0]`",
	  .meaning = "exit codes (0–255, distinct) that do not fail an invocation" },
	{ .key = "versions", .type = "object", .dflt = "none",
	  .meaning = "commands whose output identifies what is compared, e.g. "
	  "`{\"sdk\": [\"dotnet\", \"--version\"]}`, at most 32" },
	{ .key = "versions.<name>", .type = "array of strings", .dflt = "none",
	  .meaning = "one command, taken literally (no placeholders), run in each variant's `cwd` with its "
	  "`env` and recorded in `metadata.json`; it may take 10 s, then its process group gets "
	  "SIGTERM and SIGKILL a second later, and it is recorded as timed out" },
	{ .key = "reference", .type = "string", .dflt = "the first variant",
	  .meaning = "the name of the variant the others are compared with" },
	{ .key = "gates", .type = "object", .dflt = "none",
	  .meaning = "gates by metric name: the built-in `wall` (ms), `cpu` (ms), `max_rss` (bytes) and "
	  "`wall_own` (ms, wall less the wait on CPUs other processes held), "
	  "the plan's metrics and their rates (`\"<name> (rate)\"`); a gate also given in the "
	  "metric's own definition is an error (see docs/decision.md)" },
	{ .key = "gates.<metric>", .type = "object", .dflt = "none",
	  .meaning = "the metric's gates, at least one" },
	{ .key = "gates.<metric>.max_regression_pct", .type = "number", .dflt = "none",
	  .meaning = "fails when the whole interval of the change is worse than this, in percent (≥ 0)" },
	{ .key = "gates.<metric>.max_improvement_pct", .type = "number", .dflt = "none",
	  .meaning = "fails when the whole interval of the change is better than this, in percent (≥ 0)" },
	{ .key = "gates.<metric>.budget", .type = "number", .dflt = "none",
	  .meaning = "an absolute limit on a candidate's median, in the metric's unit" },
	{ .key = "decision", .type = "object", .dflt = "all defaults",
	  .meaning = "how gates make the decision" },
	{ .key = "decision.acceptance", .type = "boolean", .dflt = "`false`",
	  .meaning = "`true`: the plan is an acceptance plan; otherwise the report says that a pass "
	  "implies no acceptance decision",
	  PLAN_BOOL(acceptance, 0) },
	{ .key = "decision.inconclusive", .type = "string", .dflt = "`fail`",
	  .meaning = "what an inconclusive decision does: `pass` (exit 0, the word inconclusive in the "
	  "summary) or `fail` (exit 6)" },
	{ .key = "decision.confidence", .type = "number", .dflt = "0.95",
	  .meaning = "of the decision as a whole, 0.5–0.999: each of its m gate judgements (gates × "
		     "variants but the reference) is at 1 − (1 − confidence) / m (Bonferroni)",
	  PLAN_NUMBER(confidence, 0.5, 0.999, COMPARE_CONFIDENCE) },
	{ .key = "decision.bootstrap_resamples", .type = "integer", .dflt = "10000",
	  .meaning = "resamples of that interval, 100–1,000,000",
	  PLAN_UNSIGNED(resamples, 100, 1000000, COMPARE_RESAMPLES) },
	{ .key = "report", .type = "object", .dflt = "none",
	  .meaning = "the report's own settings" },
	{ .key = "report.template", .type = "string", .dflt = "abev's own",
	  .meaning = "the plan's own template for `report.md`, relative to the plan (a regular file; a "
	  "symbolic link is followed); its syntax is checked "
	  "when the plan is read, and it is kept in the evidence as `report-template.md` (see "
	  "docs/report.md)" },
	{ .key = "limits", .type = "object", .dflt = "all defaults",
	  .meaning = "ceilings on what one invocation may leave or cost" },
	{ .key = "limits.max_files", .type = "integer", .dflt = "10000",
	  .meaning = "entries one invocation may leave in its directory — regular files, directories "
	  "at any depth below it, and anything else still there when its run ends (`test.log`, "
	  "`stderr.log` and `prepare.log` not counted), 1–100,000: past it the invocation fails, with the count "
	  "and the limit as its reason, and the entries after the first `max_files` in name "
	  "order are removed (a directory with all beneath it; with a note) so that the evidence can "
	  "still be sealed; directories left empty are removed then too (with a note: they hold "
	  "nothing the manifest can list); an evidence "
	  "directory holds at most 1,000,000 entries in all (one per invocation of `true`, which prints nothing), and a run that would go past that is "
	  "held to what is left in the same way",
	  PLAN_UNSIGNED(max_files, 1, PLAN_MAX_FILES_CEILING, PLAN_MAX_FILES_DEFAULT) },
	{ .key = "limits.pattern_cpu_seconds", .type = "number", .dflt = "10",
	  .meaning = "CPU seconds one metric's `pattern` may spend on one invocation's output (its "
	  "`stdout`/`stderr` file, or the captured stdout of all its matching test results), at most "
	  "3600: past it the metric is not yielded, with the reason, so the `metrics` guard "
	  "fails",
	  PLAN_NUMBER(pattern_cpu_seconds, 0, 3600, METRICS_PATTERN_CPU_SECONDS_DEFAULT), .min_exclusive = 1 },
	{ .key = "limits.max_log_bytes", .type = "integer", .dflt = "268435456 (256 MiB)",
	  .meaning = "bytes kept of each of the child's streams, `test.log` (stdout) and `stderr.log` "
	  "(stderr), 0 or more: abev reads both through pipes and writes the files itself; past "
	  "the cap it keeps reading, so the child never blocks and its wall time is not "
	  "stretched by a full pipe, but writes no more; the invocation's `result.json` says "
	  "what was kept and dropped (`logs.stdout`, `logs.stderr`: `bytes_written`, "
	  "`bytes_dropped`, `truncated`) and the report notes each truncated log",
	  PLAN_I64(max_log_bytes, 0, JSON_INT_MAX, PLAN_MAX_LOG_BYTES_DEFAULT) },
	{ .key = "limits.max_run_bytes", .type = "integer", .dflt = "1073741824 (1 GiB)",
	  .meaning = "bytes one invocation may leave in its directory (the sum of its regular files' "
	  "sizes, `test.log`, `stderr.log` and `prepare.log` not counted), 0 or more, measured "
	  "before anything is hashed: a sparse file counts at its full size, as hashing would "
	  "read it; past it the invocation fails and the files that do not fit, in name order, "
	  "are removed (with a note, naming each and its size) so that the evidence can still "
	  "be sealed; a log the run itself made longer than `max_log_bytes` is cut back to it",
	  PLAN_I64(max_run_bytes, 0, JSON_INT_MAX, PLAN_MAX_RUN_BYTES_DEFAULT) },
	{ .key = "limits.log_keep_bytes", .type = "integer", .dflt = "8192 (8 KiB)",
	  .meaning = "bytes kept of the start and of the end of each of `test.log` and `stderr.log`, 0 to "
	  "67108864 (64 MiB); 0 keeps the whole stream (up to `max_log_bytes`): between the two "
	  "abev writes one line, `[abev: N bytes left out here]`, and the invocation's "
	  "`result.json` counts them (`logs.stdout.bytes_left_out`); a plan with a `stdout` or "
	  "`stderr` metric keeps the whole stream, which the metric reads; so does one whose "
	  "`max_log_bytes` is under twice this",
	  PLAN_I64(log_keep_bytes, 0, PLAN_LOG_KEEP_BYTES_CEILING, PLAN_LOG_KEEP_BYTES_DEFAULT) },
	{ .key = "limits.max_step_log_bytes", .type = "integer", .dflt = "1048576 (1 MiB)",
	  .meaning = "bytes kept of a `prepare`, `setup` or `cleanup` command's output (stdout "
	  "and stderr together, in `prepare.log`, `setup.log`, `cleanup.log`), 0 to 268435456 "
	  "(256 MiB): a build's whole log in the evidence, or none; past it abev keeps reading "
	  "and `result.json` counts what was dropped (the step's `log.bytes_dropped`)",
	  PLAN_I64(max_step_log_bytes, 0, PLAN_MAX_STEP_LOG_BYTES_CEILING,
		   PLAN_MAX_STEP_LOG_BYTES_DEFAULT) },
};

const size_t plan_doc_nkeys = ARRAY_SIZE(plan_doc_keys);

const struct plan_doc_key *plan_doc_find(const char *key)
{
	for (size_t i = 0; i < plan_doc_nkeys; i++)
		if (!strcmp(plan_doc_keys[i].key, key))
			return &plan_doc_keys[i];
	return NULL;
}

static const char placeholders_text[] =
	"Placeholders in `command` elements, `env` values and `results.files`: `{run_dir}` "
	"(the invocation's own evidence directory, absolute), `{variant}`, `{phase}` (`warmup` "
	"or `run`), `{round}` (1-based within the phase); `assemblies` take `{variant}` only. "
	"`{{` and `}}` are literal braces; any other `{name}` is an error. Unknown keys are "
	"errors at every level; every error names the file and the JSON path, and all of a "
	"plan's errors are reported together, with what it names that is missing on this "
	"machine (a cwd, a program, a results directory).";

static const char example_text[] =
	"{\n"
	"  \"schema\": \"abev.plan/1\",\n"
	"  \"name\": \"lock-bench\",\n"
	"  \"description\": \"The new lock against the old one.\",\n"
	"  \"variants\": [\n"
	"    { \"name\": \"baseline\", \"cwd\": \"../worktrees/old\",\n"
	"      \"command\": [\"dotnet\", \"test\", \"--logger\", \"trx\",\n"
	"                  \"--results-directory\", \"{run_dir}\"],\n"
	"      \"env\": { \"BENCH\": \"1\" }, \"parameters\": { \"lock\": \"old\" },\n"
	"      \"assemblies\": [\"bin/Release/**/*.dll\"], \"cpus\": \"1\",\n"
	"      \"prepare\": [\"dotnet\", \"build-server\", \"shutdown\"],\n"
	"      \"setup\": [\"dotnet\", \"build\", \"-c\", \"Release\"],\n"
	"      \"cleanup\": [\"dotnet\", \"clean\"] },\n"
	"    { \"name\": \"candidate\", \"cwd\": \"../worktrees/new\",\n"
	"      \"command\": [\"dotnet\", \"test\", \"--logger\", \"trx\",\n"
	"                  \"--results-directory\", \"{run_dir}\"],\n"
	"      \"env\": { \"BENCH\": \"1\" }, \"parameters\": { \"lock\": \"new\" },\n"
	"      \"assemblies\": [\"bin/Release/**/*.dll\"], \"output\": \"log\" }\n"
	"  ],\n"
	"  \"schedule\": { \"warmups\": 1, \"runs\": 8, \"order\": \"reverse\", \"seed\": 1,\n"
	"                \"gap_seconds\": 2, \"timeout_seconds\": 600,\n"
	"                \"step_timeout_seconds\": 1800,\n"
	"                \"kill_grace_seconds\": 5, \"cpus\": \"0-1\",\n"
	"                \"prepare\": [\"sync\"],\n"
	"                \"setup\": [\"git\", \"status\", \"--short\"],\n"
	"                \"cleanup\": [\"sync\"] },\n"
	"  \"results\": { \"files\": \"{run_dir}/*.trx\", \"min_executed\": 3,\n"
	"               \"known_failures\": [\"Suite.FlakyTests.*\"] },\n"
	"  \"metrics\": [\n"
	"    { \"name\": \"rebuild\", \"source\": \"results\", \"test\": \"*Rebuild*\",\n"
	"      \"unit\": \"ms\", \"pattern\": \"rebuild_ms=([0-9.]+)\", \"match\": \"mean\",\n"
	"      \"better\": \"lower\", \"derive\": \"rate\", \"max_regression_pct\": 15 },\n"
	"    { \"name\": \"peak memory\", \"source\": \"process\", \"field\": \"max_rss\",\n"
	"      \"process\": \"testhost*\", \"max_improvement_pct\": 90, \"budget\": 536870912 },\n"
	"    { \"name\": \"lock test\", \"source\": \"duration\", \"test\": \"*Lock*\" },\n"
	"    { \"name\": \"gc pause\", \"source\": \"dotnet\", \"field\": \"gc_pause_us\",\n"
	"      \"process\": \"testhost*\" }\n"
	"  ],\n"
	"  \"dotnet_runtime\": true,\n"
	"  \"load\": { \"max_cpu_wait_pct\": 10, \"max_foreign_cpu\": 0.5, \"max_repeats\": 2,\n"
	"            \"max_wait_seconds\": 60,\n"
	"            \"exclusive\": [\"dotnet test*\", \"*k6 run*\"] },\n"
	"  \"run_as\": \"nobody\",\n"
	"  \"allowed_exit_codes\": [0, 1],\n"
	"  \"versions\": { \"sdk\": [\"dotnet\", \"--version\"] },\n"
	"  \"reference\": \"baseline\",\n"
	"  \"gates\": { \"wall\": { \"max_regression_pct\": 10, \"max_improvement_pct\": 50 },\n"
	"             \"rebuild (rate)\": { \"budget\": 0.01 } },\n"
	"  \"decision\": { \"acceptance\": true, \"inconclusive\": \"fail\",\n"
	"                \"confidence\": 0.95, \"bootstrap_resamples\": 10000 },\n"
	"  \"report\": { \"template\": \"report.md\" },\n"
	"  \"limits\": { \"max_files\": 10000, \"pattern_cpu_seconds\": 10,\n"
	"              \"max_log_bytes\": 268435456, \"max_run_bytes\": 1073741824,\n"
	"              \"log_keep_bytes\": 8192, \"max_step_log_bytes\": 1048576 }\n"
	"}\n"
	"\n"
	"With a variants file instead of (or after) \"variants\":\n"
	"\n"
	"  \"base\": { \"cwd\": \".\", \"command\": [\"./bench\"] },\n"
	"  \"variants_file\": \"variants.txt\"\n"
	"\n"
	"where variants.txt holds lines such as\n"
	"\n"
	"  # name | environment | extra arguments\n"
	"  baseline|SDK=1.5|\n"
	"  candidate|SDK=2.0 GC=server|--filter \"Category=Lock\"\n"
	"\n"
	"A schedule that adds rounds until every gate is decided (instead of \"runs\"):\n"
	"\n"
	"  \"schedule\": { \"until\": \"decided\", \"min_rounds\": 8, \"max_rounds\": 32,\n"
	"                \"looks\": [8, 12, 16, 24, 32] }\n";

size_t plan_doc_children(const char *parent, const char **names, size_t max)
{
	size_t plen = strlen(parent), n = 0;

	for (size_t i = 0; i < plan_doc_nkeys && n < max; i++) {
		const char *k = plan_doc_keys[i].key, *leaf;
		if (plen) {
			if (strncmp(k, parent, plen) || k[plen] != '.')
				continue;
			leaf = k + plen + 1;
		} else {
			leaf = k;
		}
		/* Only direct children, and only fixed names. */
		if (strchr(leaf, '.') || strchr(leaf, '[') || leaf[0] == '<')
			continue;
		names[n++] = leaf;
	}
	return n;
}

/*
 * Figures the reference states that the binary computes, written in the
 * rows as @NAME@ and put in when the reference is printed, so that `abev
 * help plan` and docs/plan-keys.md say what the binary does: the looks
 * were once documented as 6, 9, 14, 21 while the binary took 8, 12, 18,
 * 27, 32.
 */
enum figure {
	FIG_DECIDED_MAX_ROUNDS, /* PLAN_DECIDED_MAX_ROUNDS */
	FIG_LOOKS,              /* plan_default_looks() at the default confidence, to that */
	FIG_LOOK_CONFIDENCE,    /* each of those looks' confidence, % */
	FIG_CONFIDENCE,         /* decision.confidence's default, % */
	FIG_CHANGE_RUNS,        /* the fewest rounds a change gate can be decided in */
	FIG_BUDGET_RUNS,        /* the fewest a budget can */
	FIGURES
};

static const char *const figure_names[FIGURES] = {
	"DECIDED_MAX_ROUNDS", "LOOKS", "LOOK_CONFIDENCE", "CONFIDENCE", "CHANGE_RUNS",
	"BUDGET_RUNS",
};

static void add_figure(struct strbuf *sb, enum figure f)
{
	unsigned looks[PLAN_MAX_LOOKS];
	size_t n = plan_default_looks(COMPARE_CONFIDENCE, 0, PLAN_DECIDED_MAX_ROUNDS, looks);

	switch (f) {
	case FIG_DECIDED_MAX_ROUNDS:
		strbuf_addf(sb, "%u", PLAN_DECIDED_MAX_ROUNDS);
		break;
	case FIG_LOOKS:
		for (size_t i = 0; i < n; i++)
			strbuf_addf(sb, "%s%u", i ? ", " : "", looks[i]);
		break;
	case FIG_LOOK_CONFIDENCE:
		strbuf_addf(sb, "%.4g", (1 - (1 - COMPARE_CONFIDENCE) / (double)n) * 100);
		break;
	case FIG_CONFIDENCE:
		strbuf_addf(sb, "%.4g", COMPARE_CONFIDENCE * 100);
		break;
	case FIG_CHANGE_RUNS:
		strbuf_addf(sb, "%zu", stats_mw_interval_n_needed(COMPARE_CONFIDENCE));
		break;
	case FIG_BUDGET_RUNS:
		strbuf_addf(sb, "%zu", stats_median_ci_n_needed(COMPARE_CONFIDENCE));
		break;
	case FIGURES:
		break;
	}
}

/* text with each @NAME@ of figure_names replaced by its figure; any other '@' as it is. */
static void add_expanded(struct strbuf *sb, const char *text)
{
	while (*text) {
		const char *end = *text == '@' ? strchr(text + 1, '@') : NULL;
		size_t f = FIGURES;

		for (size_t i = 0; end && i < FIGURES; i++)
			if ((size_t)(end - text - 1) == strlen(figure_names[i]) &&
			    !memcmp(text + 1, figure_names[i], strlen(figure_names[i])))
				f = i;
		if (f == FIGURES) {
			strbuf_addch(sb, *text++);
			continue;
		}
		add_figure(sb, (enum figure)f);
		text = end + 1;
	}
}

/*
 * s without backticks and, outside them, without the ** of emphasis (the
 * terminal shows names plainly; a literal `**` glob stays).
 */
static void add_plain(struct strbuf *sb, const char *s)
{
	int code = 0;

	for (; *s; s++) {
		if (*s == '`')
			code = !code;
		else if (!code && s[0] == '*' && s[1] == '*')
			s++;
		else
			strbuf_addch(sb, *s);
	}
}

/* Prints text wrapped at WRAP columns (counting UTF-8 characters), each line indented. */
static void print_wrapped(FILE *f, const char *text, const char *indent)
{
	struct strbuf plain = STRBUF_INIT;
	const char *p;
	size_t col = 0, ind = strlen(indent);

	add_plain(&plain, text);
	p = plain.buf;
	while (*p) {
		const char *end = p;
		size_t chars = 0;
		while (*end && *end != ' ') {
			chars += ((unsigned char)*end & 0xc0) != 0x80;
			end++;
		}
		if (col && col + 1 + chars > WRAP) {
			fputc('\n', f);
			col = 0;
		}
		if (!col) {
			fputs(indent, f);
			col = ind;
		} else {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, (size_t)(end - p), f);
		col += chars;
		p = *end ? end + 1 : end;
	}
	if (col)
		fputc('\n', f);
	strbuf_release(&plain);
}

static void print_text(FILE *f)
{
	struct strbuf sb = STRBUF_INIT, ex = STRBUF_INIT;

	fputs("The plan (JSON, schema \"abev.plan/1\"): every key, its type, its default\n"
	      "and its meaning. A key under \"variants[]\" belongs to each object of the\n"
	      "array; <metric> and <name> are names the plan chooses.\n\n", f);
	for (size_t i = 0; i < plan_doc_nkeys; i++) {
		const struct plan_doc_key *k = &plan_doc_keys[i];
		strbuf_reset(&ex);
		add_expanded(&ex, k->dflt);
		strbuf_reset(&sb);
		add_plain(&sb, ex.buf);
		fprintf(f, "%s\n    type: %s  default: %s\n", k->key, k->type, sb.buf);
		strbuf_reset(&ex);
		add_expanded(&ex, k->meaning);
		print_wrapped(f, ex.buf, "    ");
	}
	fputc('\n', f);
	print_wrapped(f, placeholders_text, "");
	fputs("\nExample:\n\n", f);
	fputs(example_text, f);
	strbuf_release(&sb);
	strbuf_release(&ex);
}

/* A table cell: '|' escaped, newlines cannot occur. */
static void print_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static void print_markdown(FILE *f)
{
	struct strbuf ex = STRBUF_INIT;

	fputs("| key | type | default | meaning |\n|---|---|---|---|\n", f);
	for (size_t i = 0; i < plan_doc_nkeys; i++) {
		const struct plan_doc_key *k = &plan_doc_keys[i];
		fputs("| `", f);
		print_cell(f, k->key);
		fputs("` | ", f);
		print_cell(f, k->type);
		fputs(" | ", f);
		strbuf_reset(&ex);
		add_expanded(&ex, k->dflt);
		print_cell(f, ex.buf);
		fputs(" | ", f);
		strbuf_reset(&ex);
		add_expanded(&ex, k->meaning);
		print_cell(f, ex.buf);
		fputs(" |\n", f);
	}
	strbuf_release(&ex);
}

void plan_doc_print(FILE *f, enum plan_doc_format format)
{
	if (format == PLAN_DOC_MARKDOWN)
		print_markdown(f);
	else
		print_text(f);
}
