# Finding 1: two listed, byte-identical files made one file with two names: every hash
# still matches, so only the hardlink check can catch it.
set -- $(awk '{ print $NF, $2 }' "$EV/SHA256" | sort | awk '$1 == h { print p, $2; exit } { h = $1; p = $2 }')
a=${1#(}; a=${a%)}; b=${2#(}; b=${b%)}
rm "$EV/$b"
ln "$EV/$a" "$EV/$b"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
