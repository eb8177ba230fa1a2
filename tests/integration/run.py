#!/usr/bin/env python3
"""Runs abev's integration tests (tests/integration/test_*.py) against the
real binary named by $ABEV and prints one closing line with the totals."""
import os
import shutil
import sys
import tempfile
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)

for var in ("ABEV", "ABEV_HELPER", "ABEV_SRC"):
    if not os.environ.get(var):
        sys.exit(f"integration: ${var} is not set; run through 'make check'")

# The suite's abev runs see each other (abev run's lock directory), not
# those of other suites or users on a shared machine: a test that needs
# two runs to meet gives both its own directory.
lock_dir = tempfile.mkdtemp(prefix="abev-test-lock.")
os.environ["ABEV_LOCK_DIR"] = lock_dir

pattern = os.environ.get("ABEV_TESTS", "test_*.py")
suite = unittest.defaultTestLoader.discover(here, pattern=pattern, top_level_dir=here)
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
# A failing subTest is reported once per subtest; count each test once.
failed_ids = {getattr(t, "test_case", t).id() for t, _ in result.failures + result.errors}
failed = len(failed_ids) + len(result.unexpectedSuccesses)
skipped = len({getattr(t, "test_case", t).id() for t, _ in result.skipped} - failed_ids)
passed = result.testsRun - failed - skipped
shutil.rmtree(lock_dir, ignore_errors=True)
print(f"integration: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
