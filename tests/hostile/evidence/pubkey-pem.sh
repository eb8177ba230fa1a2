# The PEM public key abev keygen writes beside the signify one checks the same signature.
exec "$ABEV" verify "$EV" --pubkey "$PUB.pem"
