#!/bin/sh
# Writes a C source defining `const char NAME[]` holding FILE's bytes
# followed by a NUL, and `const unsigned long NAME_len`. Each byte is a
# hexadecimal character constant, so that bytes above 127 (UTF-8) need no
# conversion, whether char is signed or not.
set -eu
name=$1
file=$2
printf '/* generated from %s by mk/embed.sh; do not edit */\n' "$file"
printf 'extern const char %s[];\nextern const unsigned long %s_len;\n' "$name" "$name"
printf 'const char %s[] = {\n' "$name"
od -An -v -tx1 "$file" | awk '{ s = ""; for (i = 1; i <= NF; i++) s = s "'"'"'\\x" $i "'"'"',"; print s }'
printf '0 };\nconst unsigned long %s_len = sizeof(%s) - 1;\n' "$name" "$name"
