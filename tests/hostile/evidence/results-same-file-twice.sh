# One TRX given three times (as itself twice and through a symlink): counted once.
cat > a.trx <<'TRX'
<?xml version="1.0" encoding="utf-8"?>
<TestRun id="1" name="twice" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">
  <Results>
    <UnitTestResult testId="1" testName="A" outcome="Passed" />
    <UnitTestResult testId="2" testName="B" outcome="Failed" />
  </Results>
</TestRun>
TRX
ln -s a.trx b.trx
rc=0
"$ABEV" results a.trx a.trx b.trx >out.txt 2>err.txt || rc=$?
grep -Eq '^total +trx +2 +2 +1 +1 ' out.txt
cat out.txt err.txt
exit "$rc"
