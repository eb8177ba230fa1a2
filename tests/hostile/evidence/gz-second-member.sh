# A second gzip member holding another tar archive, appended to a stock-tar .tar.gz of
# intact evidence (`cat ok.tar.gz evil.tar.gz`): gzip -d and libarchive read it as one
# stream, and `tar -i` extracts evil.txt, which nobody signed.
tar -C "$EV" -czf "$WORK/ok.tar.gz" .
mkdir "$WORK/evil" && echo 'not signed' > "$WORK/evil/evil.txt"
tar -C "$WORK/evil" -czf "$WORK/evil.tar.gz" .
cat "$WORK/ok.tar.gz" "$WORK/evil.tar.gz" > "$WORK/ev.tar.gz"
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
