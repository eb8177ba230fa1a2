/*
 * envnames: the two tables. Secret names are matched by substring, since
 * CI systems name secrets freely (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
 * NPM_AUTH, ABEV_SIGNING_KEY); a false positive costs only a readable
 * value. Runtime names are exact or prefixes ending in '*'.
 */
#include "util/envnames.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const secret_words[] = {
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE",
	"AUTH",
};

/* Variables that change a runtime's JIT, GC, threads, allocator or loader. */
static const char *const runtime_names[] = {
	"NODE_OPTIONS", "NODE_*", "UV_THREADPOOL_SIZE",
	"DOTNET_*", "COMPlus_*", "CORECLR_*",
	"PYTHON*",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTS",
	"GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GODEBUG",
	"LD_*", "MALLOC_*", "GLIBC_TUNABLES",
	"OMP_*", "MKL_*", "OPENBLAS_*",
	"RUBYOPT", "RUBY_*", "PERL5OPT",
};

static int contains_nocase(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; *s; s++)
		if (!strncasecmp(s, word, n))
			return 1;
	return 0;
}

int envname_secret(const char *name)
{
	for (size_t i = 0; i < sizeof(secret_words) / sizeof(*secret_words); i++)
		if (contains_nocase(name, secret_words[i]))
			return 1;
	return 0;
}

int envname_runtime(const char *name)
{
	for (size_t i = 0; i < sizeof(runtime_names) / sizeof(*runtime_names); i++) {
		const char *p = runtime_names[i];
		size_t n = strlen(p);
		if (p[n - 1] == '*' ? !strncmp(name, p, n - 1) : !strcmp(name, p))
			return 1;
	}
	return 0;
}

const char *envname_runtime_list(void)
{
	static char list[512];

	if (!list[0])
		for (size_t i = 0; i < sizeof(runtime_names) / sizeof(*runtime_names); i++) {
			size_t len = strlen(list);
			snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
				 runtime_names[i]);
		}
	return list;
}
