// A certificate authority for one test run, made with openssl: sites'
// certificates it signs (for 127.0.0.1 and localhost), and a self-signed
// one nothing trusts. Files are written to `dir`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const openssl = (args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
const SITE_EXTENSIONS = [
  'subjectAltName=IP:127.0.0.1,DNS:localhost',
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature',
  'extendedKeyUsage=serverAuth',
].join('\n');

/** Returns { caFile, site: { key, cert }, untrusted: { key, cert } } (PEM text). */
export function makeTestCa(dir) {
  const at = (name) => path.join(dir, name);
  openssl(['req', '-x509', ...EC, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '2',
    '-subj', '/CN=Sovereign Browser test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  writeFileSync(at('site.ext'), SITE_EXTENSIONS);
  openssl(['req', ...EC, '-keyout', at('site.key'), '-out', at('site.csr'), '-subj', '/CN=127.0.0.1']);
  openssl(['x509', '-req', '-in', at('site.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'),
    '-CAcreateserial', '-out', at('site.pem'), '-days', '2', '-extfile', at('site.ext')]);
  openssl(['req', '-x509', ...EC, '-keyout', at('untrusted.key'), '-out', at('untrusted.pem'), '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']);
  const pair = (name) => ({ key: readFileSync(at(`${name}.key`)), cert: readFileSync(at(`${name}.pem`)) });
  return { caFile: at('ca.pem'), site: pair('site'), untrusted: pair('untrusted') };
}
