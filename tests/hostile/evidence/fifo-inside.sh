# A FIFO planted in the evidence: reported without opening it (which would block).
mkfifo "$EV/pipe"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
