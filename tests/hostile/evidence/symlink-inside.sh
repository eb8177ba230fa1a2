# A symlink planted in the evidence.
ln -s /etc/hostname "$EV/link"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
