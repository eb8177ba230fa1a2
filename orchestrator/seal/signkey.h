/*
 * signkey: where `abev run` gets its signing key, and whether the file may
 * be used. The key is named by --key, or its text is read from a file
 * descriptor (--key-fd N, as gpg's --passphrase-fd: a CI secret that never
 * stands in an environment), or, so that a CI secret needs no argument,
 * the ABEV_SIGNING_KEY environment variable names it (a path, or the key's
 * PEM text itself, as CI secrets hold it); in that order. Key text is
 * never printed. Before the key is loaded its file is checked: a public key
 * given in its place is named as such (with the private key's likely
 * name), and a private key that the group or others can read is refused,
 * as ssh refuses one, with the chmod to run. The passphrase comes from the
 * first line of a file or from an environment variable, never from argv,
 * and is never empty. Parsing the key and signing are seal.c's.
 */
#ifndef ABEV_SIGNKEY_H
#define ABEV_SIGNKEY_H

#include "seal/seal.h"

#define SIGNKEY_ENV "ABEV_SIGNING_KEY"
/* Longest passphrase read. */
#define SIGNKEY_PASSPHRASE_MAX 1024
/* Most key text read from --key-fd (a PEM key is about 250 bytes, encrypted about 400). */
#define SIGNKEY_TEXT_MAX 65536

enum signkey_source {
	SIGNKEY_NONE,          /* no key: the evidence is not signed */
	SIGNKEY_OPTION,        /* --key */
	SIGNKEY_ENVIRONMENT,   /* $ABEV_SIGNING_KEY */
	SIGNKEY_FD,            /* --key-fd N: the key's text, read from descriptor N */
};

/*
 * The key to sign with: option (--key) when given, else fd_option (the
 * text of --key-fd's number) when given, else $ABEV_SIGNING_KEY when set
 * and not empty, else NULL. *src says which (borrowed string).
 */
const char *signkey_path(const char *option, const char *fd_option, enum signkey_source *src);
/*
 * The descriptor --key-fd names: 0 or 3 and up (1 and 2 are abev's own
 * output). 0, or -1 after error().
 */
int signkey_fd_parse(const char *text, int *fd);
/* "option", "environment", "fd", or NULL for SIGNKEY_NONE: as the evidence records it. */
const char *signkey_source_name(enum signkey_source src);

/*
 * Checks the key file at path (from src, which names it in messages) and
 * loads it with passphrase (may be NULL); or, when path is key text
 * (signkey_is_text()) from the environment, loads the text; or, for
 * SIGNKEY_FD, reads the key's text from the descriptor path names to its
 * end (at most SIGNKEY_TEXT_MAX bytes), closes it and loads the text,
 * whose bytes are wiped once parsed. A public key, an unreadable or
 * undecodable file, and a file whose mode lets the group or others read
 * it (unless insecure_mode, which only warns) are refused. NULL after
 * error(); free with signify_key_free().
 */
struct signify_key *signkey_load(const char *path, enum signkey_source src, const char *passphrase,
				 int insecure_mode);
/*
 * Whether a value naming a key is the key's text rather than a path (a
 * newline, a PEM or signify header): such a value is never printed.
 * signkey_load() parses it from $ABEV_SIGNING_KEY and refuses it from --key.
 */
int signkey_is_text(const char *value);

/*
 * A key's passphrase: the first line of file, or the value of the
 * environment variable env; *out is NULL when neither is given. Giving
 * both, an unset variable, an empty passphrase (an empty first line or
 * an empty variable) and one over SIGNKEY_PASSPHRASE_MAX bytes are
 * errors. 0, or -1 after error(). Free with signkey_passphrase_free().
 */
int signkey_passphrase(const char *file, const char *env, char **out);
/* Wipes and frees a passphrase; NULL is fine. */
void signkey_passphrase_free(char *p);

#endif
