// Every tool's inputSchema, as tools/list serves it, is a valid JSON Schema
// 2020-12 document (the dialect MCP assumes when a schema names none) that a
// strict validator accepts, and every declared default is a value of its own
// schema: a client that fills in defaults sends only valid arguments.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020.js';
import { startBrowser } from './support/browser.mjs';
import { connectMcp } from './support/mcp.mjs';

/** Every subschema of `schema` that declares a default, with its path. */
function defaults(schema, path = '') {
  if (!schema || typeof schema !== 'object') return [];
  const found = Object.hasOwn(schema, 'default') ? [{ path: path || '/', schema }] : [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'default' || key === 'enum' || key === 'const') continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => found.push(...defaults(item, `${path}/${key}/${i}`)));
    } else if (value && typeof value === 'object') {
      found.push(...defaults(value, `${path}/${key}`));
    }
  }
  return found;
}

describe('tool input schemas', { timeout: 120_000 }, () => {
  let browser;
  let mcp;
  let tools;
  before(async () => {
    browser = await startBrowser();
    mcp = await connectMcp(browser);
    // Every family's tools too.
    await mcp.callTool('tools_enable', { family: 'all' });
    tools = await mcp.listTools();
  }, { timeout: 90_000 });
  after(async () => {
    await mcp?.close().catch(() => {});
    await browser?.stop();
  });

  it('are valid JSON Schema 2020-12 that a strict validator compiles', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    assert.ok(tools.length >= 100, `tools/list has ${tools.length} tools`);
    for (const tool of tools) {
      const schema = tool.inputSchema;
      assert.equal(schema.type, 'object', `${tool.name}: inputSchema is an object schema`);
      assert.ok(ajv.validateSchema(schema), `${tool.name}: ${ajv.errorsText(ajv.errors)}`);
      assert.doesNotThrow(() => ajv.compile(schema), `${tool.name} compiles in strict mode`);
      for (const name of schema.required ?? []) {
        assert.ok(schema.properties?.[name], `${tool.name}: required ${name} is a declared property`);
      }
    }
  });

  it('declare only defaults their own schema accepts, and none of them null', () => {
    const ajv = new Ajv2020({ strict: false });
    let checked = 0;
    for (const tool of tools) {
      for (const { path, schema } of defaults(tool.inputSchema)) {
        const { default: value, ...rest } = schema;
        assert.notEqual(value, null, `${tool.name}${path}: a null default`);
        const valid = ajv.validate(rest, value);
        assert.ok(valid, `${tool.name}${path}: default ${JSON.stringify(value)} fails its schema: ${ajv.errorsText(ajv.errors)}`);
        checked += 1;
      }
    }
    // The tools that have defaults declare them (timeouts, snapshot modes...).
    assert.ok(checked >= 15, `only ${checked} defaults declared`);
  });

  it('accept a call that gives each parameter its default', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const tool of tools) {
      const schema = tool.inputSchema;
      const args = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (Object.hasOwn(property, 'default')) args[name] = property.default;
      }
      // Required parameters have no default: give each a value of its type.
      for (const name of schema.required ?? []) {
        const property = schema.properties[name];
        args[name] = property.enum?.[0] ?? { string: 'x', integer: 1, number: 1, boolean: true, array: [], object: {} }[property.type];
      }
      assert.ok(ajv.validate(schema, args), `${tool.name}(${JSON.stringify(args)}): ${ajv.errorsText(ajv.errors)}`);
    }
  });
});
