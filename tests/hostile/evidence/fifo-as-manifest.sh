# A FIFO in place of SHA256: reported without blocking on it.
rm "$EV/SHA256"
mkfifo "$EV/SHA256"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
