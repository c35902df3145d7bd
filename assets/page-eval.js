// A user script in a page's own world (eval, wait_for_fn; the top document or a frame):
// the value of its last expression. A script that is not one, but uses return or await,
// runs as an async function: an expression first, else a function body. Promises are
// awaited; the result is {"type","value"} as JSON text.
(script) => {
  const seen = new WeakSet();
  const plain = (key, v) => {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'function') return '[function ' + (v.name || 'anonymous') + ']';
    if (typeof v === 'symbol') return v.toString();
    if (typeof Node !== 'undefined' && v instanceof Node) return '[' + v.nodeName.toLowerCase() + ' element]';
    if (v && typeof v === 'object') { if (seen.has(v)) return '[circular]'; seen.add(v); }
    return v;
  };
  const run = () => {
    try { return (0, eval)(script); } catch (e) {
      if (!(e instanceof SyntaxError) || !/\b(?:await|return)\b/.test(script)) throw e;
      const AsyncFunction = (async () => {}).constructor;
      let body;
      try { body = new AsyncFunction('return (' + script + '\n)'); } catch (_) { body = new AsyncFunction(script); }
      return body();
    }
  };
  return Promise.resolve().then(run).then((v) => {
    const type = v === null ? 'null' : typeof v;
    let text;
    try { text = JSON.stringify(v === undefined ? null : v, plain); } catch (e) { text = JSON.stringify(String(v)); }
    return '{"type":' + JSON.stringify(type) + ',"value":' + (text === undefined ? 'null' : text) + '}';
  });
}
