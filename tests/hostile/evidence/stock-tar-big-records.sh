# Stock tar with 1 MiB records (tar -b 2048): the zero padding after the tar's end blocks
# is part of the stream, not bytes after it.
tar -C "$EV" -b 2048 -czf "$WORK/ev.tar.gz" .
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
