# A second zstd frame holding another tar archive, appended to a stock-tar .tar.zst of
# intact evidence (`cat ok.tar.zst evil.tar.zst`): libarchive and zstd -d read on into it,
# and `tar -i` extracts evil.txt, which nobody signed.
tar -C "$EV" --zstd -cf "$WORK/ok.tar.zst" .
mkdir "$WORK/evil" && echo 'not signed' > "$WORK/evil/evil.txt"
tar -C "$WORK/evil" --zstd -cf "$WORK/evil.tar.zst" .
cat "$WORK/ok.tar.zst" "$WORK/evil.tar.zst" > "$WORK/ev.tar.zst"
exec "$ABEV" verify "$WORK/ev.tar.zst" --pubkey "$PUB"
