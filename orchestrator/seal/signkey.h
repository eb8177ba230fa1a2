/*
 * signkey: where `abev run` gets its signing key, and whether the file may
 * be used. The key is named by --key or, so that a CI secret needs no
 * argument, by the ABEV_SIGNING_KEY environment variable (a path, or the
 * key's PEM text itself, as CI secrets hold it); the option wins. Key text
 * is never printed. Before the key is loaded its file is checked: a public key
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

enum signkey_source {
	SIGNKEY_NONE,          /* no key: the evidence is not signed */
	SIGNKEY_OPTION,        /* --key */
	SIGNKEY_ENVIRONMENT,   /* $ABEV_SIGNING_KEY */
};

/*
 * The key to sign with: option when given, else $ABEV_SIGNING_KEY when set
 * and not empty, else NULL. *src says which (borrowed string).
 */
const char *signkey_path(const char *option, enum signkey_source *src);
/* "option", "environment", or NULL for SIGNKEY_NONE: as the evidence records it. */
const char *signkey_source_name(enum signkey_source src);

/*
 * Checks the key file at path (from src, which names it in messages) and
 * loads it with passphrase (may be NULL); or, when path is key text
 * (signkey_is_text()) from the environment, loads the text. A public key, an unreadable or
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
