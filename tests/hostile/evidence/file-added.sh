# A file added after sealing.
echo extra > "$EV/runs/extra.txt"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
