/**
 * A key and a self-signed certificate (P-256, CN archiver-test.invalid, valid
 * until 2126) for test servers that speak HTTPS: no CA vouches for it, as for
 * many a site an archive must still capture. Made once with
 * `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500`.
 */
export const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgqNV2jIeiHDuFQ+Me
hGSSiCQEU2nHCbpTN0/r2NFrQaehRANCAAS4vCOQGkUncF7iV7vyMNRT0zZ3/8D4
t2ASuXUyF+2A2GAcaNcfHbS8R2yat/TFOzINLu+vcaVP8RtzBhguuXPs
-----END PRIVATE KEY-----
`;

export const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBlzCCAT2gAwIBAgIUR4OV45UaxK27eQ61dqTnqw51C7kwCgYIKoZIzj0EAwIw
IDEeMBwGA1UEAwwVYXJjaGl2ZXItdGVzdC5pbnZhbGlkMCAXDTI2MTIwMzEyNTUy
MVoYDzIxMjYxMTA5MTI1NTIxWjAgMR4wHAYDVQQDDBVhcmNoaXZlci10ZXN0Lmlu
dmFsaWQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAS4vCOQGkUncF7iV7vyMNRT
0zZ3/8D4t2ASuXUyF+2A2GAcaNcfHbS8R2yat/TFOzINLu+vcaVP8RtzBhguuXPs
o1MwUTAdBgNVHQ4EFgQUqwibKrOqp/uTglueRF6518g6YrIwHwYDVR0jBBgwFoAU
qwibKrOqp/uTglueRF6518g6YrIwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
AgNIADBFAiB1QkX1pbt5/aJ6Pg9tyrT84iDUD81MXDiuJf8zVHfLuAIhAIOhfSnL
H89kGZ/6ahMK9Bkh93buzRn9abs5mtN2sisV
-----END CERTIFICATE-----
`;
