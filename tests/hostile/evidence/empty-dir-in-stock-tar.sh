# Finding 2: the same empty directory in a bundle made by stock tar.
mkdir "$EV/runs/extra"
tar -C "$EV" -czf "$WORK/ev.tar.gz" .
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
