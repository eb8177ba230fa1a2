/*
 * dotnet_project: reading a .NET test project for abev init --dotnet.
 * The project file is not evaluated as MSBuild would (imports,
 * conditions): a property set to true anywhere in it counts, which is
 * how test projects set these. global.json is searched, not parsed: the
 * string "Microsoft.Testing.Platform" appears in it only as test.runner,
 * and dotnet accepts comments there that a JSON parser would refuse.
 */
#include "plan/dotnet_project.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/escape.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"

/* Most directories looked at for global.json, dir included. */
#define GLOBAL_JSON_DEPTH 64
/* Room for a path quoted in a message. */
#define SHOW_PATH_MAX 160

/* The properties that put a project on MTP when set to true. */
static const char *const mtp_properties[] = {
	"EnableMSTestRunner",
	"UseMicrosoftTestingPlatformRunner",
	"TestingPlatformDotnetTestSupport",
};

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

/* The one project file of dir into *name (caller frees). 0 or -1 with *err. */
static int find_project_file(const char *dir, char **name, char **err)
{
	static const char *const exts[] = { ".csproj", ".fsproj", ".vbproj" };
	char shown[SHOW_PATH_MAX];
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t found = 0;

	*name = NULL;
	show_str(shown, sizeof(shown), dir);
	if (!d) {
		*err = xasprintf("cannot read the project directory '%s': %s", shown,
				 strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
			if (!has_suffix(e->d_name, exts[i]))
				continue;
			if (!found++)
				*name = xstrdup(e->d_name);
		}
	}
	closedir(d);
	if (found == 1)
		return 0;
	free(*name);
	*name = NULL;
	*err = found ? xasprintf("'%s' holds %zu project files: give --project the directory "
				 "of the test project alone", shown, found)
		     : xasprintf("'%s' holds no .csproj, .fsproj or .vbproj: give --project the "
				 "test project's directory", shown);
	return -1;
}

/* Whether text sets property to true: <P>true</P>, spaces and case aside. */
static int sets_true(const char *text, const char *property)
{
	size_t n = strlen(property);

	for (const char *p = text; (p = strchr(p, '<')); p++) {
		const char *v = p + 1;
		if (strncasecmp(v, property, n) || v[n] != '>')
			continue;
		v += n + 1;
		v += strspn(v, " \t\r\n");
		if (!strncasecmp(v, "true", 4) && (v[4] == '<' || strchr(" \t\r\n", v[4])))
			return 1;
	}
	return 0;
}

static int read_text(const char *path, struct strbuf *sb, char **err)
{
	enum read_small_result r = read_small(sb, path, DOTNET_PROJECT_FILE_MAX, READ_REGULAR);
	char shown[SHOW_PATH_MAX];

	if (r == READ_SMALL_OK)
		return 0;
	show_str(shown, sizeof(shown), path);
	*err = xasprintf("cannot read '%s': %s", shown,
			 read_small_why(r, errno, DOTNET_PROJECT_FILE_MAX));
	return -1;
}

/* The nearest global.json from dir up, and whether it names MTP as the test runner. */
static int global_json_mtp(const char *dir, char **found, char **err)
{
	char *d = realpath(dir, NULL);
	int ret = 0;

	*found = NULL;
	for (int depth = 0; d && depth < GLOBAL_JSON_DEPTH; depth++) {
		char *path = path_join(d, "global.json"), *slash;
		struct stat st;

		if (stat(path, &st) == 0) {
			struct strbuf sb = STRBUF_INIT;
			if (read_text(path, &sb, err) < 0) {
				ret = -1;
			} else if (strstr(sb.buf, "\"Microsoft.Testing.Platform\"")) {
				*found = path;
				path = NULL;
			}
			strbuf_release(&sb);
			free(path);
			break;
		}
		free(path);
		slash = strrchr(d, '/');
		if (!slash || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	return ret;
}

int dotnet_project_inspect(const char *dir, struct dotnet_project *p, char **err)
{
	struct strbuf text = STRBUF_INIT;
	char *file = NULL, *path = NULL;
	int ret = -1, mtp = 0;

	*err = NULL;
	if (find_project_file(dir, &file, err) < 0)
		goto out;
	p->assembly = xstrndup(file, (size_t)(strrchr(file, '.') - file));
	path = path_join(dir, file);
	if (read_text(path, &text, err) < 0)
		goto out;
	for (size_t i = 0; i < sizeof(mtp_properties) / sizeof(mtp_properties[0]); i++)
		mtp |= sets_true(text.buf, mtp_properties[i]);
	/* MSTest.Sdk runs its tests on MTP unless told otherwise. */
	mtp |= strstr(text.buf, "Sdk=\"MSTest.Sdk") != NULL;
	if (global_json_mtp(dir, &p->global_json, err) < 0)
		goto out;
	p->runner = p->global_json ? DOTNET_RUNNER_MTP
		    : mtp ? DOTNET_RUNNER_MTP_BRIDGE : DOTNET_RUNNER_VSTEST;
	ret = 0;
out:
	strbuf_release(&text);
	free(file);
	free(path);
	return ret;
}

void dotnet_project_release(struct dotnet_project *p)
{
	if (!p)
		return;
	free(p->assembly);
	free(p->global_json);
	p->assembly = NULL;
	p->global_json = NULL;
	p->runner = DOTNET_RUNNER_VSTEST;
}

