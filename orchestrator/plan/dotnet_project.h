/*
 * dotnet_project: what abev init --dotnet reads of a .NET test project
 * before it writes a plan — the project file's name (its assembly), and
 * how `dotnet test` runs it: through VSTest, or on Microsoft.Testing.Platform
 * (MTP), where `--logger trx` does not exist and the TRX comes from
 * `--report-trx`. It only reads files (bounded); it writes no plan
 * (quick.c does) and runs nothing.
 */
#ifndef ABEV_DOTNET_PROJECT_H
#define ABEV_DOTNET_PROJECT_H

/* How `dotnet test` runs the project, which decides how it is asked for a TRX. */
enum dotnet_runner {
	DOTNET_RUNNER_VSTEST = 0,  /* --logger trx;LogFileName=... */
	/* global.json's "test": {"runner": "Microsoft.Testing.Platform"} (.NET 10 SDK): MTP's
	   own options, given to dotnet test directly */
	DOTNET_RUNNER_MTP,
	/* the project opts into MTP (EnableMSTestRunner, UseMicrosoftTestingPlatformRunner,
	   TestingPlatformDotnetTestSupport, MSTest.Sdk) without that global.json: MTP's
	   options after `--`, as dotnet test of SDK 8 and 9 passes them on */
	DOTNET_RUNNER_MTP_BRIDGE,
};

/* Longest project file or global.json read. */
#define DOTNET_PROJECT_FILE_MAX (1u << 20)

struct dotnet_project {
	char *assembly;            /* the project file's name without its extension, or NULL */
	enum dotnet_runner runner;
	char *global_json;         /* the global.json that chose MTP, or NULL */
};

#define DOTNET_PROJECT_INIT { .assembly = NULL }

/*
 * Reads the one *.csproj, *.fsproj or *.vbproj of dir, and the nearest
 * global.json of dir or a directory above it (the one dotnet uses), into
 * p. 0, or -1 with *err (caller frees): dir is not a directory, holds no
 * project file or several, or a file cannot be read.
 */
int dotnet_project_inspect(const char *dir, struct dotnet_project *p, char **err);
void dotnet_project_release(struct dotnet_project *p);

#endif
