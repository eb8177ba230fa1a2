untrusted comment: c
