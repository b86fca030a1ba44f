import { Transform } from 'class-transformer';
import { getMetadataStorage, registerDecorator, ValidationArguments } from 'class-validator';
import { ExtraDefinition, RateLimit, ReplicaWaitSetting } from './app-config';
import { isInvoiceItemNormalType, secondIdentifierProblem } from './invoice-item-rules';
import { isClusterUrl, parseClusterUrl } from './redis-address';

/**
 * The kinds of environment variable (environment.ts declares one decorated property per variable).
 * A variable given is trimmed; empty is unset and keeps the property's default. Its text is read
 * into the property's type by class-transformer, then class-validator checks the value: each
 * problem is one line naming the variable, and never holds a secret's value.
 */

/** The other variables of the environment, for the kinds whose rule depends on one (NODE_ENV, INVOICE_ITEMS_ENDPOINT). */
type Variables = Readonly<Record<string, unknown>>;

interface Kind<T> {
  /** The value of a variable's text; undefined where the text does not read, which `problems` then refuses. */
  read?: (text: string) => T | undefined;
  /** One line per problem of the value, or of the text that did not read; none for a good one. */
  problems: (value: T | string, name: string, variables: Variables) => string[];
}

/** A property decorator that only fits a property of type T: the schema's types and kinds agree. */
type VariableDecorator<T> = <K extends string>(target: { [P in K]?: T }, name: K) => void;

function variable<T>(kind: Kind<T>): VariableDecorator<T> {
  return (target, name) => {
    const read = kind.read;
    if (read) Transform(({ value }: { value: string }) => read(value) ?? value)(target, name);
    const problems = (value: T | string | undefined, args: ValidationArguments) =>
      value === undefined ? [] : kind.problems(value, name, args.object as Variables);
    registerDecorator({
      name: 'environmentVariable',
      target: target.constructor,
      propertyName: name,
      validator: {
        validate: (value: T | string | undefined, args: ValidationArguments) => problems(value, args).length === 0,
        defaultMessage: (args: ValidationArguments) => problems(args.value as T | string | undefined, args).join('\n'),
      },
    });
  };
}

/** The variables a schema class declares, in declaration order (the order its problems are listed in). */
export function variablesOf(schema: new () => object): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(schema, '', false, false);
  return [...new Set(metadata.map((entry) => entry.propertyName))];
}

const refuse = (refused: boolean, line: string): string[] => (refused ? [line] : []);

export function Text(): VariableDecorator<string> {
  return variable<string>({ problems: () => [] });
}

/** Text of a pattern; `problem` says what it must be, without echoing the value. */
export function Matching(pattern: RegExp, problem: string): VariableDecorator<string> {
  return variable<string>({ problems: (value, name) => refuse(!pattern.test(value), `${name} ${problem}`) });
}

export function Integer(min: number, max: number): VariableDecorator<number> {
  return variable<number>({
    read: (text) => (/^\d+$/.test(text) ? Number(text) : undefined),
    problems: (value, name) =>
      refuse(typeof value !== 'number' || value < min || value > max, `${name} must be a whole number from ${min} to ${max}`),
  });
}

/**
 * REDIS_WAIT_REPLICAS: auto, off or a count of replicas. A 0 is refused rather than read as off:
 * the operator who accepts a failover's second card says so in words.
 */
export function ReplicaWait(): VariableDecorator<ReplicaWaitSetting> {
  return variable<ReplicaWaitSetting>({
    read: (text) => {
      const word = text.toLowerCase();
      if (word === 'auto' || word === 'off') return word;
      return /^\d+$/.test(text) ? Number(text) : undefined;
    },
    problems: (value, name) => {
      if (value === 0)
        return [
          `${name}=0 is refused: write ${name}=off if you accept that a Redis failover may take a second card (the default, auto, waits for one replica where the Redis has any)`,
        ];
      const good = value === 'auto' || value === 'off' || (typeof value === 'number' && value >= 1 && value <= 10);
      return refuse(!good, `${name} must be auto, off or a whole number from 1 to 10`);
    },
  });
}

const FLAGS = new Map([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);

/** true or false (1 or 0), in any case. */
export function Flag(): VariableDecorator<boolean> {
  return variable<boolean>({
    read: (text) => FLAGS.get(text.toLowerCase()),
    problems: (value, name) => refuse(typeof value !== 'boolean', `${name} must be true or false`),
  });
}

export function OneOf<T extends string>(...allowed: T[]): VariableDecorator<T> {
  return variable<T>({
    problems: (value, name) => refuse(!(allowed as string[]).includes(value), `${name} must be one of: ${allowed.join(', ')}`),
  });
}

function httpUrlProblem(text: string, production: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (production && url.protocol !== 'https:') return 'must be an https:// URL in production';
  if (url.username || url.password || url.search || url.hash) return 'must not carry credentials, a query or a fragment';
  return undefined;
}

/** An http(s) base URL without credentials, query or fragment (https:// in production); the trailing slash is dropped. */
export function HttpUrl(): VariableDecorator<string> {
  return variable<string>({
    read: (text) => (httpUrlProblem(text, false) === undefined ? text.replace(/\/+$/, '') : undefined),
    problems: (value, name, variables) => {
      const problem = httpUrlProblem(value, variables.NODE_ENV === 'production');
      return problem === undefined ? [] : [`${name} ${problem}`];
    },
  });
}

/** A redis:// or rediss:// URL with a host, or a Redis Cluster (redis-address.ts); problems never echo it, as it may hold a password. */
export function RedisUrl(): VariableDecorator<string> {
  return variable<string>({
    problems: (value, name) => {
      if (isClusterUrl(value)) return parseClusterUrl(value).problems.map((problem) => `${name} ${problem}`);
      try {
        const url = new URL(value);
        if ((url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname) return [];
      } catch {
        // refused below
      }
      return [
        `${name} must be a redis:// or rediss:// URL with a host, or redis+cluster://host:port,host:port (rediss+cluster:// for TLS)`,
      ];
    },
  });
}

const WINDOW_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;
const RATE_PATTERN = /^(\d+)\/([smh])$/;

export function parseRate(text: string): RateLimit | null {
  const match = RATE_PATTERN.exec(text);
  if (!match || Number(match[1]) < 1) return null;
  return { limit: Number(match[1]), windowMs: WINDOW_MS[match[2] as keyof typeof WINDOW_MS], text };
}

/** A default the schema writes, like 60/m: a positive count per s, m or h. */
export function rate(text: string): RateLimit {
  const parsed = parseRate(text);
  if (!parsed) throw new Error(`not a rate: ${text}`);
  return parsed;
}

/** A default the schema writes, like 15/s,120/m,5000/h. */
export function rates(text: string): RateLimit[] {
  return text.split(',').map(rate);
}

export function Rate(): VariableDecorator<RateLimit> {
  return variable<RateLimit>({
    read: (text) => parseRate(text) ?? undefined,
    problems: (value, name) => refuse(typeof value === 'string', `${name} must look like 60/m (a positive count per s, m or h)`),
  });
}

/** Rates separated by commas, like 15/s,120/m,5000/h. */
export function Rates(): VariableDecorator<RateLimit[]> {
  return variable<RateLimit[]>({
    read: (text) => {
      const rates = text.split(',').map((part) => parseRate(part.trim()));
      return rates.every((parsed) => parsed !== null) ? rates : undefined;
    },
    problems: (value, name) => refuse(typeof value === 'string', `${name} must be a comma-separated list like 15/s,120/m,5000/h`),
  });
}

/** The origin an entry names exactly (a path, a query or '*' name none). */
function originOf(entry: string): string | undefined {
  try {
    const url = new URL(entry);
    const isOrigin = (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry.replace(/\/$/, '');
    return isOrigin ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Exact origins separated by commas; one problem per entry that is none. */
export function Origins(): VariableDecorator<string[]> {
  return variable<string[]>({
    read: (text) =>
      text
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
        .map((entry) => originOf(entry) ?? entry),
    problems: (value, name) =>
      (typeof value === 'string' ? [value] : value)
        .filter((entry) => originOf(entry) !== entry)
        .map(
          (entry) =>
            `${name} entries must be exact origins like https://booking.example.com ('*' and paths are not allowed): ${JSON.stringify(entry.slice(0, 80))}`,
        ),
  });
}

function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The catalogue of extras, a JSON array checked against the invoice-item rules of the endpoint INVOICE_ITEMS_ENDPOINT names. */
export function Extras(): VariableDecorator<ExtraDefinition[]> {
  return variable<ExtraDefinition[]>({
    read: (text) => {
      const parsed = json(text);
      return Array.isArray(parsed) ? (parsed as ExtraDefinition[]) : undefined;
    },
    problems: (value, name, variables) => {
      if (typeof value === 'string') {
        return [json(value) === undefined ? `${name} must be valid JSON (an array of extras)` : `${name} must be a JSON array of extras`];
      }
      return catalogueProblems(name, value, variables.INVOICE_ITEMS_ENDPOINT === 'deprecated' ? 'deprecated' : 'current');
    },
  });
}

const EXTRA_CODE_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;
const EXTRA_FIELDS = ['code', 'normalType', 'title', 'amount', 'secondIdentifier', 'description'];

function catalogueProblems(name: string, entries: unknown[], endpoint: 'current' | 'deprecated'): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  entries.forEach((entry: unknown, index) => {
    const where = `${name}[${index}]`;
    const problemsBefore = problems.length;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${where} must be an object`);
      return;
    }
    const item = entry as Record<string, unknown>;
    for (const key of Object.keys(item)) {
      if (!EXTRA_FIELDS.includes(key)) problems.push(`${where} has an unknown field "${key}"`);
    }
    if (typeof item.code !== 'string' || !EXTRA_CODE_PATTERN.test(item.code)) {
      problems.push(`${where} code must be 1-40 letters, digits, "_" or "-"`);
    } else if (seen.has(item.code)) {
      problems.push(`${where} code "${item.code}" is listed twice`);
    }
    if (!isInvoiceItemNormalType(item.normalType))
      problems.push(`${where} normalType must be one of the invoice-item types (AF is not allowed)`);
    if (typeof item.title !== 'string' || item.title.trim() === '' || item.title.length > 200)
      problems.push(`${where} title must be a non-empty string`);
    if (typeof item.amount !== 'number' || !Number.isFinite(item.amount) || item.amount <= 0)
      problems.push(`${where} amount must be a positive number`);
    for (const key of ['secondIdentifier', 'description'] as const) {
      if (item[key] !== undefined && typeof item[key] !== 'string') problems.push(`${where} ${key} must be a string`);
    }
    if (typeof item.normalType === 'string') {
      const pairProblem = secondIdentifierProblem(item.normalType, item.secondIdentifier as string | undefined, endpoint);
      if (pairProblem) problems.push(`${where} ${pairProblem}`);
    }
    if (problems.length === problemsBefore) seen.add(item.code as string);
  });
  return problems;
}
