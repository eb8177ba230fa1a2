# Two tar archives in one gzip stream (`cat ok.tar evil.tar | gzip`): the reader stops at
# the first end-of-archive marker, `tar -i` goes on and extracts evil.txt.
tar -C "$EV" -cf "$WORK/ok.tar" .
mkdir "$WORK/evil" && echo 'not signed' > "$WORK/evil/evil.txt"
tar -C "$WORK/evil" -cf "$WORK/evil.tar" .
cat "$WORK/ok.tar" "$WORK/evil.tar" | gzip -n > "$WORK/ev.tar.gz"
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
