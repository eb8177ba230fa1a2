# Finding 6: unsigned evidence packs, with a note that nobody vouches for it.
rm "$EV/SHA256.sig"
exec "$ABEV" pack "$EV" --out "$WORK/ev.tar.gz"
