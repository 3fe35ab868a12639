import { X509Certificate } from 'node:crypto';

// The etax Sandbox CA: the issuer of the joint certificates that `etax sandbox certificate`
// makes for test keys. Its private key is public on purpose: anyone may make a sandbox
// certificate, so a live key must never register one, and live registration refuses every
// certificate this CA signed (the SANDBOX_CERTIFICATE registration code).
//
// The pair was generated once (RSA-2048, a self-signed certificate valid 2025 to 2055) and is
// kept here as data rather than generated at each start: a certificate made today must still be
// recognised as a sandbox one by every later version and every process.

export const SANDBOX_CA_NAME = 'CN=etax Sandbox CA,OU=Sandbox,O=etax,C=KR';

export const SANDBOX_CA_CERTIFICATE_PEM = [
  '-----BEGIN CERTIFICATE-----',
  'MIIDUjCCAjqgAwIBAgIBATANBgkqhkiG9w0BAQsFADBIMRgwFgYDVQQDEw9ldGF4',
  'IFNhbmRib3ggQ0ExEDAOBgNVBAsTB1NhbmRib3gxDTALBgNVBAoTBGV0YXgxCzAJ',
  'BgNVBAYTAktSMCAXDTI1MDEwMTAwMDAwMFoYDzIwNTUwMTAxMDAwMDAwWjBIMRgw',
  'FgYDVQQDEw9ldGF4IFNhbmRib3ggQ0ExEDAOBgNVBAsTB1NhbmRib3gxDTALBgNV',
  'BAoTBGV0YXgxCzAJBgNVBAYTAktSMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIB',
  'CgKCAQEA2sIqGh6aA5LLs1yELPr8I6w+CXlcI2RMIO5lqbpxXVe61wRgurOgDION',
  'TdvApbdNHx505cCik91o9mIvgPr9MTCwYI/+OyeJeWNfIREMAQIz1bkK62JgidxZ',
  'i3FqT/UzDo5xz8Mnrp+z9D5Wjbty3DN98zbzMyoOOgtqt4Rz2hWtwkmu/E+L1kT9',
  'PB4UZXjgjlEDFqY6rIbvpW4q9oWsDwx9P4dW0jyhixxiJ6o9alwrZkORMw9AvdGi',
  'vL6iQz6rslyWFS44CsDcyHrJU44L6rCfD6yGwYJ+ur7qVTP2gTI+A1I2icigBxIe',
  '2mM+axJWOo079U0Fuf4v729BksVb2QIDAQABo0UwQzASBgNVHRMBAf8ECDAGAQH/',
  'AgEAMA4GA1UdDwEB/wQEAwIBBjAdBgNVHQ4EFgQU60SlPvIJxMaO3zlBsEzj74bW',
  'a1owDQYJKoZIhvcNAQELBQADggEBAFivWUZKNuA/C98y3+bG+LOTQTmHj/SH/QXp',
  'GNUxy1DeBvgxFrelQ7afXALfk7LiT7sZ8Q6dZMECkMGUt7hNunvHAuF11MRrmwRp',
  'EbazXO/0NfsmgJezsntSAsHEuHu9aOGzrs4Ap0wkYjSkIiifVxTZhOJexVXmhxA+',
  '5OZgmG5cphark541ndmBokQ1KuXmT5sY2qN1npd8QJzrG144rxSRaSL1KpN5ItJJ',
  '0FMfaLnK7i9hLf1rviafC1WqeO0Z/5dAz7MxSiUj5jbTIn45c913hlIEgyPv+2qc',
  'wo2O34gpDswiX7XGZyG745fDaHjFAPViVF2U7s5g3vKco0U55NY=',
  '-----END CERTIFICATE-----',
].join('\n');

export const SANDBOX_CA_PRIVATE_KEY_PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDawioaHpoDksuz',
  'XIQs+vwjrD4JeVwjZEwg7mWpunFdV7rXBGC6s6AMg41N28Clt00fHnTlwKKT3Wj2',
  'Yi+A+v0xMLBgj/47J4l5Y18hEQwBAjPVuQrrYmCJ3FmLcWpP9TMOjnHPwyeun7P0',
  'PlaNu3LcM33zNvMzKg46C2q3hHPaFa3CSa78T4vWRP08HhRleOCOUQMWpjqshu+l',
  'bir2hawPDH0/h1bSPKGLHGInqj1qXCtmQ5EzD0C90aK8vqJDPquyXJYVLjgKwNzI',
  'eslTjgvqsJ8PrIbBgn66vupVM/aBMj4DUjaJyKAHEh7aYz5rElY6jTv1TQW5/i/v',
  'b0GSxVvZAgMBAAECggEABA3E+YuE4N6oO/GxqNg5/Sq9/Q9fddqaqbcP5vmToXj6',
  'Ae3yDBpT86YUmPi4J5H/ob1JnwV8dcdB9fk15mWFn4hb57QvZWxQg7wjzoaaIs17',
  'cAEqysJy+xxcWUVKei1slb8twdL83KNsvSX9FQlgLI9fN4HhN0WMR9wqN85NFnbX',
  'g0Pg3XmWQpKzeMvF7ktkMcPsGRD3NDYqxpnuxsT81H6nsz9+LdizZmU3H3Ij2Py8',
  '9Vltt0mkXhWqiTShYxYI3umUbWmuCCgmLuDpqyiGc/e9Rh5DFsFY7oEwiR1sHCME',
  'wii+wb2UUlL+a8SxH9JetgoL8N7ecuw0tPrlG2ohsQKBgQD5mj1gjM4DakXwU8yC',
  'OCoag37167FTSVeSUWjF3xDOmcQ12yFdOLMi087Ckzkw0tCqKLr2LUKtrz/NDl4+',
  'TLDSYUaQDQ8eEbL+LjjQl1K11ql+I1cmHG4Z6in7XHF5OvOHqpcVrgS3CvvgpGqP',
  '14+A2Z3z7e4J48CDYl2cexKDaQKBgQDgXYrViE+IuM25WtVSZc1/fXD3Ric3wBEX',
  'jTmiz7+kAwbNz6JNvYCx8efnILsUzbxnIKBDHH1GSf9gxT0o3nGKmLRsvhEB7JRG',
  'gBldyXrOOShAVcjAiyFe89i4ss19tbpJJzhXAlKEM6k/BmwmMJ1uNJ9cElZV2IJr',
  'CLsGhzO28QKBgFhojmbdWLcS9FTMibpyBE/B1b1rTzLN3ou/9BlqCjzzb/EXfbjU',
  'NXcXiLuYhABMG4a5yIcbvutgEHwkI7NzXIoX1HN/fKRM5pZrbspLXwtzTjOUdvDT',
  'zxe0vkv/EV48SDf8b2lJavgeltqZwfjTBExCSFU3KEIufmjK9ZdQbF1JAoGASXmY',
  'u7D2CtoqVOcQMPmxwGx+EBxjP3igoEvZch4Crl1nXwL+LeM/QAbuYNxxJ7DwX/1p',
  'PlEYHWqiPTiafMXL/Q1hGLNtsmmdbTEKHZKbqulA60Csi5GEjing8Sts7BwVM1uq',
  'saPLDgw1ArTBugf1pl+JSIegymAq5Y5oYQzpvKECgYEAwPY25Ii+iNk53MIJJVQj',
  '1UMDl53Q/kbp2wGDjQIa+VOhvzIUibsynRCVK41f8Cv+Qe8UqOnhrb4Sr+MTix/T',
  'HsN56uvk0seiNt/iIon94tIJyOQoenze+/pM1wWMRyubQGIKBbDXhhYey3hiQ0Js',
  '8kHoU+hwsN0+AfHBWGDNSo8=',
  '-----END PRIVATE KEY-----',
].join('\n');

const caCertificate = new X509Certificate(SANDBOX_CA_CERTIFICATE_PEM);

// Whether the sandbox CA signed this DER certificate. The signature decides, not the issuer
// name: a certificate from another CA that copied the name is not ours, and one of ours is
// recognised whatever its fields say.
export function isIssuedBySandboxCa(certificateDer: Buffer): boolean {
  try {
    return new X509Certificate(certificateDer).verify(caCertificate.publicKey);
  } catch {
    return false;
  }
}
