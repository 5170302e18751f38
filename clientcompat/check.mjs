// Runs the npm client libraries' own tool-schema conversion code, offline,
// over tools/list answers, and reports per tool whether each path accepts
// the tool unchanged.
//
// Usage: node check.mjs NODE_MODULES_DIR TOOLS.json [PYTHON.jsonl]
// PYTHON.jsonl is check.py's output: the Python SDKs' conversions, judged
// here by the same rules.
// TOOLS.json: {"servers": [{"server": "petstore", "identity": "x",
//   "tools": [<tools/list entries>]}]}; the JS paths read the entries listed
// under the identity their MCP client sends (listedAs below).
// Output: one JSON line per (server, path, tool):
//   {"server", "path", "tool", "problems": ["..."]} (empty problems: accepted).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import * as rules from './rules.mjs';

const [modulesDir, toolsFile, pythonFile] = process.argv.slice(2);
const resolver = createRequire(path.join(modulesDir, 'resolver.js'));
const load = async (spec) => import(pathToFileURL(resolver.resolve(spec)).href);

const genai = await load('@google/genai');
const aisdk = await load('@ai-sdk/google');
const agents = await load('@openai/agents-core');
const langchain = await load('@langchain/mcp-adapters');
const ajv = await load('@modelcontextprotocol/sdk/validation/ajv');

// Silence the libraries' own warnings (strict fallbacks are detected from
// the returned tool, not from the log).
console.warn = () => {};
console.info = () => {};
console.debug = () => {};

const fakeClient = (tools) => ({
  listTools: async () => ({ tools: structuredClone(tools) }),
  callTool: async () => ({ content: [] }),
  getServerVersion: () => ({ name: 'server', version: '1' }),
});

// paths: each gets every tool of one server and returns, per tool name, the
// problems found. listedAs is the clientInfo name the path's MCP client
// sends: @langchain/mcp-adapters names its client after its package; the
// other libraries take a client the application names.
const paths = [
  {
    name: 'genai-js', listedAs: 'app',
    // mcpToTool is the SDK's MCP adapter: it turns each MCP tool into a
    // function declaration sent to Gemini as is (parametersJsonSchema).
    run: async (tools) => {
      const out = {};
      let decls;
      try {
        decls = (await genai.mcpToTool(fakeClient(tools)).tool()).functionDeclarations;
      } catch (e) {
        for (const t of tools) out[t.name] = [`mcpToTool threw: ${e.message}`];
        return out;
      }
      for (const t of tools) {
        const d = decls.find((x) => x.name === t.name);
        const p = [];
        p.push(...rules.lost(t.inputSchema, d.parametersJsonSchema).map((k) => `input: ${k}`));
        p.push(...rules.geminiSubset(d.parametersJsonSchema).map((k) => `input sent to Gemini: ${k}`));
        // The output schema goes out as responseJsonSchema, JSON Schema
        // proper: it must stay exact, since the MCP client validates
        // structuredContent against it (mcp-sdk-js below).
        if (t.outputSchema) p.push(...rules.lost(t.outputSchema, d.responseJsonSchema).map((k) => `output: ${k}`));
        if (t.description && t.description.length > rules.descriptionLimit) p.push(`description of ${t.description.length} characters`);
        out[t.name] = p;
      }
      return out;
    },
  },
  {
    name: 'ai-sdk-google', listedAs: 'app',
    // The provider's own request builder, with a fetch that captures the
    // request body instead of sending it.
    run: async (tools) => {
      const out = {};
      for (const t of tools) {
        let body;
        const provider = aisdk.createGoogleGenerativeAI({
          apiKey: 'offline',
          fetch: async (_url, init) => {
            body = JSON.parse(init.body);
            return new Response(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] }),
              { status: 200, headers: { 'content-type': 'application/json' } });
          },
        });
        const p = [];
        try {
          const res = await provider('gemini-2.5-flash').doGenerate({
            prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
            tools: [{ type: 'function', name: t.name, description: t.description, inputSchema: structuredClone(t.inputSchema) }],
          });
          for (const w of res.warnings ?? []) p.push(`warning: ${w.type} ${w.feature ?? w.setting ?? ''} ${w.details ?? ''}`.trim());
          const sent = body.tools.flatMap((x) => x.functionDeclarations ?? [])[0];
          const schema = sent.parametersJsonSchema ?? sent.parameters;
          p.push(...rules.lost(t.inputSchema, schema).map((k) => `input: ${k}`));
          p.push(...rules.geminiSubset(schema).map((k) => `input sent to Gemini: ${k}`));
        } catch (e) {
          p.push(`doGenerate threw: ${e.message}`);
        }
        out[t.name] = p;
      }
      return out;
    },
  },
  {
    name: 'openai-agents-js', listedAs: 'app',
    // mcpToFunctionTool with convertSchemasToStrict: a tool that comes back
    // non-strict was refused by strict mode.
    run: async (tools) => {
      const out = {};
      for (const t of tools) {
        const p = [];
        try {
          const ft = agents.mcpToFunctionTool(structuredClone(t), { name: 'server' }, true);
          // A tool without inputs has nothing to be strict about: the
          // fallback changes nothing a model can send.
          const noInputs = Object.keys(t.inputSchema.properties ?? {}).length === 0 && !t.inputSchema.anyOf;
          if (ft.strict !== true && !noInputs) {
            p.push('fell back to non-strict');
          } else {
            p.push(...rules.lost(t.inputSchema, ft.parameters).map((k) => `input: ${k}`));
            if (ft.strict === true) p.push(...rules.openAIStrict(ft.parameters).map((k) => `strict rules: ${k}`));
          }
        } catch (e) {
          p.push(`mcpToFunctionTool threw: ${e.message}`);
        }
        if (t.description && t.description.length > rules.descriptionLimit) p.push(`description of ${t.description.length} characters`);
        out[t.name] = p;
      }
      return out;
    },
  },
  {
    name: 'langchain-mcp', listedAs: '@langchain/mcp-adapters',
    // loadMcpTools dereferences and simplifies each schema for the model.
    run: async (tools) => {
      const out = {};
      let loaded;
      try {
        loaded = await langchain.loadMcpTools('server', fakeClient(tools), { throwOnLoadError: false });
      } catch (e) {
        for (const t of tools) out[t.name] = [`loadMcpTools threw: ${e.message}`];
        return out;
      }
      for (const t of tools) {
        const lt = loaded.find((x) => x.name === t.name);
        out[t.name] = lt ? rules.lost(t.inputSchema, lt.schema).map((k) => `input: ${k}`) : ['not loaded'];
      }
      return out;
    },
  },
  {
    name: 'mcp-sdk-js', listedAs: 'app',
    // The client's validator (Ajv) compiles each outputSchema to check
    // structuredContent, and the input schema for the application.
    run: async (tools) => {
      const out = {};
      const v = new ajv.AjvJsonSchemaValidator();
      for (const t of tools) {
        const p = [];
        for (const [what, s] of [['input', t.inputSchema], ['output', t.outputSchema]]) {
          if (!s) continue;
          try {
            v.getValidator(s);
          } catch (e) {
            p.push(`${what} schema does not compile: ${e.message}`);
          }
        }
        out[t.name] = p;
      }
      return out;
    },
  },
];

const input = JSON.parse(readFileSync(toolsFile, 'utf8'));
for (const p of paths) {
  for (const srv of input.servers.filter((s) => s.identity === p.listedAs)) {
    const res = await p.run(srv.tools);
    for (const t of srv.tools) {
      process.stdout.write(JSON.stringify({ server: srv.server, path: p.name, tool: t.name, problems: res[t.name] ?? ['no result'] }) + '\n');
    }
  }
}

// camelKeys renames a pydantic dump's snake_case fields as JSON Schema
// spells them.
const camelKeys = (v) => Array.isArray(v) ? v.map(camelKeys)
  : (typeof v === 'object' && v !== null) ? Object.fromEntries(Object.entries(v).map(([k, x]) =>
    [k === 'properties' ? k : k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), k === 'properties'
      ? Object.fromEntries(Object.entries(x).map(([n, y]) => [n, camelKeys(y)])) : camelKeys(x)]))
    : v;

if (pythonFile) {
  for (const line of readFileSync(pythonFile, 'utf8').split('\n').filter(Boolean)) {
    const r = JSON.parse(line);
    const p = [];
    if (r.error) {
      p.push(`refused: ${r.error}`);
    } else {
      const after = r.path.startsWith('genai') ? camelKeys(r.after) : r.after;
      p.push(...rules.lost(r.before, after).map((k) => `input: ${k}`));
      if (r.path.startsWith('genai')) {
        p.push(...rules.geminiSubset(after).map((k) => `input sent to Gemini: ${k}`));
      } else {
        p.push(...rules.openAIStrict(after).map((k) => `strict rules: ${k}`));
      }
    }
    if (r.description) p.push(`description of ${r.description} characters`);
    process.stdout.write(JSON.stringify({ server: r.server, path: r.path, tool: r.tool, problems: p }) + '\n');
  }
}
