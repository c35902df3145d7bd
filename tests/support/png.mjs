// Check that bytes are a PNG image and read its size.
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';

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

/**
 * Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what the browser writes).
 * Returns { width, height, pixel(x, y) -> [r, g, b, a] }.
 */
export function decodePng(bytes) {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  const { width, height } = assertPng(buf);
  const depth = buf[24];
  const colour = buf[25];
  assert.equal(depth, 8, 'only 8-bit PNGs are decoded here');
  assert.ok(colour === 2 || colour === 6, `colour type ${colour} is not RGB or RGBA`);
  assert.equal(buf[28], 0, 'interlaced PNGs are not decoded here');
  const channels = colour === 6 ? 4 : 3;
  const chunks = [];
  for (let at = 8; at < buf.length;) {
    const length = buf.readUInt32BE(at);
    const type = buf.subarray(at + 4, at + 8).toString('latin1');
    if (type === 'IDAT') chunks.push(buf.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? out[y * stride + i - channels] : 0;
      const up = y > 0 ? out[(y - 1) * stride + i] : 0;
      const corner = y > 0 && i >= channels ? out[(y - 1) * stride + i - channels] : 0;
      let value = line[i];
      if (filter === 1) value += left;
      else if (filter === 2) value += up;
      else if (filter === 3) value += (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - corner;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - corner)];
        value += pa <= pb && pa <= pc ? left : pb <= pc ? up : corner;
      }
      out[y * stride + i] = value & 0xff;
    }
  }
  return {
    width,
    height,
    pixel(x, y) {
      const at = Math.round(y) * stride + Math.round(x) * channels;
      return [out[at], out[at + 1], out[at + 2], channels === 4 ? out[at + 3] : 255];
    },
  };
}
