/*
 * fuzz_seal: the readers of a sealed evidence directory's own files —
 * the SHA256 manifest (manifest_parse), the signify embedded signature
 * SHA256.sig (signify_signed_text, signify_check) and the signify public key
 * file (signify_pub_read). Each input is tried as each of them; an input that
 * starts with a public key file (its first two lines) also has the rest
 * checked as a signature against that key, and the message of a signature
 * whose layout or check passes is parsed as a manifest, as verify does.
 * Seeds made by make_seeds are a real key followed by a real signature,
 * so mutations start past the signature check.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "seal/seal.h"

static void parse_manifest(const char *text, size_t len)
{
	struct manifest m = { NULL, 0 };
	char *err = NULL;

	if (manifest_parse(text, len, &m, &err) == 0) {
		size_t tlen = 0;
		char *again = manifest_text(&m, &tlen);
		/* A manifest that parses is in the one canonical form, so it reads back as itself. */
		if (tlen != len || memcmp(again, text, len))
			abort();
		free(again);
	}
	free(err);
	manifest_release(&m);
}

/* The end of the second line of data, or NULL. */
static const uint8_t *after_two_lines(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	if (!nl)
		return NULL;
	nl = memchr(nl + 1, '\n', size - (size_t)(nl + 1 - data));
	return nl ? nl + 1 : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *msg = NULL;
	const uint8_t *rest;
	struct signify_pub pub;
	size_t msg_len = 0;
	char *err = NULL, *path;

	fuzz_quiet();
	parse_manifest(text, size);
	if (signify_signed_text(text, size, &msg, &msg_len, &err) == 0)
		parse_manifest(msg, msg_len);
	free(err);
	err = NULL;

	path = fuzz_write("key.pub", data, size);
	if (signify_pub_read(path, &pub, &err) == 0 &&
	    signify_check(&pub, text, size, &msg, &msg_len, &err) == 0)
		abort(); /* one file cannot be both a key and a signature */
	free(err);
	err = NULL;
	free(path);

	rest = after_two_lines(data, size);
	if (!rest)
		return 0;
	path = fuzz_write("key.pub", data, (size_t)(rest - data));
	if (signify_pub_read(path, &pub, &err) == 0) {
		free(err);
		err = NULL;
		if (signify_check(&pub, (const char *)rest, size - (size_t)(rest - data), &msg, &msg_len,
				  &err) == 0)
			parse_manifest(msg, msg_len);
	}
	free(err);
	free(path);
	return 0;
}
