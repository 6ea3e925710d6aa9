// A self-signed certificate for 127.0.0.1 (2020–2120) and its key, for tests only: an https server
// on loopback that a test trusts by passing the certificate as the CA. Never trusted anywhere else.
export const loopbackTlsCert = `-----BEGIN CERTIFICATE-----
MIIBXDCCAQKgAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAkxMjcuMC4w
LjEwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMM
CTEyNy4wLjAuMTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABHflcTN4B/Jlal7B
wFNKNGZSCKgf267vlvTULFcWdb6cMripGZCf5K0AW659pHDJqiLPe/YzeEcRKP5n
2OF5fhmjQzBBMA8GA1UdEQQIMAaHBH8AAAEwDwYDVR0TAQH/BAUwAwEB/zAdBgNV
HQ4EFgQUAStdaZP3QgI4f2msLOBdGBaFgjQwCgYIKoZIzj0EAwIDSAAwRQIgGAri
Z0koDp12N46/W9MqIECVPi5KArHhn8JMfDRb70oCIQDiE4FCuF1bhvqmxskJkaaD
CHbbSFEzfM4PHPpzzsgN8A==
-----END CERTIFICATE-----`;

export const loopbackTlsKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgK3bDc2wL5fkjTAOv
QIATTRYXocofjwb7qbrhmt0WUBmhRANCAAR35XEzeAfyZWpewcBTSjRmUgioH9uu
75b01CxXFnW+nDK4qRmQn+StAFuufaRwyaoiz3v2M3hHESj+Z9jheX4Z
-----END PRIVATE KEY-----`;
