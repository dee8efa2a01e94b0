// Typing by the schema: a response's values take the types its documented schema gives them,
// whatever their magnitude. Ids the schema types as strings are strings even when the upstream
// handed over a number (aiograpi types Media.pk Union[str, int]: an early post's pk arrives as
// 12345678), and integers the schema types as integers stay integers even past 2^53, where the
// sidecar has to carry them as decimal strings (JSON.parse in Node would round them): those are
// written to the body as exact integer literals. Where the schema says nothing (raw payloads,
// open objects), values stay as the upstream sent them.
//
// One typer per route is compiled at boot from its response schema; the engine applies it only for
// an upstream whose results need it (UpstreamAdapter.resultsNeedTyping): the sandbox already emits
// schema-typed values and its hot path stays as it was.
import { randomBytes } from 'node:crypto';
import { COMPONENT_PREFIX } from './manifest/refs.js';
import type { JsonSchema, JsonText } from './types.js';

type Plan =
  | { readonly kind: 'string' | 'integer' | 'any' }
  | { readonly kind: 'object'; readonly properties: ReadonlyMap<string, Plan>; readonly rest?: Plan }
  | { readonly kind: 'array'; readonly items: Plan };

const ANY: Plan = { kind: 'any' };
const DIGITS = /^-?\d+$/;

/** Returns the typed body; a body with integers past 2^53 becomes JSON text that writes them exactly. */
export type Typer = (body: unknown) => unknown;

export function compileTyper(schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>): Typer | undefined {
  const plan = planFor(schema, components, new Map());
  if (plan.kind === 'any') return undefined;
  return (body) => {
    const big = { found: false };
    const typed = apply(body, plan, big);
    return big.found ? exactJson(typed) : typed;
  };
}

// -- Plans: the schema reduced to what typing needs ---------------------------------------------

function planFor(schema: unknown, components: Readonly<Record<string, JsonSchema>>, seen: Map<string, Plan>): Plan {
  if (!schema || typeof schema !== 'object') return ANY;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') return planForRef(s.$ref, components, seen);
  const alternatives = (s.anyOf ?? s.oneOf ?? s.allOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return merge(alternatives.map((alt) => planFor(alt, components, seen)));
  const types = new Set(Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : []);
  if (types.has('object') || s.properties) return objectPlan(s, components, seen);
  if (types.has('array')) return { kind: 'array', items: planFor(s.items, components, seen) };
  // A value the schema allows either way keeps its type: only one-sided schemas convert.
  if (types.has('string') && !types.has('integer') && !types.has('number')) return { kind: 'string' };
  if (types.has('integer') && !types.has('string')) return { kind: 'integer' };
  return ANY;
}

function planForRef(ref: string, components: Readonly<Record<string, JsonSchema>>, seen: Map<string, Plan>): Plan {
  const name = ref.startsWith(COMPONENT_PREFIX) ? ref.slice(COMPONENT_PREFIX.length) : ref;
  const known = seen.get(name);
  if (known) return known;
  // A record that contains itself (a comment's replies): the placeholder is filled in below.
  const placeholder = { kind: 'object', properties: new Map<string, Plan>() } as { kind: 'object'; properties: Map<string, Plan>; rest?: Plan };
  seen.set(name, placeholder);
  const plan = planFor(components[name], components, seen);
  if (plan.kind === 'object') {
    for (const [key, value] of plan.properties) placeholder.properties.set(key, value);
    placeholder.rest = plan.rest;
    return placeholder;
  }
  seen.set(name, plan);
  return plan;
}

function objectPlan(s: Record<string, unknown>, components: Readonly<Record<string, JsonSchema>>, seen: Map<string, Plan>): Plan {
  const properties = new Map<string, Plan>();
  for (const [key, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
    const plan = planFor(sub, components, seen);
    if (plan.kind !== 'any') properties.set(key, plan);
  }
  const rest = typeof s.additionalProperties === 'object' ? planFor(s.additionalProperties, components, seen) : undefined;
  if (properties.size === 0 && (!rest || rest.kind === 'any')) return ANY;
  return { kind: 'object', properties, ...(rest && rest.kind !== 'any' ? { rest } : {}) };
}

/** Alternatives agree on a leaf type, or their object fields are pooled; otherwise nothing is converted. */
function merge(plans: readonly Plan[]): Plan {
  const useful = plans.filter((p) => p.kind !== 'any');
  if (useful.length === 0) return ANY;
  if (useful.every((p) => p.kind === 'object')) {
    const properties = new Map<string, Plan>();
    for (const plan of useful as Extract<Plan, { kind: 'object' }>[])
      for (const [key, value] of plan.properties) if (!properties.has(key)) properties.set(key, value);
    return { kind: 'object', properties };
  }
  return useful.every((p) => p.kind === useful[0].kind && p.kind !== 'array') ? useful[0] : ANY;
}

// -- Applying a plan (the value is the upstream's fresh JSON: typed in place) ------------------

function apply(value: unknown, plan: Plan, big: { found: boolean }): unknown {
  switch (plan.kind) {
    case 'string':
      return typeof value === 'number' ? String(value) : value;
    case 'integer':
      return typeof value === 'string' && DIGITS.test(value) ? integer(value, big) : value;
    case 'array':
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = apply(value[i], plan.items, big);
      return value;
    case 'object':
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        const record = value as Record<string, unknown>;
        for (const key of Object.keys(record)) {
          const sub = plan.properties.get(key) ?? plan.rest;
          if (sub) record[key] = apply(record[key], sub, big);
        }
      }
      return value;
    default:
      return value;
  }
}

function integer(text: string, big: { found: boolean }): number | bigint {
  const n = Number(text);
  if (Number.isSafeInteger(n)) return n;
  big.found = true;
  return BigInt(text);
}

// -- Exact JSON for integers past 2^53 ---------------------------------------------------------

// A marker no upstream string can contain (a NUL and a random tag fixed at boot): BigInts become
// marked strings while stringifying, then the quotes and the marker are dropped from the text.
const MARK = `\u0000${randomBytes(6).toString('hex')}:`;
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replace(/\\/g, '\\\\')}(-?\\d+)"`, 'g');

export function exactJson(value: unknown): JsonText {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? MARK + v.toString() : v));
  return { kind: 'json', text: text.replace(MARKED, '$1') };
}
