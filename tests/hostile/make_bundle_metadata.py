#!/usr/bin/env python3
"""Writes the tests/hostile/bundle cases whose entries carry extended
attributes, ACLs or file flags as pax records: the mini evidence (a.txt,
sub/b.txt and their SHA256, as in the other cases there) with one record
on a.txt. bsdtar run as root applies every one of them when it extracts.
Run from the top of the tree; the same Python and zlib give the same bytes
(tarfile's pax format, gzip with mtime 0).

    python3 tests/hostile/make_bundle_metadata.py
"""
import gzip
import hashlib
import io
import os
import tarfile

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundle")

FILES = {"a.txt": b"hello\n", "sub/b.txt": b"world\n"}

# security.capability v2 (VFS_CAP_REVISION_2, little-endian): cap_net_raw (13)
# permitted and effective, as `setcap cap_net_raw+ep` writes it.
CAPABILITY = "\x01\x00\x00\x02" + "\x00\x20\x00\x00" + "\x00" * 12

CASES = {
    "xattr-capability.tar.gz": {"SCHILY.xattr.security.capability": CAPABILITY},
    # LIBARCHIVE.xattr.<name, URL-encoded>=<value, base64>: bsdtar's own spelling.
    "xattr-libarchive.tar.gz": {"LIBARCHIVE.xattr.user.note": "aGlkZGVu"},
    "acl-access.tar.gz": {
        "SCHILY.acl.access": "user::rw-,user:nobody:rwx,group::r--,mask::rwx,other::r--"},
    "fflags.tar.gz": {"SCHILY.fflags": "nodump"},
    # An ACL libarchive cannot parse: another reader (GNU tar --acls) might.
    "acl-unparsable.tar.gz": {"SCHILY.acl.access": "not an acl"},
}


def member(name, data=None):
    t = tarfile.TarInfo(name)
    t.mtime, t.uid, t.gid, t.uname, t.gname = 0, 0, 0, "root", "root"
    if data is None:
        t.type, t.mode = tarfile.DIRTYPE, 0o755
    else:
        t.mode, t.size = 0o644, len(data)
    return t


def bundle(pax):
    manifest = "".join(f"SHA256 ({n}) = {hashlib.sha256(d).hexdigest()}\n"
                       for n, d in sorted(FILES.items())).encode()
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in [("SHA256", manifest), ("a.txt", FILES["a.txt"]), ("sub", None),
                           ("sub/b.txt", FILES["sub/b.txt"])]:
            m = member(name, data)
            if name == "a.txt":
                m.pax_headers = dict(pax)
            t.addfile(m, io.BytesIO(data) if data is not None else None)
    return gzip.compress(out.getvalue(), mtime=0)


def main():
    for name, pax in CASES.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(bundle(pax))


if __name__ == "__main__":
    main()
