// Check that bytes are a PNG image and read its size.
import assert from 'node:assert/strict';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Asserts a PNG (signature, IHDR first, width and height > 0); returns { width, height }. */
export function assertPng(bytes, what = 'image') {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  assert.ok(buf.length > 33, `${what}: ${buf.length} bytes is too short for a PNG`);
  assert.ok(buf.subarray(0, 8).equals(SIGNATURE),
    `${what}: bad PNG signature ${buf.subarray(0, 8).toString('hex')}`);
  assert.equal(buf.readUInt32BE(8), 13, `${what}: IHDR length is not 13`);
  assert.equal(buf.subarray(12, 16).toString('latin1'), 'IHDR', `${what}: first chunk is not IHDR`);
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  assert.ok(width > 0 && height > 0, `${what}: IHDR size ${width}x${height}`);
  return { width, height };
}

/** Same, from base64 text. */
export function assertPngBase64(data, what = 'image') {
  assert.equal(typeof data, 'string', `${what}: base64 data is not a string`);
  assert.match(data, /^[A-Za-z0-9+/]+={0,2}$/, `${what}: data is not plain base64`);
  return assertPng(Buffer.from(data, 'base64'), what);
}
