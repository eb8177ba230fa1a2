# Finding 3's boundary: a path that does not exist stays a usage error (2).
exec "$ABEV" verify "$WORK/nothing.tar.gz" --pubkey "$PUB"
