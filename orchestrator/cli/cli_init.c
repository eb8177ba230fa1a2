/*
 * cli_init: `abev init`, a starter plan written but not run — the
 * default two variants, one made from commands as abev bench makes them
 * (--from-bench), or a .NET test project's (--dotnet), with the git
 * worktrees of --baseline and --candidate.
 */
#include "cli/cli_run.h"
#include "cli/outpath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/dotnet_project.h"
#include "run/proc.h"
#include "run/worktree.h"
#include "record/layout.h"
#include "util/alloc.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/writefile.h"

static const char init_usage[] =
	"usage: abev init [--out plan.json] [--dotnet [--project DIR] [--package NAME]...\n"
	"                 [--baseline REF --candidate REF]\n"
	"                 | --from-bench [bench options] COMMAND...]\n";

static const char init_about[] =
	"Writes a starter plan (default plan.json; an existing file is never\n"
	"overwritten, exit 2) holding every commonly used key with its default: the\n"
	"variants (name, cwd, command), the schedule (warmups, runs, order, seed,\n"
	"gap_seconds, timeout_seconds, kill_grace_seconds), results (files,\n"
	"min_executed), load (max_cpu_wait_pct, max_repeats), an example metric, an\n"
	"example gate, allowed_exit_codes and decision. Without --from-bench its two\n"
	"variants write a one-test JUnit file; replace their commands with yours.\n"
	"With --from-bench the variants are the commands, made as 'abev bench' makes\n"
	"them, with its options below (-r, -w, -n, -N, -L, -P, -D, -i, --prepare, -s, -c,\n"
	"--gap, --order, --cpus, --results, --min-executed, --max-regression,\n"
	"--metric, -m, -M and --until-decided). With --dotnet the variants are\n"
	"`dotnet test --no-build -c Release` of a test project built once\n"
	"beforehand, one TRX per run in {run_dir}, with\n"
	"DOTNET_CLI_TELEMETRY_OPTOUT=1, DOTNET_NOLOGO=1,\n"
	"MSBUILDDISABLENODEREUSE=1 and DOTNET_CLI_USE_MSBUILD_SERVER=0 (no build server\n"
	"or MSBuild node outlives a run), the test assembly and each --package's dll\n"
	"hashed (bin/Release/net*/NAME.dll), `dotnet --version`, `dotnet\n"
	"--list-runtimes` and the resolved versions of the project's direct\n"
	"dependencies and of each --package (from obj/project.assets.json) recorded,\n"
	"and runs allowed to wait for a CPU 25 % of their wall time (the CLR's own\n"
	"threads wait 5-11 %), and gates on the test host's own peak memory and CPU\n"
	"time; set each variant's cwd to its test project. 'abev run PLAN --dry-run'\n"
	"checks the plan.\n"
	"Found from here, --project's .csproj names the assembly, and on\n"
	"Microsoft.Testing.Platform (global.json's test.runner, or the project's\n"
	"EnableMSTestRunner and the like) the TRX is asked for with --report-trx.\n"
	"Two builds of one project need separate output folders (bin/, obj/):\n"
	"with --baseline REF --candidate REF (two git refs; run inside the\n"
	"repository) abev init checks each commit out as a detached git worktree\n"
	"of its own beside the repository's top, TOP-abev/baseline and\n"
	"TOP-abev/candidate (reused when one is there at that commit; anything\n"
	"else there is refused and left alone), so each variant's BaseOutputPath\n"
	"is its own; each variant's cwd is then the project in its worktree\n"
	"(absolute), its setup builds it once (dotnet build -c Release) and\n"
	"versions.commit records its commit; the candidate's project is read.\n"
	"Remove the worktrees with git worktree remove DIR.\n";

static const char init_tail[] =
	"Exit codes: 0 written; 2 usage error, the file exists, not in a git work tree, a\n"
	"ref git does not know, or a worktree's directory taken; 3 cannot write, or git\n"
	"could not make a worktree.\n";

/* The options of abev init. */
struct init_args {
	struct quick_args q;
	const char *out;        /* the plan file; EVIDENCE_PLAN_FILE unless given */
	int from_bench, dotnet;
	const char *project;    /* --project DIR */
	struct cli_strings packages; /* --package NAME */
	const char *baseline, *candidate; /* --baseline REF, --candidate REF */
};

/* The worktrees of --baseline and --candidate, one per starter variant. */
struct init_worktrees {
	struct quick_checkout co[QUICK_STARTER_VARIANTS]; /* what the plan is told */
	char *top;                                        /* the repository's work tree */
	char *dir[QUICK_STARTER_VARIANTS], *commit[QUICK_STARTER_VARIANTS];
	int made[QUICK_STARTER_VARIANTS];                 /* made now, not reused */
};
#define INIT_WORKTREES_INIT { .top = NULL }

static void init_worktrees_release(struct init_worktrees *w)
{
	free(w->top);
	for (size_t k = 0; k < QUICK_STARTER_VARIANTS; k++) {
		free(w->dir[k]);
		free(w->commit[k]);
	}
	memset(w, 0, sizeof(*w));
}

/* EXIT_USAGE for what the user can correct, else EXIT_RUNTIME; 0 for WORKTREE_OK. */
static int worktree_exit(enum worktree_status st)
{
	return st == WORKTREE_OK ? 0 : st == WORKTREE_REFUSED ? EXIT_USAGE : EXIT_RUNTIME;
}

/*
 * --baseline and --candidate resolved, without a side effect: the work
 * tree's top, each ref's commit, and where its worktree goes — beside
 * the top, in <top>-abev/<variant>, outside every work tree of the
 * repository. 0, EXIT_USAGE (one ref only, not in a work tree, an
 * unknown ref) or EXIT_RUNTIME.
 */
static int init_worktrees_plan(const struct init_args *i, struct init_worktrees *w)
{
	const char *refs[QUICK_STARTER_VARIANTS] = { i->baseline, i->candidate };
	static const char *const opts[QUICK_STARTER_VARIANTS] = { "--baseline", "--candidate" };
	int rc;

	if (!i->dotnet)
		return cli_usage_error("--baseline and --candidate are for --dotnet", cmd_init.usage);
	for (size_t k = 0; k < QUICK_STARTER_VARIANTS; k++)
		if (!refs[k])
			return cli_usage_error(k ? "--baseline needs --candidate REF: the ref of the new "
					       "build" : "--candidate needs --baseline REF: the ref of "
					       "the old build", cmd_init.usage);
	if (proc_setup() < 0)
		return EXIT_RUNTIME;
	rc = worktree_exit(worktree_top(".", &w->top));
	for (size_t k = 0; !rc && k < QUICK_STARTER_VARIANTS; k++) {
		rc = worktree_exit(worktree_commit(w->top, opts[k], refs[k], &w->commit[k]));
		if (rc)
			break;
		w->dir[k] = xasprintf("%s-abev/%s", w->top, quick_starter_names[k]);
		w->co[k] = (struct quick_checkout){ w->dir[k], refs[k], w->commit[k] };
	}
	return rc;
}

/*
 * The worktrees of w made (or reused), once the test project is known to
 * be in both commits and neither directory is taken, so that a refusal
 * makes nothing; each said on stderr, with how to remove them. 0,
 * EXIT_USAGE (the project is not in a commit, a directory is taken) or
 * EXIT_RUNTIME.
 */
static int init_worktrees_make(struct init_worktrees *w, const char *project)
{
	struct strbuf remove = STRBUF_INIT;
	int there[QUICK_STARTER_VARIANTS] = { 0 };
	int rc = 0;

	for (size_t k = 0; !rc && k < QUICK_STARTER_VARIANTS; k++)
		rc = worktree_exit(worktree_has_dir(w->top, w->commit[k], project));
	for (size_t k = 0; !rc && k < QUICK_STARTER_VARIANTS; k++)
		rc = worktree_exit(worktree_check(w->top, w->dir[k], w->commit[k], &there[k]));
	for (size_t k = 0; !rc && k < QUICK_STARTER_VARIANTS; k++) {
		char *shown;

		if (!there[k]) {
			rc = worktree_exit(worktree_add(w->top, w->dir[k], w->commit[k]));
			if (rc)
				break;
			w->made[k] = 1;
		}
		shown = xstrdup_escaped(w->dir[k]);
		fprintf(stderr, "abev: %s git worktree %s at %.12s for %s\n",
			w->made[k] ? "made" : "reused", shown, w->commit[k], quick_starter_names[k]);
		free(shown);
	}
	/* Both once they are the plan's; after a refusal, those made on the way. */
	for (size_t k = 0; k < QUICK_STARTER_VARIANTS; k++) {
		if (rc && !w->made[k])
			continue;
		strbuf_addf(&remove, "%sgit -C ", remove.len ? " && " : "");
		strbuf_add_sh(&remove, w->top);
		strbuf_adds(&remove, " worktree remove ");
		strbuf_add_sh(&remove, w->dir[k]);
	}
	if (remove.len) {
		char *shown = xstrdup_escaped(remove.buf);
		fprintf(stderr, "abev: to remove %s: %s\n", rc ? "what was made" : "them", shown);
		free(shown);
	}
	strbuf_release(&remove);
	return rc;
}

/*
 * The test project at dir (--project DIR as found from here, or in the
 * candidate's worktree; NULL: none to read): its project file names the
 * assembly, and how dotnet test runs it decides how the plan asks for a
 * TRX. A directory that is not here (the usual case without worktrees:
 * the plan's cwds are other checkouts) leaves the defaults, with a note.
 * 0, or EXIT_USAGE.
 */
static int init_dotnet_project(struct quick_spec *spec, const char *dir,
			       struct dotnet_project *p)
{
	struct stat sb;
	char *err = NULL;

	if (!dir)
		return 0;
	if (stat(dir, &sb) < 0) {
		char *shown = xstrdup_escaped(dir);
		warning("'%s' is not here: the plan assumes VSTest's dotnet test and the assembly "
			"'%s.dll' (run abev init from the repository's top to have them read)",
			shown, strrchr(shown, '/') ? strrchr(shown, '/') + 1 : shown);
		free(shown);
		return 0;
	}
	if (dotnet_project_inspect(dir, p, &err) < 0) {
		dotnet_project_release(p);
		cli_usage_error(err, cmd_init.usage);
		free(err);
		return EXIT_USAGE;
	}
	spec->net.assembly = p->assembly;
	spec->net.runner = p->runner;
	if (p->runner == DOTNET_RUNNER_MTP_BRIDGE)
		warning("the project runs its tests on Microsoft.Testing.Platform but no global.json "
			"says so: the runs pass --report-trx after '--' (SDK 8 and 9); the .NET 10 SDK "
			"runs such a project only with a global.json holding \"test\": {\"runner\": "
			"\"Microsoft.Testing.Platform\"}, which abev init then reads");
	return 0;
}

static int init_write(void *opts, size_t n, char **operands)
{
	struct init_args *i = opts;
	struct quick_spec *spec = &i->q.spec;
	const char *out = i->out;
	int from_bench = i->from_bench, dotnet = i->dotnet, rc;
	struct plan plan = PLAN_INIT;
	struct dotnet_project project = DOTNET_PROJECT_INIT;
	struct init_worktrees wt = INIT_WORKTREES_INIT;
	struct stat sb;
	char *cwd = NULL, *text = NULL, *found = NULL;

	rc = cli_run_quick_check(&i->q, n, operands, cmd_init.usage);
	if (rc)
		return rc;
	if (n && !from_bench)
		return cli_usage_error("commands are given after --from-bench", cmd_init.usage);
	if (from_bench && !n)
		return cli_usage_error("--from-bench needs the commands to compare", cmd_init.usage);
	if (dotnet && from_bench)
		return cli_usage_error("--dotnet writes a starter of its own: not with --from-bench",
				       cmd_init.usage);
	if (!*out)
		return cli_usage_error("'--out' is empty", cmd_init.usage);
	if (lstat(out, &sb) == 0)
		return cli_usage_error("the plan file already exists and abev init never overwrites "
				       "one: choose another --out", cmd_init.usage);
	if (outpath_check_evidence("--out", out) < 0)
		return EXIT_USAGE;
	spec->starter = 1;
	spec->dotnet = dotnet;
	spec->net.project = i->project;
	spec->net.packages = i->packages.v;
	spec->net.npackages = i->packages.n;
	if (i->baseline || i->candidate) {
		const char *dir = spec->net.project ? spec->net.project : QUICK_DOTNET_PROJECT;

		/* Everything the plan says checked before a worktree is made. */
		rc = init_worktrees_plan(i, &wt);
		if (!rc) {
			spec->net.checkouts = wt.co;
			rc = cli_run_quick_plan_load(spec, out, &text, &plan, NULL, cmd_init.usage);
			plan_release(&plan);
			free(text);
			text = NULL;
		}
		if (!rc)
			rc = init_worktrees_make(&wt, dir);
		/* The candidate's project decides the assembly and how dotnet test runs it. */
		if (!rc)
			found = path_join(wt.dir[QUICK_STARTER_VARIANTS - 1], dir);
	} else {
		found = spec->net.project ? xstrdup(spec->net.project) : NULL;
	}
	if (!rc && dotnet)
		rc = init_dotnet_project(spec, found, &project);
	if (rc)
		goto out;
	spec->cwd = ".";
	/* Commands run where abev init ran: said absolutely when the plan lives elsewhere. */
	if (n && strchr(out, '/')) {
		cwd = getcwd(NULL, 0);
		if (!cwd) {
			error("cannot tell the current directory: %s", strerror(errno));
			rc = EXIT_RUNTIME;
			goto out;
		}
		spec->cwd = cwd;
	}
	rc = cli_run_quick_plan_load(spec, out, &text, &plan, NULL, cmd_init.usage);
	if (!rc && write_file_new(out, 0644, text, strlen(text)) < 0)
		rc = EXIT_RUNTIME;
	if (!rc) {
		struct strbuf quoted = STRBUF_INIT;
		char *shown = xstrdup_escaped(out);
		strbuf_add_sh(&quoted, out);
		printf("plan: %s\ncheck it: abev run %s --dry-run\nrun it:   abev run %s --out DIR "
		       "--unsigned\n", shown, quoted.buf, quoted.buf);
		if (spec->net.checkouts)
			fputs("abev: note: each variant's setup builds its worktree when the run "
			      "starts; until then a dry run finds no assemblies to hash\n", stderr);
		strbuf_release(&quoted);
		free(shown);
	}
out:
	plan_release(&plan);
	dotnet_project_release(&project);
	init_worktrees_release(&wt);
	free(text);
	free(cwd);
	free(found);
	return rc;
}

static const struct cli_option init_options[] = {
	{ CLI_STRING('o', "out", struct init_args, out, "FILE",
		     "the plan file to write (default plan.json); an existing file is never "
		     "overwritten"),
	  .complete = CLI_COMPLETE_FILES("*.json") },
	{ CLI_FLAG(0, "dotnet", struct init_args, dotnet,
		   "a starter plan for `dotnet test` of a test project (see above)") },
	{ CLI_STRING(0, "project", struct init_args, project, "DIR",
		     "with --dotnet: the test project's directory, relative to the repository's "
		     "top (default " QUICK_DOTNET_PROJECT "); its last part names the assembly "
		     "hashed"),
	  .complete = CLI_COMPLETE_DIRS },
	{ CLI_STRINGS(0, "package", struct init_args, packages, "NAME", QUICK_MAX_PACKAGES,
		      "with --dotnet: a NuGet package compared (the one upgraded): its resolved "
		      "version is recorded beside the project's direct dependencies, and its "
		      "NAME.dll hashed beside the test assembly; repeatable") },
	{ CLI_STRING(0, "baseline", struct init_args, baseline, "REF",
		     "with --dotnet and --candidate: the git ref (branch, tag, commit) of the old "
		     "build, checked out by abev init as a detached git worktree of its own beside "
		     "the repository's top (TOP-abev/baseline), so that each build has its own "
		     "bin/ and obj/; run inside the repository") },
	{ CLI_STRING(0, "candidate", struct init_args, candidate, "REF",
		     "with --dotnet and --baseline: the git ref of the new build, checked out in "
		     "TOP-abev/candidate") },
	{ CLI_FLAG(0, "from-bench", struct init_args, from_bench,
		   "the variants are the commands given as operands, made as 'abev bench' "
		   "makes them with the options below") },
	QUICK_OPTIONS(struct init_args, q.),
	{ CLI_END() },
};

static const struct init_args init_defaults = {
	.q = { .spec = QUICK_SPEC_INIT },
	.out = EVIDENCE_PLAN_FILE,
};

/* abev init, and what its scan made released. */
static int init_main(void *opts, size_t n, char **operands)
{
	int rc = init_write(opts, n, operands);

	quick_scan_release(&((struct init_args *)opts)->q.scanned);
	return rc;
}

const struct cli_command cmd_init = {
	.name = "init",
	.summary = "write a starter plan",
	.usage = init_usage,
	.about = init_about,
	.tail = init_tail,
	.options = init_options,
	.operands = "COMMAND",
	.max_operands = CLI_MANY,
	.opts_size = sizeof(struct init_args),
	.defaults = &init_defaults,
	.fn = init_main,
};
