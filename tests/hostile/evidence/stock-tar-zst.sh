# Finding 5: the same with tar --zstd.
tar -C "$EV" --zstd -cf "$WORK/ev.tar.zst" .
exec "$ABEV" verify "$WORK/ev.tar.zst" --pubkey "$PUB"
