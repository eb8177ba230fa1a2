# The untampered evidence verifies: the control for every other case here.
exec "$ABEV" verify "$EV" --pubkey "$PUB"
