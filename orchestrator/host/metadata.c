/*
 * metadata: pins down, once and before the first invocation, what is
 * compared and where, and writes it as metadata.json. This file assembles
 * the document: the host (host.c), per variant its git state and versions
 * output (versions.c) and the files its assemblies patterns match with
 * size and SHA-256 (assemblies.c). It measures nothing and reads no clock
 * of the day: collecting twice on an unchanged machine with unchanged
 * inputs gives the same bytes.
 *
 * Unknown host figures are null, never an error. What the plan asks for
 * (assemblies) must be found.
 */
#include "host/metadata.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "host/assemblies.h"
#include "evidence/envname.h"
#include "evidence/evidence_read.h"
#include "evidence/metadata_fields.h"
#include "util/hash.h"
#include "record/layout.h"
#include "host/host.h"
#include "util/json_out.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/env.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/usage.h"
#include "util/utf8.h"
#include "host/versions.h"
#include "run/dotnet_hook.h"

#ifndef ABEV_VERSION
#error "ABEV_VERSION must be defined (the Makefile does)"
#endif

struct md_variant {
	char *name;
	char *cwd;
	const struct plan_env *env;   /* borrowed from the plan, which outlives the metadata */
	size_t nenv;
	const struct plan_env *parameters; /* likewise */
	size_t nparameters;
	struct git_state git;
	struct version_record *versions;
	size_t nversions;
	struct assembly_pattern *patterns;
	size_t npatterns;
	/*
	 * A variant with a setup step has its assemblies matched after it
	 * (the setup may build them): after_setup, and matched once that
	 * was done (metadata_assemblies_after_setup()).
	 */
	int after_setup, matched;
	char **environ;               /* the environment its commands get (versions_env()) */
};

/* abev's .NET startup hook, when the plan sets dotnet_runtime. */
struct md_hook {
	char *path;                   /* absolute; NULL: no hook */
	uint64_t size;
	char sha256[SHA256_HEX_LEN + 1];
};

struct metadata {
	struct host_facts host;
	struct md_hook hook;
	char **environ;               /* abev's own, when metadata was collected */
	char *secret_name;            /* a variable whose value is hashed whatever its name */
	struct md_variant *variants;
	size_t nvariants;
};

int metadata_match_count(const char *cwd, const char *pattern, size_t *n, char **err)
{
	struct assembly_pattern mp;
	int ret;

	memset(&mp, 0, sizeof(mp));
	ret = assemblies_match(cwd, pattern, &mp, err);
	*n = mp.nfiles;
	assemblies_pattern_release(&mp);
	return ret;
}

/* ---- collect ---- */

static void variant_release(struct md_variant *mv)
{
	free(mv->name);
	free(mv->cwd);
	for (size_t i = 0; i < mv->nversions; i++)
		versions_release(&mv->versions[i]);
	free(mv->versions);
	for (size_t i = 0; i < mv->npatterns; i++)
		assemblies_pattern_release(&mv->patterns[i]);
	free(mv->patterns);
	strv_free(mv->environ);
	memset(mv, 0, sizeof(*mv));
}

/* env (taken over) with the hook added as run_slot.c adds it for a run. */
static char **hook_env(char **env, const char *path)
{
	struct env_array e = { env, 0, 0 };

	while (env && env[e.n])
		e.n++;
	e.alloc = e.n + 1;
	dotnet_hook_env(&e, path);
	return e.v;
}

/* Finds and hashes the startup hook that every run's .NET processes load. 0 or -1 after error(). */
static int hook_collect(struct md_hook *h)
{
	unsigned char d[SHA256_LEN];
	char *why = NULL;

	if (dotnet_hook_find(&h->path, &why) < 0) {
		error("dotnet_runtime: %s", why);
		free(why);
		return -1;
	}
	if (sha256_file(h->path, d, &h->size, &why) < 0) {
		error("dotnet_runtime: cannot hash '%s': %s", h->path, why);
		free(why);
		return -1;
	}
	sha256_hex(d, h->sha256);
	return 0;
}

/*
 * Variants from a variants file share the base's cwd: git is asked once
 * per directory, not once per variant. (versions are not shared: each
 * variant's environment differs, which is often the point.)
 */
static int variant_collect(const struct plan *plan, size_t vi, struct metadata *md)
{
	const struct plan_variant *v = &plan->variants[vi];
	struct md_variant *mv = &md->variants[vi];
	struct plan_vars vars = { NULL, v->name, NULL, 0 };
	char **envp = NULL;
	size_t same;
	int ret = -1;

	mv->name = xstrdup(v->name);
	mv->cwd = xstrdup(v->cwd);
	mv->environ = versions_env(v);
	if (md->hook.path)
		mv->environ = hook_env(mv->environ, md->hook.path);
	mv->env = v->env;
	mv->nenv = v->env_len;
	mv->parameters = v->parameters;
	mv->nparameters = v->parameters_len;
	for (same = 0; same < vi; same++)
		if (!strcmp(md->variants[same].cwd, v->cwd))
			break;
	if (same < vi)
		mv->git = md->variants[same].git;
	else if (versions_git_state(v->cwd, &mv->git) < 0)
		goto out;
	if (plan->nversions) {
		envp = versions_env(v);
		mv->versions = xcalloc(plan->nversions, sizeof(*mv->versions));
		for (size_t i = 0; i < plan->nversions; i++) {
			if (versions_run(&plan->versions[i], v, envp, &mv->versions[i]) < 0) {
				mv->nversions = i + 1;
				goto out;
			}
		}
		mv->nversions = plan->nversions;
	}
	mv->patterns = xcalloc(v->assemblies_len ? v->assemblies_len : 1, sizeof(*mv->patterns));
	mv->after_setup = v->setup_len && v->assemblies_len;
	for (size_t k = 0; k < v->assemblies_len && mv->after_setup; k++)
		mv->patterns[mv->npatterns++].pattern = xstrdup(v->assemblies[k]);
	for (size_t k = 0; k < v->assemblies_len && !mv->after_setup; k++) {
		struct assembly_pattern *mp = &mv->patterns[k];
		char *expanded = plan_expand(v->assemblies[k], &vars), *err = NULL;
		int r;
		mv->npatterns = k + 1;
		mp->pattern = xstrdup(v->assemblies[k]);
		if (!expanded) /* plan_load() refuses what plan_expand() would */
			goto out;
		r = assemblies_match(v->cwd, expanded, mp, &err);
		free(expanded);
		if (r < 0) {
			error("%s: variants[%zu].assemblies[%zu]: '%s': %s", plan->path, vi, k,
			      v->assemblies[k], err);
			free(err);
			goto out;
		}
		if (!mp->nfiles) {
			error("%s: variants[%zu].assemblies[%zu]: '%s' matches no file in '%s'",
			      plan->path, vi, k, v->assemblies[k], v->cwd);
			goto out;
		}
	}
	ret = 0;
out:
	strv_free(envp);
	return ret;
}


/*
 * Every file of every variant whose files are matched (all of them, or
 * those of want[v] != 0), hashed in one go (assemblies_hash()).
 */
static int hash_all(const struct plan *plan, struct metadata *md, const unsigned char *want)
{
	struct assembly_pattern **patterns = xcalloc(md->nvariants + 1, sizeof(*patterns));
	size_t *npatterns = xcalloc(md->nvariants + 1, sizeof(*npatterns));
	int ret;

	for (size_t v = 0; v < md->nvariants; v++) {
		const struct md_variant *mv = &md->variants[v];
		if (want ? !want[v] : mv->after_setup)
			continue;
		patterns[v] = mv->patterns;
		npatterns[v] = mv->npatterns;
	}
	ret = assemblies_hash(plan->path, patterns, npatterns, md->nvariants);
	free(patterns);
	free(npatterns);
	return ret;
}

struct metadata *metadata_collect(const struct plan *plan, const char *host_label,
				  const char *secret_name)
{
	struct metadata *md = xcalloc(1, sizeof(*md));
	struct env_array env = ENV_ARRAY_INIT;

	host_collect(&md->host, host_label);
	env_own(&env);
	md->environ = env.v;
	md->secret_name = secret_name ? xstrdup(secret_name) : NULL;
	if (plan->dotnet_runtime && hook_collect(&md->hook) < 0)
		goto fail;
	md->variants = xcalloc(plan->nvariants ? plan->nvariants : 1, sizeof(*md->variants));
	for (size_t i = 0; i < plan->nvariants; i++) {
		md->nvariants = i + 1;
		if (variant_collect(plan, i, md) < 0)
			goto fail;
	}
	if (hash_all(plan, md, NULL) < 0)
		goto fail;
	return md;
fail:
	metadata_free(md);
	return NULL;
}

int metadata_assemblies_after_setup(struct metadata *md, const struct plan *plan,
				    const unsigned char *set_up, char **why)
{
	unsigned char *want = xcalloc(md->nvariants + 1, 1);
	int n = 0, ret = -1;

	*why = NULL;
	for (size_t vi = 0; vi < md->nvariants; vi++) {
		struct md_variant *mv = &md->variants[vi];
		const struct plan_variant *v = &plan->variants[vi];
		struct plan_vars vars = { NULL, v->name, NULL, 0 };

		if (!mv->after_setup || mv->matched || !set_up[vi])
			continue;
		for (size_t k = 0; k < mv->npatterns; k++) {
			char *expanded = plan_expand(v->assemblies[k], &vars), *err = NULL;
			int r = expanded ? assemblies_match(v->cwd, expanded, &mv->patterns[k], &err)
					 : -1;
			free(expanded);
			if (r < 0 || !mv->patterns[k].nfiles) {
				*why = xasprintf("variants[%zu].assemblies[%zu] '%s' %s in '%s' after "
						 "the setup of '%s'", vi, k, v->assemblies[k],
						 err ? err : "matches no file", v->cwd, v->name);
				free(err);
				goto out;
			}
		}
		want[vi] = 1;
		n++;
	}
	if (n && hash_all(plan, md, want) < 0) {
		*why = xstrdup("the assemblies matched after setup could not be hashed");
		goto out;
	}
	for (size_t vi = 0; vi < md->nvariants; vi++)
		md->variants[vi].matched |= want[vi];
	ret = n;
out:
	/* What was matched but not hashed is dropped: metadata.json says not_matched. */
	for (size_t vi = 0; ret < 0 && vi < md->nvariants; vi++) {
		struct md_variant *mv = &md->variants[vi];
		for (size_t k = 0; mv->after_setup && !mv->matched && k < mv->npatterns; k++) {
			char *pattern = mv->patterns[k].pattern;
			mv->patterns[k].pattern = NULL;
			assemblies_pattern_release(&mv->patterns[k]);
			mv->patterns[k].pattern = pattern;
		}
	}
	free(want);
	return ret;
}

int metadata_assemblies_pending(const struct metadata *md)
{
	for (size_t vi = 0; vi < md->nvariants; vi++)
		if (md->variants[vi].after_setup && !md->variants[vi].matched)
			return 1;
	return 0;
}

void metadata_free(struct metadata *md)
{
	if (!md)
		return;
	metadata_fields_release(&md->host);
	free(md->hook.path);
	for (size_t i = 0; i < md->nvariants; i++)
		variant_release(&md->variants[i]);
	free(md->variants);
	strv_free(md->environ);
	free(md->secret_name);
	free(md);
}

/* ---- JSON ---- */

/* Outside text: cleaned to UTF-8 here, whatever its origin. NULL is null. */
static void jadd_text(cJSON *obj, const char *key, const char *s)
{
	char *c = s ? utf8_clean(s, strlen(s)) : NULL;
	jadd_str(obj, key, c);
	free(c);
}

static cJSON *versions_json(const struct md_variant *v)
{
	cJSON *vers = jnew_object();

	for (size_t i = 0; i < v->nversions; i++) {
		const struct version_record *mv = &v->versions[i];
		cJSON *e = jnew_object(), *argv = jnew_array();
		for (size_t a = 0; a < mv->argc; a++) {
			char *c = utf8_clean(mv->argv[a], strlen(mv->argv[a]));
			jpush(argv, cJSON_CreateString(c));
			free(c);
		}
		jadd(e, "argv", argv);
		jadd_int_or_null(e, "exit_code", mv->exit_code, mv->exit_code >= 0);
		jadd_text(e, "output", mv->output ? mv->output : "");
		jadd_text(e, "error", mv->error);
		jadd(vers, mv->name, e);
	}
	return vers;
}

static cJSON *assemblies_json(const struct md_variant *v)
{
	cJSON *arr = jnew_array();

	for (size_t k = 0; k < v->npatterns; k++) {
		const struct assembly_pattern *mp = &v->patterns[k];
		cJSON *p = jnew_object(), *files = jnew_array();
		jadd_text(p, "pattern", mp->pattern);
		for (size_t f = 0; f < mp->nfiles; f++) {
			cJSON *fo = jnew_object();
			jadd_text(fo, "path", mp->files[f].path);
			jadd_int(fo, "size", (int64_t)mp->files[f].size);
			jadd_text(fo, "sha256", mp->files[f].sha256);
			jpush(files, fo);
		}
		jadd(p, "files", files);
		if (v->after_setup)
			jadd_str(p, "matched", v->matched ? "after_setup" : "not_matched");
		jpush(arr, p);
	}
	return arr;
}

struct env_entry {
	const char *text;             /* "NAME=VALUE" */
	size_t name_len, index;
};

static int env_entry_cmp(const void *a, const void *b)
{
	const struct env_entry *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->text, y->text, n);

	if (c)
		return c;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * Whether a variable's value is recorded as its SHA-256 (into hex) rather
 * than as its text: when the variable looks secret by name or by value
 * (envname.h) or is secret_name — so that two runs can still be told
 * apart, and a value known to the auditor checked with sha256sum, without
 * the secret being written down.
 */
static int value_hashed(const char *name, const char *value, const char *secret_name,
			char hex[SHA256_HEX_LEN + 1])
{
	unsigned char d[SHA256_LEN];

	if (!envname_secret_var(name, value) && !(secret_name && !strcmp(name, secret_name)))
		return 0;
	sha256_buf(value, strlen(value), d);
	sha256_hex(d, hex);
	return 1;
}

/* A variable's value as metadata.json records it: its text, or {"sha256": hex}. */
static void add_value(cJSON *o, const char *name, const char *value, const char *secret_name)
{
	char hex[SHA256_HEX_LEN + 1];
	cJSON *h;

	if (!value_hashed(name, value, secret_name, hex)) {
		jadd_text(o, name, value);
		return;
	}
	h = jnew_object();
	jadd_str(h, "sha256", hex);
	jadd(o, name, h);
}

/* What the report shows of the value add_value() records (owned). */
static char *shown_value(const char *name, const char *value, const char *secret_name)
{
	char hex[SHA256_HEX_LEN + 1], *clean, *shown;

	if (value_hashed(name, value, secret_name, hex))
		return evidence_environment_shown(name, NULL, hex);
	clean = utf8_clean(value, strlen(value));
	shown = evidence_environment_shown(name, clean, NULL);
	free(clean);
	return shown;
}

/*
 * An environment as metadata.json records it: fn(ctx, name, value) for
 * every variable by name in byte order (the first of a name given twice,
 * as getenv() finds it), the name cleaned to UTF-8, the value as it is.
 */
static void environment_each(char *const *env,
			     void (*fn)(void *ctx, const char *name, const char *value), void *ctx)
{
	struct env_entry *e;
	size_t n = 0;

	while (env && env[n])
		n++;
	e = xcalloc(n ? n : 1, sizeof(*e));
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(env[i], '=');
		e[i].text = env[i];
		e[i].name_len = eq ? (size_t)(eq - env[i]) : strlen(env[i]);
		e[i].index = i;
	}
	qsort(e, n, sizeof(*e), env_entry_cmp);
	for (size_t i = 0; i < n; i++) {
		const char *value = e[i].text + e[i].name_len + (e[i].text[e[i].name_len] == '=');
		char *name;

		if (i && e[i].name_len == e[i - 1].name_len &&
		    !memcmp(e[i].text, e[i - 1].text, e[i].name_len))
			continue;
		name = utf8_clean(e[i].text, e[i].name_len);
		fn(ctx, name, value);
		free(name);
	}
	free(e);
}

struct env_out {
	cJSON *json;                  /* environment_json() */
	struct env_runtime *rt;       /* runtime_environment() */
	const char *secret_name;
};

static void env_json_add(void *ctx, const char *name, const char *value)
{
	struct env_out *out = ctx;

	add_value(out->json, name, value, out->secret_name);
}

static cJSON *environment_json(char *const *env, const char *secret_name)
{
	struct env_out out = { jnew_object(), NULL, secret_name };

	environment_each(env, env_json_add, &out);
	return out.json;
}

static void env_runtime_add(void *ctx, const char *name, const char *value)
{
	struct env_out *out = ctx;

	if (envname_runtime(name))
		evidence_environment_runtime_add(out->rt, name,
						 shown_value(name, value, out->secret_name));
}

/* The runtime variables of an environment as the report shows them. */
static void runtime_environment(char *const *env, const char *secret_name, struct env_runtime *rt)
{
	struct env_out out = { NULL, rt, secret_name };

	rt->known = 1;
	environment_each(env, env_runtime_add, &out);
}

static cJSON *variant_json(const struct md_variant *v, const char *secret_name)
{
	cJSON *o = jnew_object(), *env;

	jadd_text(o, "name", v->name);
	jadd_text(o, "cwd", v->cwd);
	/*
	 * What the plan or the variants file set, as written (placeholders
	 * unexpanded), a secret as its hash: the user's files may hold one,
	 * the evidence does not repeat it.
	 */
	env = jnew_object();
	for (size_t i = 0; i < v->nenv; i++)
		add_value(env, v->env[i].key, v->env[i].value, secret_name);
	jadd(o, "env", env);
	/* A scan's values, for the exports that show them (hyperfine's parameters). */
	if (v->nparameters) {
		cJSON *params = jnew_object();
		for (size_t i = 0; i < v->nparameters; i++)
			jadd_text(params, v->parameters[i].key, v->parameters[i].value);
		jadd(o, "parameters", params);
	}
	if (v->git.known) {
		cJSON *g = jnew_object();
		jadd_text(g, "head", v->git.head);
		jadd_bool(g, "dirty", v->git.dirty);
		jadd(o, "git", g);
	} else {
		jadd(o, "git", jnull());
	}
	jadd(o, "versions", versions_json(v));
	jadd(o, "assemblies", assemblies_json(v));
	jadd(o, "environment", environment_json(v->environ, secret_name));
	return o;
}

/* What abev added to DOTNET_STARTUP_HOOKS of every run, or null. */
static cJSON *hook_json(const struct md_hook *h)
{
	cJSON *o;

	if (!h->path)
		return jnull();
	o = jnew_object();
	jadd_text(o, "added_to", DOTNET_STARTUP_HOOKS);
	jadd_text(o, "path", h->path);
	jadd_int(o, "size", (int64_t)h->size);
	jadd_text(o, "sha256", h->sha256);
	return o;
}

const char *metadata_dotnet_hook(const struct metadata *md)
{
	return md ? md->hook.path : NULL;
}

char *metadata_text(const struct metadata *md)
{
	cJSON *o = jnew_object(), *vars = jnew_array();
	char *text;

	jadd_text(o, "schema", METADATA_SCHEMA);
	jadd_text(o, "abev_version", ABEV_VERSION);
	metadata_fields_write(o, &md->host);
	jadd(o, "environment", environment_json(md->environ, md->secret_name));
	jadd(o, "dotnet_hook", hook_json(&md->hook));
	for (size_t i = 0; i < md->nvariants; i++)
		jpush(vars, variant_json(&md->variants[i], md->secret_name));
	jadd(o, "variants", vars);
	text = json_print(o);
	cJSON_Delete(o);
	return text;
}

/* ---- as the report shows it ---- */

static char *clean_or_null(const char *s)
{
	return s ? utf8_clean(s, strlen(s)) : NULL;
}

/* A variant as evidence_read.c reads it from what variant_json() writes. */
static void variant_environment(const struct md_variant *mv, const char *secret_name,
				struct env_variant *v)
{
	v->name = clean_or_null(mv->name);
	v->cwd = clean_or_null(mv->cwd);
	v->git_known = mv->git.known;
	if (mv->git.known) {
		v->git_head = clean_or_null(mv->git.head);
		v->git_dirty = mv->git.dirty;
	}
	v->env_keys = xcalloc(mv->nenv + 1, sizeof(*v->env_keys));
	v->env_values = xcalloc(mv->nenv + 1, sizeof(*v->env_values));
	for (size_t i = 0; i < mv->nenv; i++) {
		v->env_keys[i] = xstrdup(mv->env[i].key);
		v->env_values[i] = shown_value(mv->env[i].key, mv->env[i].value, secret_name);
	}
	v->nenv = mv->nenv;
	if (mv->nparameters) {
		v->param_keys = xcalloc(mv->nparameters + 1, sizeof(*v->param_keys));
		v->param_values = xcalloc(mv->nparameters + 1, sizeof(*v->param_values));
		for (size_t i = 0; i < mv->nparameters; i++) {
			v->param_keys[i] = xstrdup(mv->parameters[i].key);
			v->param_values[i] = clean_or_null(mv->parameters[i].value);
		}
		v->nparams = mv->nparameters;
	}
	v->versions = xcalloc(mv->nversions + 1, sizeof(*v->versions));
	for (size_t i = 0; i < mv->nversions; i++) {
		const struct version_record *r = &mv->versions[i];
		struct env_version *ev = &v->versions[i];

		ev->name = xstrdup(r->name);
		ev->output = clean_or_null(r->output ? r->output : "");
		ev->error = clean_or_null(r->error);
		ev->exit_code = r->exit_code >= 0 ? r->exit_code : -1;
	}
	v->nversions = mv->nversions;
	for (size_t k = 0; k < mv->npatterns; k++)
		for (size_t f = 0; f < mv->patterns[k].nfiles; f++) {
			const struct assembly_file *af = &mv->patterns[k].files[f];
			struct env_file *ef;

			ALLOC_GROW(v->files, v->nfiles + 1, v->files_alloc);
			ef = &v->files[v->nfiles++];
			ef->path = clean_or_null(af->path);
			ef->sha256 = xstrdup(af->sha256);
			ef->size = (int64_t)af->size;
		}
	runtime_environment(mv->environ, secret_name, &v->runtime);
}

void metadata_environment(const struct metadata *md, struct run_environment *out)
{
	memset(out, 0, sizeof(*out));
	metadata_fields_copy(&out->host, &md->host);
	runtime_environment(md->environ, md->secret_name, &out->runtime);
	out->variants = xcalloc(md->nvariants + 1, sizeof(*out->variants));
	for (size_t i = 0; i < md->nvariants; i++)
		variant_environment(&md->variants[i], md->secret_name, &out->variants[i]);
	out->nvariants = md->nvariants;
}

int metadata_write(const char *root, const struct metadata *md)
{
	char *path = path_join(root, EVIDENCE_METADATA_FILE), *text = metadata_text(md);
	int ret = write_file_atomic(path, text, strlen(text));

	free(path);
	free(text);
	return ret;
}
