/*
 * dotnet_hook: where abev's .NET startup hook (dotnet-hook/, built by make
 * where dotnet is on PATH) is, and how a run's environment loads it: its
 * path added to DOTNET_STARTUP_HOOKS, after any hook the user set there.
 * The hook writes each .NET process's runtime figures into ABEV_RUN_DIR
 * at exit; reading them is results/dotnet_runtime.c's, recording the
 * hook in metadata.json host/metadata.c's.
 */
#ifndef ABEV_DOTNET_HOOK_H
#define ABEV_DOTNET_HOOK_H

struct env_array;

/* The variable that names the hook's assembly when it is not where make put it. */
#define DOTNET_HOOK_ENV "ABEV_DOTNET_HOOK"
#define DOTNET_HOOK_DLL "AbevStartupHook.dll"
/* The runtime's list of startup hooks, ':'-separated on Linux. */
#define DOTNET_STARTUP_HOOKS "DOTNET_STARTUP_HOOKS"

/*
 * The hook's assembly, an absolute path to a regular file: $ABEV_DOTNET_HOOK
 * when set (and then only that), else build/dotnet-hook/AbevStartupHook.dll
 * beside the abev binary (a build tree), else ../lib/abev/AbevStartupHook.dll
 * from the binary's folder (make install). 0 with *path (caller frees), or
 * -1 with *why (caller frees) saying where it looked.
 */
int dotnet_hook_find(char **path, char **why);

/*
 * Adds path to DOTNET_STARTUP_HOOKS in e: after the value already there
 * (the user's own hooks keep their place and run first), else as the
 * whole value. Nothing when the list already ends with path.
 */
void dotnet_hook_env(struct env_array *e, const char *path);

#endif
