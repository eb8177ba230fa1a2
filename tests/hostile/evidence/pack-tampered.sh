# Finding 6: abev pack refuses evidence whose contents no longer match its manifest.
echo tampered >> "$EV/report.md"
"$ABEV" pack "$EV" --out "$WORK/ev.tar.gz" && exit 0
rc=$?
test ! -e "$WORK/ev.tar.gz" || { echo "a bundle was written"; exit 1; }
exit $rc
