/*
 * envname: the tables. Secret names are matched by substring, since
 * CI systems name secrets freely (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
 * NPM_AUTH, ABEV_SIGNING_KEY); a false positive costs only a readable
 * value (SESSIONS_COUNT, KEYBOARD_LAYOUT and AUTHOR are hashed too).
 * A credential also travels under names that say nothing — http_proxy's
 * URL, a DB variable's connection string, a JWT in any variable — so
 * values are looked at as well. Runtime names are exact or prefixes
 * ending in '*'.
 */
#include "evidence/envname.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const secret_words[] = {
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CRED", "PRIVATE",
	"AUTH", "JWT", "COOKIE", "SESSION", "SIGNATURE", "WEBHOOK", "BEARER", "SALT", "HMAC",
};

/*
 * Short words that name a secret only as a whole part of the name
 * (MYSQL_PWD, LDAP_BIND_PW, SMTP_PASS; not PASSTHROUGH, SPW_LEVEL): parts
 * are split at '_', '-' and '.'. The name PWD alone is the working
 * directory, not a password.
 */
static const char *const secret_parts[] = { "PWD", "PW", "PASS", "DSN", "SAS" };

/*
 * A value's secret keys, "key=value" as a word of its own (not OLDPWD=):
 * a connection string's password (ADO.NET, ODBC, JDBC, libpq), Azure's
 * account and shared access keys and signature, and the usual names of a
 * key or token given as a query parameter or a pair.
 */
static const char *const password_keys[] = {
	"password", "pwd", "passwd", "pass", "accountkey", "sharedaccesskey",
	"sharedaccesssignature", "sig", "key", "apikey", "api_key", "secret", "client_secret",
	"token", "access_token", "auth", "authorization",
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

/* Whether word is one of name's parts, split at '_', '-' and '.', ignoring case. */
static int has_part(const char *name, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = name; *s; s++) {
		if (s > name && !strchr("_-.", s[-1]))
			continue;
		if (!strncasecmp(s, word, n) && (!s[n] || strchr("_-.", s[n])))
			return 1;
	}
	return 0;
}

int envname_secret(const char *name)
{
	for (size_t i = 0; i < sizeof(secret_words) / sizeof(*secret_words); i++)
		if (contains_nocase(name, secret_words[i]))
			return 1;
	if (!strcmp(name, "PWD"))
		return 0;
	for (size_t i = 0; i < sizeof(secret_parts) / sizeof(*secret_parts); i++)
		if (has_part(name, secret_parts[i]))
			return 1;
	return 0;
}

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int is_b64url(char c)
{
	return is_alnum(c) || c == '-' || c == '_';
}

/*
 * A URL whose authority names a user: an '@' after "scheme://" and before
 * the path. A user alone counts too: a token is often given as the user
 * (https://TOKEN@github.com).
 */
static int has_url_user(const char *value)
{
	for (const char *p = strstr(value, "://"); p; p = strstr(p + 3, "://")) {
		if (p == value || !(is_alnum(p[-1]) || strchr("+-.", p[-1])))
			continue;
		for (const char *q = p + 3; *q && !strchr("/?#,;\"' \t\r\n", *q); q++)
			if (*q == '@' && q > p + 3)
				return 1;
	}
	return 0;
}

/* "Password=" and the like, as a word of its own (not OLDPWD=), spaces allowed before '='. */
static int has_password_key(const char *value)
{
	for (const char *s = value; *s; s++) {
		if (s > value && (is_alnum(s[-1]) || s[-1] == '_'))
			continue;
		for (size_t k = 0; k < sizeof(password_keys) / sizeof(*password_keys); k++) {
			size_t n = strlen(password_keys[k]);
			const char *t = s + n;
			if (strncasecmp(s, password_keys[k], n))
				continue;
			while (*t == ' ' || *t == '\t')
				t++;
			if (*t == '=')
				return 1;
		}
	}
	return 0;
}

static size_t b64url_span(const char *s)
{
	size_t n = 0;

	while (is_b64url(s[n]))
		n++;
	return n;
}

/* header.payload.signature, base64url, the header JSON ("eyJ" is '{"'); the signature may be empty. */
static int has_jwt(const char *value)
{
	for (const char *p = strstr(value, "eyJ"); p; p = strstr(p + 1, "eyJ")) {
		const char *q = p + b64url_span(p);
		size_t n;
		if ((p > value && is_b64url(p[-1])) || *q != '.')
			continue;
		n = b64url_span(q + 1);
		if (n && q[1 + n] == '.')
			return 1;
	}
	return 0;
}

/*
 * A URL whose path carries a token, as webhooks do
 * (https://hooks.slack.com/services/T0/B0/XXXXXXXX): a segment of at least
 * 20 base64url characters holding letters and digits, or upper and lower
 * case letters with no separator. A commit hash or a long CamelCase name in
 * a URL is hashed too: a false positive costs a readable value, no more.
 */
static int has_url_token(const char *value)
{
	for (const char *p = strstr(value, "://"); p; p = strstr(p + 3, "://")) {
		const char *q = p + 3;

		q += strcspn(q, "/?# \t\r\n\"',;");
		while (*q == '/') {
			size_t n = b64url_span(++q);
			int upper = 0, lower = 0, digits = 0, separated = 0;

			for (size_t i = 0; i < n; i++) {
				upper |= q[i] >= 'A' && q[i] <= 'Z';
				lower |= q[i] >= 'a' && q[i] <= 'z';
				digits |= q[i] >= '0' && q[i] <= '9';
				separated |= q[i] == '-' || q[i] == '_';
			}
			if (n >= 20 && (((upper || lower) && digits) || (upper && lower && !separated)))
				return 1;
			q += n;
			q += strcspn(q, "/?# \t\r\n\"',;");
		}
	}
	return 0;
}

int envname_secret_value(const char *value)
{
	return has_url_user(value) || has_password_key(value) || has_jwt(value) ||
	       has_url_token(value);
}

int envname_secret_var(const char *name, const char *value)
{
	return envname_secret(name) || envname_secret_value(value);
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
