"""Sealed evidence: a signed run verifies with abev and with stock tools
(sha256sum, signify-openbsd, openssl) using the commands the report gives;
every kind of tampering makes `abev verify` exit 4 naming the file; bundles
are byte-identical whatever the files' times; an interrupted run is sealed
too; keys take passphrases from a file or the environment, never argv."""
import gzip
import hashlib
import io
import os
import re
import shutil
import signal
import subprocess
import tarfile
import time
import unittest

from common import ABEV, AbevTestCase, helper_plan


def have(tool):
    return shutil.which(tool) is not None


class Sealed(AbevTestCase):
    def keygen(self, prefix="key", *extra, env=None):
        self.abev("keygen", "--out", self.path(prefix), *extra, env=env, check=0)
        return self.path(prefix + ".key"), self.path(prefix + ".pub")

    def signed_run(self, name="ev", plan=None, key=None):
        if key is None:
            key, _ = self.keygen()
        p = self.write_plan(plan or helper_plan([("a", ["exit", "0"]), ("b", ["sleep", "10"])],
                                                runs=2))
        self.abev("run", p, "--out", self.path(name), "--key", key, check=0)
        return self.path(name)

    def verify(self, path, pub, expect):
        cp = self.abev("verify", path, "--pubkey", pub)
        self.assertEqual(cp.returncode, expect, cp.stdout + cp.stderr)
        return cp.stdout

    def test_keygen_files_and_fingerprint(self):
        cp = self.abev("keygen", "--out", self.path("k"), check=0)
        fp = re.search(r"fingerprint: ([0-9a-f]{64})", cp.stdout).group(1)
        self.assertEqual(os.stat(self.path("k.key")).st_mode & 0o777, 0o600)
        with open(self.path("k.pub")) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 2)
        self.assertTrue(lines[0].startswith("untrusted comment: "))
        self.assertIn("BEGIN PUBLIC KEY", open(self.path("k.pub.pem")).read())
        cp = self.abev("keygen", "--out", self.path("k"))
        self.assertNotEqual(cp.returncode, 0, "keygen overwrote an existing key")
        ev = self.signed_run(key=self.path("k.key"))
        out = self.verify(ev, self.path("k.pub"), 0)
        self.assertIn(fp, out)

    def test_signed_run_verifies_with_abev_and_stock_tools(self):
        key, pub = self.keygen()
        ev = self.signed_run(key=key)
        out = self.verify(ev, pub, 0)
        self.assertIn("signature:   good", out)
        self.assertIn("verdict:     verified", out)
        names = os.listdir(ev)
        self.assertIn("SHA256", names)
        self.assertIn("SHA256.sig", names)
        self.assertIn("metadata.json", names)
        self.assertNotIn("key.key", " ".join(names))
        for root, _, files in os.walk(ev):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    self.assertNotIn(b"PRIVATE KEY", fh.read(), f)
        subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256"], cwd=ev, check=True)
        report = open(os.path.join(ev, "report.md")).read()
        self.assertIn("## Verify this evidence", report)
        self.assertNotIn("UNSIGNED", report.split("## Verify")[0])
        verify_text = report.split("## Verify this evidence")[1]
        # The key is named by its fingerprint, as abev verify prints it, and by its file's
        # name: no path of the signer's machine is in the report.
        fp = re.search(r"fingerprint: +([0-9a-f]{64})", out) or \
            re.search(r"fingerprint ([0-9a-f]{64})", out)
        self.assertIsNotNone(fp, out)
        self.assertIn(f"is `{fp.group(1)}`; the commands below call its file `key.pub`",
                      verify_text)
        self.assertNotIn(pub, verify_text)
        # The auditor's copy of the key stands in for the name the commands give it.
        blocks = [b.replace("key.pub", pub)
                  for b in re.findall(r"```sh\n(.*?)```", verify_text, re.S)]
        # The openssl steps exactly as the report gives them.
        sums = [b for b in blocks if "sha256sum -c --strict SHA256" in b][0]
        subprocess.run(["bash", "-ec", sums], cwd=os.path.dirname(ev), check=True,
                       stdout=subprocess.DEVNULL)
        openssl = [b for b in blocks if "openssl pkeyutl" in b][0]
        openssl = openssl.replace("/tmp/abev-sig.raw", os.path.join(self.tmp, "sig.raw"))
        openssl = openssl.replace("/tmp/abev-msg", os.path.join(self.tmp, "msg"))
        if have("openssl"):
            subprocess.run(["bash", "-ec", openssl], cwd=ev, check=True,
                           stdout=subprocess.DEVNULL)
        completeness = blocks[-1]
        cp = subprocess.run(["bash", "-c", completeness], cwd=ev, capture_output=True,
                            text=True)
        self.assertEqual(cp.stdout, "")
        open(os.path.join(ev, "extra.txt"), "w").close()
        cp = subprocess.run(["bash", "-c", completeness], cwd=ev, capture_output=True,
                            text=True)
        self.assertEqual(cp.stdout, "extra.txt\n")
        os.remove(os.path.join(ev, "extra.txt"))
        if not have("signify-openbsd"):
            self.skipTest("signify-openbsd is not installed (apt-get install signify-openbsd)")
        # The signify command exactly as the report gives it, run inside the evidence.
        signify = [b for b in blocks if "signify-openbsd" in b][0]
        subprocess.run(["bash", "-ec", signify], cwd=ev, check=True, stdout=subprocess.DEVNULL)

    def test_unsigned_run_says_so(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        cp = subprocess.run([ABEV, "run", p, "--out", self.path("ev")], capture_output=True,
                            text=True, stdin=subprocess.DEVNULL)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("--unsigned", cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev")))
        self.abev("run", p, "--out", self.path("ev"), "--unsigned", check=0)
        report = open(self.path("ev", "report.md")).read()
        # On the first screen, right after the decision and what decided it.
        self.assertIn("**UNSIGNED.**", "\n".join(report.splitlines()[:40]))
        self.assertTrue(os.path.isfile(self.path("ev", "SHA256")))
        self.assertFalse(os.path.exists(self.path("ev", "SHA256.sig")))
        _, pub = self.keygen()
        out = self.verify(self.path("ev"), pub, 4)
        self.assertIn("SHA256.sig", out)
        # The unsigned report offers only what can pass, and each command passes as printed.
        verify = report.split("## Verify this evidence")[1]
        self.assertNotIn("--pubkey", verify)
        self.assertNotIn("signify", verify)
        blocks = re.findall(r"```sh\n(.*?)```", verify, re.S)
        self.assertEqual(len(blocks), 2, verify)
        subprocess.run(["bash", "-ec", blocks[0]], cwd=self.tmp, check=True,
                       stdout=subprocess.DEVNULL)
        cp = subprocess.run(["bash", "-c", blocks[1]], cwd=self.path("ev"), capture_output=True,
                            text=True)
        self.assertEqual((cp.returncode, cp.stdout), (0, ""), cp.stderr)

    def tampered(self, mutate, pub, ev, expect_file):
        copy = self.path("copy")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(ev, copy, symlinks=True)
        mutate(copy)
        out = self.verify(copy, pub, 4)
        self.assertRegex(out, rf"problem: +{re.escape(expect_file)}: ", out)
        return out

    def test_tampering_is_named(self):
        key, pub = self.keygen()
        _, other_pub = self.keygen("other")
        ev = self.signed_run(key=key)
        files = []
        for root, _, fs in os.walk(ev):
            for f in fs:
                rel = os.path.relpath(os.path.join(root, f), ev)
                if rel not in ("SHA256", "SHA256.sig"):
                    files.append(rel)
        self.assertGreater(len(files), 10)

        def flip(rel):
            def m(d):
                path = os.path.join(d, rel)
                with open(path, "r+b") as f:
                    b = f.read(1)
                    f.seek(0)
                    f.write(bytes([(b[0] if b else 0) ^ 1]) if b else b"x")
            return m
        for rel in sorted(files):
            self.tampered(flip(rel), pub, ev, rel)
        self.tampered(lambda d: os.remove(os.path.join(d, "report.md")), pub, ev, "report.md")
        self.tampered(lambda d: open(os.path.join(d, "added.txt"), "w").close(), pub, ev,
                      "added.txt")
        out = self.tampered(lambda d: os.rename(os.path.join(d, "plan.json"),
                                                os.path.join(d, "plan2.json")),
                            pub, ev, "plan.json")
        self.assertRegex(out, r"problem: +plan2\.json: ")

        def rehash(d):
            with open(os.path.join(d, "plan.json"), "a") as f:
                f.write(" ")
            subprocess.run("sha256sum --tag $(sed -n 's/^SHA256 (\\(.*\\)) = .*/\\1/p' SHA256)"
                           " > SHA256.new && mv SHA256.new SHA256", shell=True, cwd=d,
                           check=True)
        self.tampered(rehash, pub, ev, "SHA256")

        def corrupt_sig(d):
            path = os.path.join(d, "SHA256.sig")
            lines = open(path).read().split("\n")
            sig = list(lines[1])
            sig[40] = "A" if sig[40] != "A" else "B"
            lines[1] = "".join(sig)
            open(path, "w").write("\n".join(lines))
        self.tampered(corrupt_sig, pub, ev, "SHA256.sig")
        out = self.verify(ev, other_pub, 4)
        self.assertRegex(out, r"problem: +SHA256\.sig: .*another key")
        self.tampered(lambda d: os.symlink("/etc/hostname", os.path.join(d, "link")), pub, ev,
                      "link")

    def test_bundles_are_deterministic_and_verify(self):
        key, pub = self.keygen()
        ev = self.signed_run(key=key)
        for ext in ("tar.zst", "tar.gz"):
            a, b, c = (self.path(f"{n}.{ext}") for n in "abc")
            self.abev("pack", ev, "--out", a, check=0)
            self.abev("pack", ev, "--out", b, check=0)
            copy = self.path(f"copy-{ext}")
            shutil.copytree(ev, copy)
            for root, dirs, fs in os.walk(copy):
                for n in dirs + fs:
                    os.utime(os.path.join(root, n), (1e9, 1e9))
            self.abev("pack", copy, "--out", c, check=0)
            data = [open(x, "rb").read() for x in (a, b, c)]
            self.assertEqual(data[0], data[1])
            self.assertEqual(data[0], data[2])
            self.verify(a, pub, 0)
            cut = self.path(f"cut.{ext}")
            with open(cut, "wb") as f:
                f.write(data[0][:len(data[0]) // 2])
            out = self.verify(cut, pub, 4)
            self.assertIn(f"problem:     {cut}: ", out)
        cp = self.abev("pack", ev, "--out", self.path("a.tar.zst"))
        self.assertNotEqual(cp.returncode, 0, "pack overwrote an existing bundle")

    def big_evidence(self, mib):
        """Signed evidence plus an incompressible file of mib MiB, its manifest
        remade without a signature (it verifies as unsigned)."""
        ev = self.signed_run()
        os.remove(os.path.join(ev, "SHA256.sig"))
        with open(os.path.join(ev, "big.bin"), "wb") as f:
            for _ in range(mib):
                f.write(os.urandom(1 << 20))
        names = []
        for root, _, files in os.walk(ev):
            names += [os.path.relpath(os.path.join(root, n), ev) for n in files
                      if n != "SHA256"]
        with open(os.path.join(ev, "SHA256"), "w") as m:
            for n in sorted(names, key=lambda n: n.encode()):
                with open(os.path.join(ev, n), "rb") as f:
                    m.write(f"SHA256 ({n}) = {hashlib.sha256(f.read()).hexdigest()}\n")
        self.abev("verify", ev, check=7)
        return ev

    def leftovers(self):
        return [n for n in os.listdir(self.tmp) if ".tmp-" in n]

    def test_pack_over_a_file_size_limit_leaves_nothing(self):
        import resource
        ev = self.big_evidence(4)
        # The write that fails may come from a file's data, a header or the
        # close, depending on the limit and on when the compressor flushes:
        # each way out must say why, remove the temporary file and (under
        # ASan) free everything.
        cases = []
        for suffix in (".tar.gz", ".tar.zst"):
            whole = self.path("whole" + suffix)
            self.abev("pack", ev, "--out", whole)
            size = os.path.getsize(whole)
            os.remove(whole)
            cases += [(16 << 10, suffix), (size - 1, suffix)]
            cases += [(size * k // 8, suffix) for k in range(1, 8)]
        for limit, suffix in cases:
            with self.subTest(limit=limit, suffix=suffix):
                out = self.path("ev" + suffix)

                def set_limit(limit=limit):
                    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
                cp = subprocess.run([ABEV, "pack", ev, "--out", out], capture_output=True,
                                    text=True, preexec_fn=set_limit, timeout=300)
                self.assertEqual(cp.returncode, 3, cp.stderr)
                self.assertIn("File too large", cp.stderr)
                self.assertFalse(os.path.exists(out))
                self.assertEqual(self.leftovers(), [])

    def test_pack_interrupted_or_killed_leaves_nothing(self):
        ev = self.big_evidence(128)
        out = self.path("ev.tar.zst")
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL):
            with self.subTest(sig=sig.name):
                proc = subprocess.Popen([ABEV, "pack", ev, "--out", out], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                deadline = time.monotonic() + 240
                while not self.leftovers() and proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.005)
                if proc.poll() is not None:
                    proc.communicate()
                    self.skipTest("the pack finished before it could be interrupted")
                proc.send_signal(sig)
                _, err = proc.communicate(timeout=240)
                if sig == signal.SIGKILL:
                    self.assertEqual(proc.returncode, -sig)
                    self.assertEqual(len(self.leftovers()), 1)
                    # The next pack to the same OUT removes it: its process is gone.
                    cp = self.abev("pack", ev, "--out", out, check=0)
                    self.assertIn("left by an abev pack (pid %d) that was killed" % proc.pid,
                                  cp.stderr)
                    self.abev("verify", out, check=7)
                else:
                    self.assertEqual(proc.returncode, 128 + sig, err)
                    self.assertIn("interrupted", err)
                    self.assertFalse(os.path.exists(out))
                self.assertEqual(self.leftovers(), [])

    def test_run_bundle_option(self):
        key, pub = self.keygen()
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        self.abev("run", p, "--out", self.path("ev"), "--key", key, "--bundle",
                  self.path("ev.tar.zst"), check=0)
        self.verify(self.path("ev.tar.zst"), pub, 0)

    def hostile_bundle(self, ev, add):
        """A .tar.gz of ev plus whatever add(tar) puts in."""
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for root, _, fs in sorted(os.walk(ev)):
                for f in sorted(fs):
                    full = os.path.join(root, f)
                    tar.add(full, arcname=os.path.relpath(full, ev))
            add(tar)
        path = self.path(f"hostile-{len(os.listdir(self.tmp))}.tar.gz")
        with open(path, "wb") as f:
            f.write(gzip.compress(buf.getvalue()))
        return path

    def test_hostile_bundle_entries_are_named(self):
        key, pub = self.keygen()
        ev = self.signed_run(key=key)
        self.verify(self.hostile_bundle(ev, lambda tar: None), pub, 0)

        def entry(name, data=b"", **kw):
            def add(tar):
                info = tarfile.TarInfo(name)
                for k, v in kw.items():
                    setattr(info, k, v)
                info.size = len(data) if info.type == tarfile.REGTYPE else 0
                tar.addfile(info, io.BytesIO(data) if info.size else None)
            return add
        cases = [
            ("../evil", entry("../evil", data=b"x")),
            ("/tmp/abs", entry("/tmp/abs", data=b"x")),
            ("hard", entry("hard", type=tarfile.LNKTYPE, linkname="plan.json")),
            ("dev", entry("dev", type=tarfile.CHRTYPE, devmajor=1, devminor=3)),
            ("sym", entry("sym", type=tarfile.SYMTYPE, linkname="/etc/hostname")),
        ]
        for name, add in cases:
            out = self.verify(self.hostile_bundle(ev, add), pub, 4)
            self.assertIn(name.lstrip("/").split("/")[-1], out, name)

    def test_extended_attributes_stay_out_of_bundles(self):
        # abev pack builds every entry itself, so a file's extended attributes never
        # reach its bundle; stock tar --xattrs carries them, and verify names each one.
        key, pub = self.keygen()
        ev = self.signed_run(key=key)
        try:
            for p in (ev, os.path.join(ev, "report.md")):
                os.setxattr(p, "user.abev-test", b"not signed")
        except OSError as e:
            self.skipTest(f"no user extended attributes here: {e}")
        packed = self.path("ev.tar.gz")
        self.abev("pack", ev, "--out", packed, check=0)
        with tarfile.open(packed) as t:
            for m in t.getmembers():
                self.assertEqual(m.pax_headers, {}, m.name)
        self.verify(packed, pub, 0)
        stock = self.path("stock.tar.gz")
        subprocess.run(["tar", "--xattrs", "-C", ev, "-czf", stock, "."], check=True)
        out = self.verify(stock, pub, 4)
        for name in (".", "report.md"):
            self.assertIn(f"problem:     {name}: carries an extended attribute "
                          "'user.abev-test'", out)

    def test_interrupted_run_is_sealed(self):
        key, pub = self.keygen()
        pidfile = self.path("pids")
        p = self.write_plan(helper_plan([("a", ["hang-with-child", pidfile])], runs=2))
        proc = subprocess.Popen([ABEV, "run", p, "--out", self.path("ev"), "--key", key],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        try:
            # A watchdog, not a bound: a busy machine only makes the start slower.
            deadline = time.monotonic() + 60
            while not os.path.exists(pidfile) and time.monotonic() < deadline:
                time.sleep(0.02)
            self.assertTrue(os.path.exists(pidfile), "the child never started")
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        self.assertEqual(proc.returncode, 130)
        self.assertEqual(self.load("ev", "result.json")["status"], "interrupted")
        # Sealed as it is, and verify says what it is: interrupted, never exit 0.
        out = self.verify(self.path("ev"), pub, 8)
        self.assertIn("seal:        intact", out)
        self.assertIn("status:      interrupted (SIGINT)\n", out)

    def test_metadata_records_assemblies_and_versions(self):
        work = self.path("w")
        os.makedirs(os.path.join(work, "bin", "Release", "net8.0"))
        with open(os.path.join(work, "bin", "Release", "net8.0", "App.dll"), "wb") as f:
            f.write(b"assembly bytes")
        plan = helper_plan([("a", ["exit", "0"])])
        plan["variants"][0].update(cwd="w", assemblies=["bin/**/*.dll"])
        plan["versions"] = {"tool": ["sh", "-c", "echo tool 1.2.3"]}
        p = self.write_plan(plan)
        self.abev("run", p, "--out", self.path("ev"), check=0)
        md = self.load("ev", "metadata.json")
        self.assertEqual(md["schema"], "abev.metadata/1")
        v = md["variants"][0]
        self.assertEqual(v["assemblies"][0]["files"], [{
            "path": "bin/Release/net8.0/App.dll", "size": 14,
            "sha256": hashlib.sha256(b"assembly bytes").hexdigest()}])
        self.assertEqual(v["versions"]["tool"]["output"], "tool 1.2.3")
        self.assertGreaterEqual(md["host"]["logical_cpus"], 1)
        plan["variants"][0]["assemblies"].append("lib/*.so")
        p = self.write_plan(plan, "plan2.json")
        cp = self.abev("run", p, "--out", self.path("ev2"))
        self.assertEqual(cp.returncode, 2)
        self.assertIn("variants[0].assemblies[1]", cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev2")))

    def test_what_a_run_leaves_is_made_sealable_and_said(self):
        key, pub = self.keygen()
        script = ('cd "$ABEV_RUN_DIR" && echo data > "bad)name" && ln -s /etc/hostname link && '
                  'mkfifo pipe && mkdir "odd)dir" && echo inner > "odd)dir/x" && '
                  'printf x > "$(printf "new\\nline")"')
        plan = helper_plan([("a", ["exit", "0"])])
        plan["variants"][0]["command"] = ["sh", "-c", script]
        p = self.write_plan(plan)
        self.abev("run", p, "--out", self.path("ev"), "--key", key, check=0)
        d = self.path("ev", "runs", "a", "run-1")
        names = sorted(os.listdir(d))
        self.assertIn("bad_name", names)
        self.assertIn("odd_dir", names)
        self.assertIn("new_line", names)
        self.assertNotIn("link", names)
        self.assertNotIn("pipe", names)
        self.assertEqual(open(os.path.join(d, "bad_name")).read(), "data\n")
        self.assertEqual(open(os.path.join(d, "odd_dir", "x")).read(), "inner\n")
        notes = "\n".join(self.load("ev", "result.json")["notes"])
        self.assertIn("a symlink to '/etc/hostname' left by the run was removed", notes)
        self.assertIn("runs/a/run-1/pipe: a FIFO left by the run was removed", notes)
        self.assertIn("renamed to 'runs/a/run-1/bad_name'", notes)
        self.verify(self.path("ev"), pub, 0)
        subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256"],
                       cwd=self.path("ev"), check=True)

    def test_passphrase_from_file_or_env_never_argv(self):
        with open(self.path("pass"), "w") as f:
            f.write("correct horse\n")
        key, pub = self.keygen("pk", "--passphrase-file", self.path("pass"))
        self.assertIn("ENCRYPTED", open(key).read())
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        cp = self.abev("run", p, "--out", self.path("ev1"), "--key", key)
        self.assertEqual(cp.returncode, 2)
        self.assertFalse(os.path.exists(self.path("ev1")))
        cp = self.abev("run", p, "--out", self.path("ev1"), "--key", key,
                       "--passphrase-env", "ABEV_TEST_PASS", env={"ABEV_TEST_PASS": "wrong"})
        self.assertEqual(cp.returncode, 2)
        self.abev("run", p, "--out", self.path("ev2"), "--key", key,
                  "--passphrase-env", "ABEV_TEST_PASS", env={"ABEV_TEST_PASS": "correct horse"},
                  check=0)
        self.verify(self.path("ev2"), pub, 0)
        cp = self.abev("keygen", "--out", self.path("x"), "--passphrase", "secret")
        self.assertEqual(cp.returncode, 2)


if __name__ == "__main__":
    unittest.main()
