/*
 * signkey: the checks a key file gets before libcrypto sees it. A mistake
 * with keys should read as a sentence about the file — "k.pub is a public
 * key" — and not as a libcrypto error string, so the file's head is looked
 * at first: a PEM public key or a signify file is named for what it is.
 * Only then is the mode judged, so that a public key (usually 0644) is not
 * sent to chmod. The mode rule is ssh's: a private key the group or others
 * can read is not a secret any more.
 */
#include "seal/signkey.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/number.h"
#include "util/quote.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/usage.h"

/* Enough of a key file to tell what it is. */
#define SIGNKEY_HEAD_MAX 4096
#define SIGNIFY_HEAD "untrusted comment: "

const char *signkey_path(const char *option, const char *fd_option, enum signkey_source *src)
{
	const char *env = getenv(SIGNKEY_ENV);

	if (option) {
		*src = SIGNKEY_OPTION;
		return option;
	}
	if (fd_option) {
		*src = SIGNKEY_FD;
		return fd_option;
	}
	if (env && *env) {
		*src = SIGNKEY_ENVIRONMENT;
		return env;
	}
	*src = SIGNKEY_NONE;
	return NULL;
}

const char *signkey_source_name(enum signkey_source src)
{
	switch (src) {
	case SIGNKEY_OPTION: return "option";
	case SIGNKEY_ENVIRONMENT: return "environment";
	case SIGNKEY_FD: return "fd";
	case SIGNKEY_NONE: break;
	}
	return NULL;
}

int signkey_fd_parse(const char *text, int *fd)
{
	int64_t n;

	if (parse_int64(text, &n) < 0 || n < 0 || n > INT_MAX || n == 1 || n == 2)
		return error("'--key-fd' takes an open descriptor's number, 0 or 3 and up (1 and "
			     "2 are abev's output), not '%s'", text);
	*fd = (int)n;
	return 0;
}

static const char *source_label(enum signkey_source src)
{
	return src == SIGNKEY_ENVIRONMENT ? SIGNKEY_ENV : src == SIGNKEY_FD ? "--key-fd" : "--key";
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

/* "k.pub is a public key; --key needs the private key (k.key)". */
static int public_key_error(const char *path, enum signkey_source src)
{
	const char *suffix = ends_with(path, ".pub.pem") ? ".pub.pem"
			     : ends_with(path, ".pub")   ? ".pub"
							 : NULL;

	if (suffix)
		return error("%s is a public key; %s needs the private key (%.*s.key)", path,
			     source_label(src), (int)(strlen(path) - strlen(suffix)), path);
	return error("%s is a public key; %s needs the private key ('abev keygen' wrote it as "
		     "PREFIX.key beside PREFIX.pub)", path, source_label(src));
}

/*
 * What the head of the file (NUL-terminated) says it is: 0 when it may be a private key,
 * -1 after error() when it is a public key or a signify file.
 */
static int judge_head(const char *path, enum signkey_source src, const char *head, size_t len)
{
	struct signify_pub pub;
	char *err = NULL;
	int is_pub;

	if (strstr(head, "-----BEGIN PUBLIC KEY-----"))
		return public_key_error(path, src);
	if (len < sizeof(SIGNIFY_HEAD) - 1 || memcmp(head, SIGNIFY_HEAD, sizeof(SIGNIFY_HEAD) - 1))
		return 0;
	is_pub = signify_pub_read(path, &pub, &err) == 0;
	free(err);
	if (is_pub)
		return public_key_error(path, src);
	return error("%s is a signify file, not a key abev signs with; %s needs the PKCS#8 PEM "
		     "private key that 'abev keygen' writes (PREFIX.key)", path, source_label(src));
}

/* The mode rule: 0, or -1 after error() when the group or others may read the key. */
static int judge_mode(const char *path, mode_t mode, int insecure_mode)
{
	struct strbuf cmd = STRBUF_INIT;
	const char *who = (mode & 007) ? ((mode & 070) ? "its group and others" : "others")
				       : "its group";

	if (!(mode & 077))
		return 0;
	if (insecure_mode) {
		warning("%s can be read by %s (mode %04o); used anyway (--insecure-key-mode)", path,
			who, (unsigned)(mode & 07777));
		return 0;
	}
	strbuf_adds(&cmd, "chmod 600 ");
	strbuf_add_sh(&cmd, path);
	error("%s can be read by %s (mode %04o): a private key must be readable by its owner "
	      "alone. Run: %s (or give --insecure-key-mode to use it anyway)", path, who,
	      (unsigned)(mode & 07777), cmd.buf);
	strbuf_release(&cmd);
	return -1;
}

/* Reads the head of the key file and judges it and its mode. 0 or -1 after error(). */
static int check_file(const char *path, enum signkey_source src, int insecure_mode)
{
	char head[SIGNKEY_HEAD_MAX + 1];
	struct stat st;
	ssize_t n;
	size_t len = 0;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return error("cannot open the signing key '%s' (%s): %s", path, source_label(src),
			     strerror(errno));
	if (fstat(fd, &st) < 0) {
		error("cannot stat '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		error("the signing key '%s' (%s) is not a regular file", path, source_label(src));
		goto out;
	}
	while (len < SIGNKEY_HEAD_MAX && (n = read(fd, head + len, SIGNKEY_HEAD_MAX - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error("cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		len += (size_t)n;
	}
	head[len] = '\0';
	if (judge_head(path, src, head, len) < 0 || judge_mode(path, st.st_mode, insecure_mode) < 0)
		goto out;
	ret = 0;
out:
	explicit_bzero(head, sizeof(head));
	close(fd);
	return ret;
}

int signkey_is_text(const char *value)
{
	return strchr(value, '\n') || strstr(value, "-----BEGIN") || strstr(value, "PRIVATE KEY") ||
	       !strncmp(value, SIGNIFY_HEAD, sizeof(SIGNIFY_HEAD) - 1);
}

/*
 * The key's text itself, as a CI secret holds it, from $ABEV_SIGNING_KEY
 * or --key-fd: judged like a file's head, parsed from memory, never shown.
 * NULL after error().
 */
static struct signify_key *load_text(const char *text, const char *what, const char *passphrase)
{
	if (strstr(text, "-----BEGIN PUBLIC KEY-----")) {
		error("%s is a public key (not shown); it needs the private key, the text of the "
		      "PREFIX.key that 'abev keygen' writes", what);
		return NULL;
	}
	if (!strncmp(text, SIGNIFY_HEAD, sizeof(SIGNIFY_HEAD) - 1)) {
		error("%s is a signify file (not shown), not a key abev signs with; it needs the "
		      "PKCS#8 PEM private key that 'abev keygen' writes (PREFIX.key)", what);
		return NULL;
	}
	return signify_key_parse(text, strlen(text), what, passphrase);
}

/*
 * The key's text from descriptor fd, read to its end, then closed. The
 * buffer is made large enough first that a key's few hundred bytes never
 * move it (a realloc would leave a copy behind), and is wiped once the
 * text is parsed.
 */
static struct signify_key *load_fd(const char *fd_text, const char *passphrase)
{
	struct strbuf sb = STRBUF_INIT;
	struct signify_key *key = NULL;
	char what[64];
	int fd;

	if (signkey_fd_parse(fd_text, &fd) < 0)
		return NULL;
	snprintf(what, sizeof(what), "the key text read from --key-fd %d", fd);
	strbuf_grow(&sb, SIGNKEY_TEXT_MAX + 1);
	if (read_fd_capped(&sb, fd, SIGNKEY_TEXT_MAX) < 0) {
		error("cannot read the key from --key-fd %d: %s", fd,
		      errno == EFBIG ? "more than 64 KiB, not a key" : strerror(errno));
		goto out;
	}
	if (!signkey_is_text(sb.buf)) {
		error("%s is not a key's text (not shown): --key-fd gives the PEM text of the "
		      "PREFIX.key that 'abev keygen' writes, not a path (a path goes to --key)", what);
		goto out;
	}
	key = load_text(sb.buf, what, passphrase);
out:
	/* Read once: no program abev starts may find the descriptor still open. */
	close(fd);
	explicit_bzero(sb.buf, sb.alloc);
	strbuf_release(&sb);
	return key;
}

struct signify_key *signkey_load(const char *path, enum signkey_source src, const char *passphrase,
				 int insecure_mode)
{
	if (src == SIGNKEY_FD)
		return load_fd(path, passphrase);
	if (signkey_is_text(path)) {
		if (src == SIGNKEY_ENVIRONMENT)
			return load_text(path, "the key text in " SIGNKEY_ENV, passphrase);
		error("--key names a key file, but was given text that looks like a key (not "
		      "shown): write it to a file readable by you alone and name that, or hand "
		      "the text over in " SIGNKEY_ENV);
		return NULL;
	}
	if (check_file(path, src, insecure_mode) < 0)
		return NULL;
	return signify_key_load(path, passphrase);
}

int signkey_passphrase(const char *file, const char *env, char **out)
{
	struct strbuf sb = STRBUF_INIT;

	*out = NULL;
	if (file && env)
		return error("give the passphrase once: --passphrase-file or --passphrase-env");
	if (env) {
		const char *v = getenv(env);
		if (!v)
			return error("environment variable '%s' (--passphrase-env) is not set", env);
		if (!*v)
			return error("the passphrase in '%s' (--passphrase-env) is empty: set it, or "
				     "give no passphrase option for an unencrypted key", env);
		if (strlen(v) > SIGNKEY_PASSPHRASE_MAX)
			return error("the passphrase in '%s' is longer than %d bytes", env,
				     SIGNKEY_PASSPHRASE_MAX);
		*out = xstrdup(v);
		return 0;
	}
	if (!file)
		return 0;
	if (read_file_capped(&sb, file, SIGNKEY_PASSPHRASE_MAX + 2) < 0)
		return -1;
	sb.buf[strcspn(sb.buf, "\r\n")] = '\0';
	*out = strbuf_detach(&sb, NULL);
	if (!**out) {
		signkey_passphrase_free(*out);
		*out = NULL;
		return error("the first line of the passphrase file '%s' (--passphrase-file) is "
			     "empty: write the passphrase there, or give no passphrase option for "
			     "an unencrypted key", file);
	}
	return 0;
}

void signkey_passphrase_free(char *p)
{
	if (!p)
		return;
	explicit_bzero(p, strlen(p));
	free(p);
}
