# Finding 2: an empty directory the manifest does not cover: extracted evidence would
# hold more than was signed.
mkdir "$EV/extra"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
