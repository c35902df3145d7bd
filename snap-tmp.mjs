import { writeFileSync } from 'node:fs';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { startLoggedIn } from './tests/support/session.mjs';
import { callText, callJson } from './tests/support/mcp.mjs';
import http from 'node:http';
import { readFileSync } from 'node:fs';
const srv = http.createServer((q, r) => { try { r.end(readFileSync('../shared/bench-pages' + q.url.split('?')[0])); } catch { r.statusCode = 404; r.end(); } });
await new Promise((d) => srv.listen(0, '127.0.0.1', d));
const base = `http://127.0.0.1:${srv.address().port}`;
const s = await startLoggedIn();
for (const page of ['large.html', 'form.html']) {
  await callJson(s.mcp, 'open', { url: `${base}/${page}` });
  for (const interactive of [true, false]) {
    const text = await callText(s.mcp, 'snapshot', { interactive });
    writeFileSync(`/tmp/probe/${page}-${interactive}.txt`, text);
    console.log(page, interactive, text.length, encode(text).length, text.split('\n').length);
  }
}
await s.stop(); srv.close();
