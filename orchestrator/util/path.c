/* path: joining names, and making the directories on the way. */
#include "util/path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/usage.h"

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n && dir[n - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int ret = 0;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			ret = error("cannot create directory '%s': %s", p, strerror(errno));
			goto out;
		}
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		ret = error("cannot create directory '%s': %s", p, strerror(errno));
out:
	free(p);
	return ret;
}
