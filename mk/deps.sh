#!/bin/sh
# Checks that the build and test dependencies are present. When something
# is missing: installs it with apt-get when running as root on Debian or
# Ubuntu, otherwise prints the exact command to run and fails.
set -u
PACKAGES="build-essential pkg-config libcjson-dev libxml2-dev libssl-dev libarchive-dev zlib1g-dev libcmocka-dev python3 python3-jsonschema python3-yaml signify-openbsd openssl zstd"
missing=""
for pc in libcjson libxml-2.0 libcrypto libarchive zlib cmocka; do
	pkg-config --exists "$pc" 2>/dev/null || missing="$missing $pc"
done
command -v cc >/dev/null 2>&1 || missing="$missing cc"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
# The tests validate evidence against its schemas and check signatures with stock tools.
/usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1 || missing="$missing python3-jsonschema"
# ...and the example GitHub Actions workflow with yaml.
/usr/bin/python3 -c 'import yaml' >/dev/null 2>&1 || missing="$missing python3-yaml"
command -v signify-openbsd >/dev/null 2>&1 || missing="$missing signify-openbsd"
command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
# Bundles made by stock `tar --zstd` are among the cases abev verify must read.
command -v zstd >/dev/null 2>&1 || missing="$missing zstd"
[ -z "$missing" ] && exit 0

echo "abev: missing:$missing" >&2
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "abev: installing: apt-get install -y $PACKAGES" >&2
	if [ ! -d /var/lib/apt/lists ] || [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v lock)" ]; then
		apt-get update || exit 1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y $PACKAGES || {
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $PACKAGES
	} || exit 1
	exit 0
fi
echo "abev: run:  sudo apt-get install -y $PACKAGES" >&2
exit 1
