// Module resolution hook (see preload.mjs): the conformance package's
// `fs` is node:fs plus a globSync that refuses.
const CONFORMANCE = '/node_modules/@modelcontextprotocol/conformance/';

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(CONFORMANCE)) {
    return { url: new URL('./fs.mjs', import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}
