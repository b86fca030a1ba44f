/**
 * The platform's published reference (docs/upstream-reference/open-api-subset.json) as the gate of
 * every /v1 request: what its parameters or body schema would refuse is refused here too (400,
 * before the route's own rules) and recorded as a contract violation, which fails the e2e suite
 * (test/utils/contract-gate.ts), so a request drifting from the reference cannot pass unseen.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FieldProblem } from '../http/errors';

type Schema = Record<string, unknown>;

interface ReferenceParameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: Schema;
}

interface ReferenceOperation {
  /** What of this copy is our reading, not the platform's publication (docs/upstream-reference/README.md). */
  'x-inferred'?: string;
  responses?: Record<string, unknown>;
  parameters?: ReferenceParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
}

export interface ReferenceDocument {
  paths: Record<string, Record<string, ReferenceOperation>>;
}

/** How the product identifies itself to the platform (src/upstream/upstream-http.ts); the gate fails the suite on its requests. */
export const PRODUCT_USER_AGENT_PREFIX = 'booking-checkout-service/';

const REFERENCE_FILE = path.join('docs', 'upstream-reference', 'open-api-subset.json');

/** From the source tree or its build (dist/sandbox/…), the repository's copy of the reference; undefined outside a checkout. */
function referenceFile(): string | undefined {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, REFERENCE_FILE);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

let reference: ReferenceDocument | null | undefined;

export function loadReference(): ReferenceDocument | null {
  if (reference === undefined) {
    const file = referenceFile();
    reference = file ? (JSON.parse(readFileSync(file, 'utf8')) as ReferenceDocument) : null;
  }
  return reference;
}

/**
 * How far the reference copy of an operation is the platform's word: `published`, `inferred` where
 * part of it is our reading (`x-inferred`: a request or answer checked against it proves only that the
 * sandbox and the product share a guess), `absent` where the copy has no such operation.
 */
export function referenceStanding(method: string, route: string): 'published' | 'inferred' | 'absent' {
  const operation = loadReference()?.paths[route]?.[method.toLowerCase()];
  if (!operation) return 'absent';
  return operation['x-inferred'] ? 'inferred' : 'published';
}

/**
 * The reference's one self-contradiction a request meets: `reservedUntil` is `type: string` (example
 * "-1") while its enum lists -1, 0.5, 0.25, 0.17 as numbers, so no fraction could pass both. The gate
 * reads such enum members in the declared type's form ("0.5"), as the example does (docs/upstream.md).
 */
function enumsInDeclaredType(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(enumsInDeclaredType);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = enumsInDeclaredType(value);
  if (copy.type === 'string' && Array.isArray(copy.enum))
    copy.enum = (copy.enum as unknown[]).map((member) => (typeof member === 'number' ? String(member) : member));
  return copy;
}

const FORMATS = {
  date: /^\d{4}-\d{2}-\d{2}$/,
  'YYYY-MM-DD': /^\d{4}-\d{2}-\d{2}$/,
  'date-time': (value: string) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)),
};

/** strict off: the reference carries OpenAPI keywords (example, deprecated) that are not JSON Schema. */
export function referenceAjv(options: { coerceTypes?: boolean | 'array' } = {}): Ajv {
  return new Ajv({ strict: false, allErrors: true, formats: FORMATS, ...options });
}

export interface Validators {
  /** Query parameters arrive as text: coerced to the declared type first, as the platform reads them. */
  query?: ValidateFunction;
  body?: ValidateFunction;
  bodyRequired: boolean;
}

let bodyAjv: Ajv | undefined;
let queryAjv: Ajv | undefined;
const compiled = new Map<string, Validators | null>();

export function compileRequestValidators(method: string, route: string): Validators | null {
  const key = `${method} ${route}`;
  if (compiled.has(key)) return compiled.get(key) ?? null;
  const operation = loadReference()?.paths[route]?.[method.toLowerCase()];
  let validators: Validators | null = null;
  if (operation) {
    const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query' && parameter.schema);
    const json = Object.entries(operation.requestBody?.content ?? {}).find(([type]) => type.startsWith('application/json'))?.[1].schema;
    validators = {
      query:
        query.length === 0
          ? undefined
          : (queryAjv ??= referenceAjv({ coerceTypes: 'array' })).compile({
              type: 'object',
              properties: Object.fromEntries(query.map((parameter) => [parameter.name, enumsInDeclaredType(parameter.schema)])),
              required: query.filter((parameter) => parameter.required).map((parameter) => parameter.name),
            }),
      body: json ? (bodyAjv ??= referenceAjv()).compile(enumsInDeclaredType(json) as Schema) : undefined,
      bodyRequired: operation.requestBody?.required === true,
    };
  }
  compiled.set(key, validators);
  return validators;
}

/** `/realizationDates/0/date` → `realizationDates[0].date`, as the sandbox's own rules name fields. */
function fieldName(pointer: string): string {
  return pointer
    .split('/')
    .filter((part) => part !== '')
    .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name === '' ? part : `${name}.${part}`), '');
}

function problemsOf(errors: ErrorObject[] | null | undefined, whole: string): FieldProblem[] {
  const problems = new Map<string, FieldProblem>();
  for (const error of errors ?? []) {
    // oneOf's own line says nothing its branches' lines do not.
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf') continue;
    const missing = error.keyword === 'required' ? `/${String((error.params as { missingProperty: string }).missingProperty)}` : '';
    const field = fieldName(`${error.instancePath}${missing}`) || whole;
    const message =
      error.keyword === 'required'
        ? 'is required'
        : error.keyword === 'enum'
          ? `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
          : (error.message ?? error.keyword);
    problems.set(`${field} ${message}`, { field, message });
  }
  return [...problems.values()];
}

/**
 * The status the platform refuses an invalid request of this operation with: 400 where the reference
 * documents one, else its 422 (the calendar's and the status change's validation answer).
 */
export function refusalStatusOf(method: string, route: string): 400 | 422 {
  const responses = loadReference()?.paths[route]?.[method.toLowerCase()]?.responses ?? {};
  return '400' in responses || !('422' in responses) ? 400 : 422;
}

/** What the reference refuses in this request (none when it publishes nothing for the operation). */
export function requestProblems(
  method: string,
  route: string,
  query: URLSearchParams,
  body: { contentType: string | undefined; raw: Buffer },
): FieldProblem[] {
  const validators = compileRequestValidators(method, route);
  if (!validators) return [];
  const problems: FieldProblem[] = [];
  if (validators.query) {
    // An array parameter may come as repeated keys or as `name[]` (the form public integrations of
    // reservations-v3 send, docs/upstream.md): both read as one array; a lone key stays a string.
    const given: Record<string, unknown> = {};
    for (const [key, value] of query) {
      const name = key.endsWith('[]') ? key.slice(0, -2) : key;
      const before = given[name];
      const earlier: unknown[] = Array.isArray(before) ? (before as unknown[]) : [before];
      given[name] = before === undefined ? (key.endsWith('[]') ? [value] : value) : [...earlier, value];
    }
    if (!validators.query(given)) problems.push(...problemsOf(validators.query.errors, 'query'));
  }
  if (validators.body) {
    const isJson = (body.contentType ?? '').split(';')[0].trim().toLowerCase() === 'application/json';
    if (body.raw.length === 0 && validators.bodyRequired) problems.push({ field: 'body', message: 'is required' });
    else if (isJson && body.raw.length > 0) {
      // A body that is not JSON at all is the route's own 400 (parseJsonObject).
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.raw.toString('utf8'));
      } catch {
        return problems;
      }
      if (!validators.body(parsed)) problems.push(...problemsOf(validators.body.errors, 'body'));
    }
  }
  return problems;
}
