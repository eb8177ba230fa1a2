/*
 * make_seeds: writes the seed inputs of fuzz_seal and fuzz_bundle that
 * cannot be kept as text — a freshly signed evidence directory, its
 * manifest, signature and public key, and the directory packed as
 * .tar.gz and .tar.zst — into OUT/seal/ and OUT/bundle/. Built against
 * the normal library (no fuzzer instrumentation) by `make fuzz`.
 *
 * Usage: make_seeds OUT   (OUT/seal and OUT/bundle are made; OUT/work is scratch)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/bundle.h"
#include "seal/seal.h"
#include "util/atomic_file.h"
#include "util/path.h"
#include "util/readfile.h"
#include "util/strbuf.h"

static int put(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = path_join(dir, name);
	int ret = write_file_atomic(path, data, len);
	free(path);
	return ret;
}

static int slurp(const char *dir, const char *name, struct strbuf *sb)
{
	char *path = path_join(dir, name);
	int ret = read_file_capped(sb, path, 1 << 20);
	free(path);
	return ret;
}

/* A small evidence directory: a few files in nested directories, then sealed with key. */
static int make_evidence(const char *ev, const struct signify_key *key)
{
	static const char log[] = "BENCH sort_ms=12.5\nok\n";
	static const char trx[] = "<TestRun><Results><UnitTestResult testName=\"t\" "
				  "outcome=\"Passed\"/></Results></TestRun>\n";
	char *runs = path_join(ev, "runs/a/run-1");
	int ret = -1;

	if (mkdir_p(runs) < 0 || put(ev, "plan.json", "{}\n", 3) < 0 ||
	    put(runs, "test.log", log, sizeof(log) - 1) < 0 ||
	    put(runs, "results.trx", trx, sizeof(trx) - 1) < 0 || seal_evidence(ev, key) < 0)
		goto out;
	ret = 0;
out:
	free(runs);
	return ret;
}

static int make_seeds(const char *out)
{
	struct strbuf pub = STRBUF_INIT, sig = STRBUF_INIT, man = STRBUF_INIT, both = STRBUF_INIT;
	char *work = path_join(out, "work"), *sealdir = path_join(out, "seal");
	char *bundledir = path_join(out, "bundle"), *ev = path_join(work, "evidence");
	char *prefix = path_join(work, "key"), *keyfile = xasprintf("%s.key", prefix);
	char *gz = path_join(bundledir, "evidence.tar.gz"), *zst = path_join(bundledir, "evidence.tar.zst");
	struct signify_key *key = NULL;
	char fp[65];
	int ret = -1;

	if (mkdir_p(work) < 0 || mkdir_p(sealdir) < 0 || mkdir_p(bundledir) < 0)
		goto out;
	if (signify_keygen(prefix, NULL, fp) < 0 || !(key = signify_key_load(keyfile, NULL)))
		goto out;
	if (make_evidence(ev, key) < 0 || slurp(work, "key.pub", &pub) < 0 ||
	    slurp(ev, EVIDENCE_SIGNATURE_FILE, &sig) < 0 || slurp(ev, EVIDENCE_MANIFEST_FILE, &man) < 0)
		goto out;
	strbuf_add(&both, pub.buf, pub.len);
	strbuf_add(&both, sig.buf, sig.len);
	if (put(sealdir, "manifest", man.buf, man.len) < 0 ||
	    put(sealdir, "signature", sig.buf, sig.len) < 0 ||
	    put(sealdir, "pubkey", pub.buf, pub.len) < 0 ||
	    put(sealdir, "pubkey-then-signature", both.buf, both.len) < 0)
		goto out;
	remove(gz);
	remove(zst);
	if (bundle_pack(ev, gz) < 0 || bundle_pack(ev, zst) < 0)
		goto out;
	ret = 0;
out:
	signify_key_free(key);
	strbuf_release(&pub);
	strbuf_release(&sig);
	strbuf_release(&man);
	strbuf_release(&both);
	free(work);
	free(sealdir);
	free(bundledir);
	free(ev);
	free(prefix);
	free(keyfile);
	free(gz);
	free(zst);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make_seeds OUT\n");
		return 2;
	}
	return make_seeds(argv[1]) < 0 ? 1 : 0;
}
