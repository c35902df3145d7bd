// The agent library's SHA-256 and HMAC-SHA-256 (assets/agent/55-hmac.js), which sign
// requests between the agents of different frames: the published known answers (FIPS
// 180-2, RFC 4231), each also checked against node's crypto, so that a typo in an
// expected value cannot hide a bug. No browser: the fragment is loaded on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const source = readFileSync(new URL('../assets/agent/55-hmac.js', import.meta.url), 'utf8');

// hmacHex(key, message) takes strings and encodes both with TextEncoder (UTF-8), as the
// agent does. Most of RFC 4231's keys and data are bytes that are not UTF-8 (0xaa, 0xdd),
// so a second copy of the fragment gets an encoder that turns each character of a binary
// string (codes 0-255) into that byte. sha256(bytes) takes a Uint8Array and returns one.
function load(Encoder) {
  return new Function('TextEncoder', `${source}\nreturn { sha256, hmacHex };`)(Encoder);
}

class BinaryStringEncoder {
  encode(text) {
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      assert.ok(code < 256, 'a binary string holds bytes only');
      bytes[i] = code;
    }
    return bytes;
  }
}

const utf8Agent = load(TextEncoder);
const binaryAgent = load(BinaryStringEncoder);

const bytesHex = (bytes) => Buffer.from(bytes).toString('hex');
const repeatByte = (byte, count) => Buffer.alloc(count, byte);

// FIPS 180-2 appendix B (and NIST's examples): message, SHA-256.
const SHA256_VECTORS = [
  ['the empty message', '', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['"abc"', 'abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  [
    'the 448-bit message (two blocks once padded)',
    'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  ],
  ['one million "a"', 'a'.repeat(1_000_000), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
];

for (const [what, message, expected] of SHA256_VECTORS) {
  test(`sha256 of ${what}`, () => {
    const bytes = new TextEncoder().encode(message);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), expected, 'node agrees with the vector');
    const digest = utf8Agent.sha256(bytes);
    assert.ok(digest instanceof Uint8Array);
    assert.equal(digest.length, 32);
    assert.equal(bytesHex(digest), expected);
  });
}

// RFC 4231 section 4 (case 5, a truncated output, does not apply): key, data, HMAC-SHA-256.
const longKey = repeatByte(0xaa, 131); // longer than a block: hashed first
const HMAC_VECTORS = [
  [1, repeatByte(0x0b, 20), Buffer.from('Hi There'),
    'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
  [2, Buffer.from('Jefe'), Buffer.from('what do ya want for nothing?'),
    '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'],
  [3, repeatByte(0xaa, 20), repeatByte(0xdd, 50),
    '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe'],
  [4, Buffer.from('0102030405060708090a0b0c0d0e0f10111213141516171819', 'hex'), repeatByte(0xcd, 50),
    '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b'],
  [6, longKey, Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First'),
    '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54'],
  [7, longKey, Buffer.from('This is a test using a larger than block-size key and a larger than block-size '
    + 'data. The key needs to be hashed before being used by the HMAC algorithm.'),
    '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2'],
];

for (const [number, key, data, expected] of HMAC_VECTORS) {
  test(`hmacHex, RFC 4231 test case ${number}`, () => {
    assert.equal(createHmac('sha256', key).update(data).digest('hex'), expected, 'node agrees with the vector');
    assert.equal(binaryAgent.hmacHex(key.toString('latin1'), data.toString('latin1')), expected);
  });
}

test('hmacHex encodes text keys and messages as UTF-8', () => {
  // Cases 1 and 2 are ASCII: the agent's own encoder gives the same answer.
  for (const [, key, data, expected] of HMAC_VECTORS.slice(0, 2)) {
    assert.equal(utf8Agent.hmacHex(key.toString('latin1'), data.toString('latin1')), expected);
  }
  // The agent's shape: a 64-hex-digit key (exactly one block, not hashed), nonce + '\n' + body.
  const key = 'a1'.repeat(32);
  const message = 'f00dfeed\n{"op":"point","args":{"name":"café ✓ 🙂"}}';
  const wanted = createHmac('sha256', Buffer.from(key, 'utf8')).update(message, 'utf8').digest('hex');
  assert.equal(utf8Agent.hmacHex(key, message), wanted);
  // A multi-byte key longer than a block once encoded (40 characters, 80 bytes).
  const longText = 'ключ'.repeat(10);
  const longWanted = createHmac('sha256', Buffer.from(longText, 'utf8')).update(message, 'utf8').digest('hex');
  assert.equal(utf8Agent.hmacHex(longText, message), longWanted);
});
