// The suite's oracle: what a client's conversion may not lose, and the
// documented schema subsets whose only check is on the provider's side.

// descriptionLimit is OpenAI's limit on a function description, the
// lowest of the common ones.
export const descriptionLimit = 1024;

// Gemini's Schema object (function declarations), per its API reference.
const geminiFields = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'minItems',
  'maxItems', 'properties', 'required', 'minProperties', 'maxProperties', 'minLength', 'maxLength',
  'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum']);
const geminiTypes = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const geminiFormats = { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] };

// OpenAI strict mode (Structured Outputs), per its guide: the supported
// keywords; every object closed with every property required.
const strictFields = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'anyOf',
  'enum', 'const', 'description', 'title', '$defs', '$ref', 'pattern', 'format', 'minimum', 'maximum',
  'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems']);
const strictFormats = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

// children calls fn on every subschema of s.
function children(s, fn) {
  for (const k of ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else', 'propertyNames']) {
    if (isObj(s[k])) fn(s[k]);
  }
  for (const k of ['anyOf', 'oneOf', 'allOf', 'any_of', 'prefixItems']) {
    if (Array.isArray(s[k])) s[k].forEach((x) => isObj(x) && fn(x));
  }
  for (const k of ['properties', 'patternProperties', '$defs', 'defs']) {
    if (isObj(s[k])) Object.values(s[k]).forEach((x) => isObj(x) && fn(x));
  }
}

// inline replaces local $refs by their targets (a cycle, or beyond depth
// 12, is left as a marker), so two schemas compare by what they accept.
function inline(s, root, depth = 0, seen = []) {
  if (!isObj(s)) return s;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    if (seen.includes(s.$ref) || depth > 12) return { recursive: s.$ref };
    let t = root;
    for (const part of s.$ref.slice(2).split('/')) t = t?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    const { $ref, ...rest } = s;
    return inline({ ...t, ...rest }, root, depth + 1, [...seen, s.$ref]);
  }
  const out = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$defs' || k === 'defs' || k === 'definitions') continue;
    if (['properties', 'patternProperties'].includes(k) && isObj(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([n, x]) => [n, inline(x, root, depth + 1, seen)]));
    } else if (Array.isArray(v) && ['anyOf', 'oneOf', 'allOf', 'any_of', 'prefixItems'].includes(k)) {
      out[k] = v.map((x) => inline(x, root, depth + 1, seen));
    } else if (isObj(v) && ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else', 'propertyNames'].includes(k)) {
      out[k] = inline(v, root, depth + 1, seen);
    } else {
      out[k] = v;
    }
  }
  return out;
}

const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const constraintKeys = ['pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum',
  'exclusiveMaximum', 'multipleOf', 'enum', 'format', 'minItems', 'maxItems', 'uniqueItems', 'minProperties',
  'maxProperties', 'default', 'oneOf', 'allOf', 'not', 'items', 'prefixItems', 'contains', 'patternProperties',
  'propertyNames', 'dependentRequired', 'if'];

// acceptsNull: a schema that says nothing of types accepts null too.
const typeless = (s) => s.type === undefined && !s.anyOf && !s.any_of && !s.oneOf && !s.enum && s.const === undefined &&
  !s.properties && !s.items && !s.$ref;
const acceptsNull = (s) => typeless(s) || s.nullable === true || s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) ||
  (String(s.type).toUpperCase() === 'NULL') ||
  (Array.isArray(s.anyOf ?? s.any_of) && (s.anyOf ?? s.any_of).some((x) => isObj(x) && acceptsNull(x)));

// counts tallies, over a whole schema, each constraint keyword, declared
// property, required name, open map and property a caller may leave out.
// The root is the argument object, not a map: closing an empty one drops
// nothing.
function counts(schema) {
  const c = {};
  const add = (k, n = 1) => { c[k] = (c[k] ?? 0) + n; };
  const walk = (s) => {
    for (const [raw, v] of Object.entries(s)) {
      if (v === null || v === undefined) continue;
      const k = raw === 'const' ? 'enum' : camel(raw);
      // An empty schema ({}) asserts nothing: dropping it loses nothing.
      if (constraintKeys.includes(k) && !(isObj(v) && Object.keys(v).length === 0)) add(k);
    }
    const props = isObj(s.properties) ? Object.keys(s.properties) : [];
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    add('property', props.length);
    for (const n of props) {
      const p = s.properties[n];
      if (required.has(n)) add('required name');
      if (!required.has(n) || (isObj(p) && acceptsNull(p))) add('optional property');
    }
    const type = String(s.type ?? '').toLowerCase();
    if (s !== schema && (type === 'object' || type.includes('object')) && props.length === 0 && s.additionalProperties !== false && !s.anyOf && !s.oneOf) add('open map');
    if (isObj(s.additionalProperties) && Object.keys(s.additionalProperties).length > 0) add('map value schema');
    children(s, walk);
  };
  walk(schema);
  return c;
}

// lost names what after (a client's conversion of before) no longer says.
export function lost(before, after) {
  if (!isObj(after)) return [`schema became ${JSON.stringify(after)}`];
  const b = counts(inline(before, before));
  const a = counts(inline(after, after));
  const out = [];
  for (const [k, n] of Object.entries(b)) {
    if ((a[k] ?? 0) < n) out.push(k === 'optional property' ? `${n - (a[k] ?? 0)} optional properties made required without null`
      : k === 'required name' ? `drops ${n - (a[k] ?? 0)} required names` : `drops ${k} (${n} -> ${a[k] ?? 0})`);
  }
  return out;
}

function walkAll(s, fn, depth = 1) {
  if (!isObj(s)) return;
  fn(s, depth);
  children(s, (x) => walkAll(x, fn, depth + 1));
}

// geminiSubset names what s holds that Gemini's Schema object does not.
export function geminiSubset(s) {
  const out = new Set();
  walkAll(s, (n) => {
    for (const k of Object.keys(n)) if (!geminiFields.has(k)) out.add(k);
    if (n.type !== undefined) {
      if (typeof n.type !== 'string' || !geminiTypes.has(n.type.toLowerCase())) out.add(`type ${JSON.stringify(n.type)}`);
      else if (n.format !== undefined && !(geminiFormats[n.type.toLowerCase()] ?? []).includes(n.format)) out.add(`format ${n.format}`);
    }
    if (Array.isArray(n.enum) && n.enum.some((v) => typeof v !== 'string')) out.add('enum of non-strings');
  });
  return [...out].sort();
}

// openAIStrict names what s breaks of the strict-mode rules.
export function openAIStrict(s) {
  const out = new Set();
  if (s.type !== 'object' || s.anyOf) out.add('root is not a plain object');
  walkAll(s, (n) => {
    for (const k of Object.keys(n)) if (!strictFields.has(k)) out.add(k);
    if (typeof n.format === 'string' && !strictFormats.has(n.format)) out.add(`format ${n.format}`);
    if (n.type === 'object' || (Array.isArray(n.type) && n.type.includes('object'))) {
      if (n.additionalProperties !== false) out.add('object not closed');
      const req = new Set(n.required ?? []);
      if (Object.keys(n.properties ?? {}).some((p) => !req.has(p))) out.add('property not required');
    }
  });
  return [...out].sort();
}
