"""`abev run --host-label`: the name a machine goes by in a comparison run on
several hosts. It lands in metadata.json's host.label (the hostname when not
given), and a label outside 1-64 of [A-Za-z0-9._-] is a usage error before
anything runs or is written."""
import os
import socket

from common import AbevTestCase


class HostLabel(AbevTestCase):
    def marker_plan(self):
        """A plan whose one variant leaves a file behind when it runs."""
        marker = self.path("ran")
        plan = {
            "schema": "abev.plan/1",
            "name": "label",
            "variants": [{"name": "a", "command": ["sh", "-c", f"touch '{marker}'"]}],
            "schedule": {"warmups": 0, "runs": 1, "gap_seconds": 0},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }
        return self.write_plan(plan), marker

    def test_label_is_recorded(self):
        plan, marker = self.marker_plan()
        label = "x86_64-debian12.node-7"
        self.abev("run", plan, "--out", self.path("ev"), "--host-label", label, check=0)
        self.assertTrue(os.path.exists(marker))
        host = self.load("ev", "metadata.json")["host"]
        self.assertEqual(host["label"], label)
        self.assertEqual(host["hostname"], socket.gethostname())
        # Re-running it on this host means giving the same label.
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertIn(f"--host-label {label}", f.read())

    def test_default_is_the_hostname(self):
        plan, _ = self.marker_plan()
        self.abev("run", plan, "--out", self.path("ev"), check=0)
        host = self.load("ev", "metadata.json")["host"]
        self.assertEqual(host["label"], socket.gethostname())
        self.assertEqual(host["label"], host["hostname"])

    def test_bad_label_is_a_usage_error(self):
        plan, marker = self.marker_plan()
        for label in ("", "two words", "a/b", "caf\u00e9", "x" * 65, "tab\t", "semi;colon"):
            with self.subTest(label=label):
                out, bundle = self.path("ev"), self.path("ev.tar.gz")
                cp = self.abev("run", plan, "--out", out, "--bundle", bundle,
                               f"--host-label={label}")
                self.assertEqual(cp.returncode, 2, cp.stderr)
                self.assertIn("--host-label", cp.stderr)
                self.assertFalse(os.path.exists(out), f"{out} was created")
                self.assertFalse(os.path.exists(bundle), f"{bundle} was created")
                self.assertFalse(os.path.exists(marker), "the plan ran")
        # The longest label allowed is accepted.
        self.abev("run", plan, "--out", self.path("ev"), "--host-label", "x" * 64, check=0)
        self.assertEqual(self.load("ev", "metadata.json")["host"]["label"], "x" * 64)
