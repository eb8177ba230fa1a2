untrusted comment: c
RWQYmx6hJKcqrSmsL7I1uDu+QcRHyk3QU9ZZ3F/iZehr7nH0d/
SHA256 (report.md) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
