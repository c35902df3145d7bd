// A user script in a page's own world (eval, wait_for_fn; the top document or a frame):
// the value of its last expression. A script that is not one, but uses return or await,
// runs as an async function: an expression first, else a function body whose last
// expression statement is returned. A script that is a function (`() => ...`, as
// Playwright takes them) is called with no arguments. Promises are awaited; the result is
// {"type","value"} as JSON text.
(script) => {
  const seen = new WeakSet();
  const plain = (key, v) => {
    // Half a surrogate pair would be an escape no strict JSON parser takes.
    if (typeof v === 'string') return v.toWellFormed();
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'function') return '[function ' + (v.name || 'anonymous') + ']';
    if (typeof v === 'symbol') return v.toString();
    if (typeof Node !== 'undefined' && v instanceof Node) return '[' + v.nodeName.toLowerCase() + ' element]';
    if (v && typeof v === 'object') { if (seen.has(v)) return '[circular]'; seen.add(v); }
    return v;
  };
  const AsyncFunction = (async () => {}).constructor;
  const compiles = (body) => { try { return new AsyncFunction(body); } catch (_) { return null; } };
  // Where a top-level statement may end: after ; or } or a line break outside brackets,
  // strings, template literals, comments and regular expressions.
  const statementEnds = (src) => {
    const ends = [];
    const open = []; // brackets, and 'T' for the ${ of a template literal
    let last = '';
    let i = 0;
    // From inside a template literal to its closing backquote (false) or a ${ (true).
    const templateRest = () => {
      for (; i < src.length; i++) {
        if (src[i] === '\\') i++;
        else if (src[i] === '`') return false;
        else if (src[i] === '$' && src[i + 1] === '{') { i++; return true; }
      }
      return false;
    };
    for (; i < src.length; i++) {
      const c = src[i];
      const next = src[i + 1];
      if (c === '/' && next === '/') {
        const end = src.indexOf('\n', i);
        i = (end < 0 ? src.length : end) - 1;
        continue;
      }
      if (c === '/' && next === '*') {
        const end = src.indexOf('*/', i + 2);
        i = end < 0 ? src.length : end + 1;
        continue;
      }
      if (c === '"' || c === "'") {
        for (i++; i < src.length && src[i] !== c; i++) if (src[i] === '\\') i++;
        last = 'a';
        continue;
      }
      if (c === '`' || (c === '}' && open[open.length - 1] === 'T')) {
        if (c === '}') open.pop();
        i++;
        if (templateRest()) open.push('T');
        last = 'a';
        continue;
      }
      if (c === '/' && (last === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(last))) {
        let inClass = false;
        for (i++; i < src.length && src[i] !== '\n' && (src[i] !== '/' || inClass); i++) {
          if (src[i] === '\\') i++;
          else if (src[i] === '[') inClass = true;
          else if (src[i] === ']') inClass = false;
        }
        last = 'a';
        continue;
      }
      if (c === '(' || c === '[' || c === '{') open.push(c);
      else if (c === ')' || c === ']' || c === '}') open.pop();
      if (open.length === 0 && (c === ';' || c === '}' || c === '\n')) ends.push(i + 1);
      if (!/\s/.test(c)) last = c;
    }
    return ends;
  };
  const NOT_AN_EXPRESSION = /^(?:let|const|var|class|function|async\s+function|if|for|while|do|switch|try|return|throw|import|export|break|continue)\b/;
  // A body that returns its last expression statement, or null.
  const returningLast = (src) => {
    const ends = statementEnds(src);
    for (let k = ends.length - 1; k >= 0; k--) {
      const at = ends[k];
      const head = src.slice(0, at);
      const tail = src.slice(at).trim().replace(/;+$/, '');
      if (!tail || NOT_AN_EXPRESSION.test(tail)) continue;
      // A line break after `while (x)` and the like does not end the statement.
      const statement = src.slice(k > 0 ? ends[k - 1] : 0, at);
      if (src[at - 1] === '\n' && /^\s*(?:for|while|if|else|do|with)\b/.test(statement) && !/[;}]\s*$/.test(head)) continue;
      const body = compiles(head + '\nreturn (' + tail + '\n);');
      if (body) return body;
    }
    return null;
  };
  // A script that is a function (not one whose value happens to be one, as an
  // assignment of a handler): Playwright's evaluate calls those too.
  const isFunctionSource = /^\s*(?:async\b|function\b|\([^()]*\)\s*=>|[\w$]+\s*=>)/.test(script);
  const asFunction = () => {
    try {
      const value = (0, eval)('(' + script + '\n)');
      return typeof value === 'function' ? value : null;
    } catch (_) {
      return null;
    }
  };
  const run = () => {
    const fn = isFunctionSource && asFunction();
    if (fn) return fn();
    try {
      return (0, eval)(script);
    } catch (e) {
      if (!(e instanceof SyntaxError) || !/\b(?:await|return)\b/.test(script)) throw e;
      const body = compiles('return (' + script + '\n)') || returningLast(script) || new AsyncFunction(script);
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
