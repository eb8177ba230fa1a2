/*
 * dotnet_hook: finds abev's startup hook and adds it to a child's
 * environment (dotnet_hook.h). The runtime refuses a relative hook path,
 * and a hook it cannot load stops the process: only an absolute path to a
 * regular file is ever handed on.
 */
#include "run/dotnet_hook.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/env.h"
#include "util/path.h"
#include "util/strbuf.h"

/* Where make puts the hook, relative to the folder of the abev binary. */
static const char *const beside_binary[] = {
	"build/dotnet-hook/" DOTNET_HOOK_DLL,
	"../lib/abev/" DOTNET_HOOK_DLL,
};

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The folder of the running binary, or NULL. Caller frees. */
static char *binary_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return xstrdup(*buf ? buf : "/");
}

int dotnet_hook_find(char **path, char **why)
{
	const char *given = getenv(DOTNET_HOOK_ENV);
	struct strbuf looked = STRBUF_INIT;
	char *dir;

	*path = NULL;
	*why = NULL;
	if (given && *given) {
		struct stat st;
		if (given[0] != '/')
			*why = xasprintf("%s='%s' is not an absolute path (the .NET runtime takes "
					 "only absolute hook paths)", DOTNET_HOOK_ENV, given);
		else if (stat(given, &st) < 0)
			*why = xasprintf("%s='%s': %s", DOTNET_HOOK_ENV, given, strerror(errno));
		else if (!S_ISREG(st.st_mode))
			*why = xasprintf("%s='%s' is not a regular file", DOTNET_HOOK_ENV, given);
		else
			*path = xstrdup(given);
		return *path ? 0 : -1;
	}
	dir = binary_dir();
	for (size_t i = 0; dir && i < sizeof(beside_binary) / sizeof(beside_binary[0]); i++) {
		char *p = path_join(dir, beside_binary[i]);
		char *real = realpath(p, NULL);
		if (real && is_file(real)) {
			*path = real;
			free(p);
			break;
		}
		free(real);
		strbuf_addf(&looked, "%s'%s'", looked.len ? ", " : "", p);
		free(p);
	}
	if (!*path)
		*why = xasprintf("abev's .NET startup hook (%s) is not built: looked at %s; build it "
				 "with make where dotnet is on PATH, or set %s to its full path",
				 DOTNET_HOOK_DLL, looked.len ? looked.buf : "nothing (abev's own "
				 "path is unknown)", DOTNET_HOOK_ENV);
	free(dir);
	strbuf_release(&looked);
	return *path ? 0 : -1;
}

void dotnet_hook_env(struct env_array *e, const char *path)
{
	const char *old = env_get(e, DOTNET_STARTUP_HOOKS);
	size_t olen = old ? strlen(old) : 0, plen = strlen(path);
	char *value;

	if (old && olen >= plen && !strcmp(old + olen - plen, path) &&
	    (olen == plen || old[olen - plen - 1] == ':'))
		return;
	value = old && *old ? xasprintf("%s:%s", old, path) : xstrdup(path);
	env_set(e, DOTNET_STARTUP_HOOKS, value);
	free(value);
}
