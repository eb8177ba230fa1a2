/*
 * envnames: which environment variables abev treats specially when it
 * records an environment — names that look secret, whose values are
 * recorded only as their SHA-256, and names known to change how a runtime
 * behaves (NODE_OPTIONS, DOTNET_*, ...), which the report lists per
 * variant and compare warns about. One table each; no I/O.
 */
#ifndef ABEV_ENVNAMES_H
#define ABEV_ENVNAMES_H

/*
 * 1 when name looks secret: it contains KEY, TOKEN, SECRET, PASSWORD,
 * PASSWD, PASSPHRASE, CREDENTIAL, PRIVATE or AUTH, ignoring case.
 */
int envname_secret(const char *name);
/* 1 when name is one known to change a runtime's behaviour (envnames.c's table). */
int envname_runtime(const char *name);
/* The runtime table as one line for messages: "NODE_OPTIONS, DOTNET_*, ...". Static. */
const char *envname_runtime_list(void);

#endif
