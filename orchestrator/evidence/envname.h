/*
 * envname: which environment variables abev treats specially when it
 * records an environment — variables that look secret by name or by
 * value, whose values are recorded only as their SHA-256, and names known
 * to change how a runtime behaves (NODE_OPTIONS, DOTNET_*, ...), which the
 * report lists per variant and compare warns about. One table each; no I/O.
 */
#ifndef ABEV_ENVNAME_H
#define ABEV_ENVNAME_H

/*
 * 1 when name looks secret: it contains KEY, TOKEN, SECRET, PASSWORD,
 * PASSWD, PASSPHRASE, CRED, PRIVATE, AUTH, JWT, COOKIE, SESSION,
 * SIGNATURE, WEBHOOK, BEARER, SALT or HMAC, or has PWD, PW, PASS, DSN or
 * SAS as a whole part (split at '_', '-', '.'; not PWD alone), ignoring case.
 */
int envname_secret(const char *name);
/*
 * 1 when value holds a credential whatever its variable's name: a URL
 * naming a user ("scheme://user:pass@host", "scheme://TOKEN@host"), a URL
 * whose path carries a token (a webhook), a secret's key and '='
 * ("Password=", "AccountKey=", "sig=", "token=", ... : envname.c's table;
 * ignoring case and spaces before the '=', not inside a longer word) or a
 * JSON Web Token (three base64url parts, the first starting "eyJ").
 */
int envname_secret_value(const char *value);
/* 1 when the variable name=value is recorded only as the SHA-256 of value: either rule above. */
int envname_secret_var(const char *name, const char *value);
/* 1 when name is one known to change a runtime's behaviour (envname.c's table). */
int envname_runtime(const char *name);
/* The runtime table as one line for messages: "NODE_OPTIONS, DOTNET_*, ...". Static. */
const char *envname_runtime_list(void);

#endif
