/**
 * A fixture file (`.hookbench/fixtures/<name>.json`): one recorded delivery, saved from the
 * Deliveries view, that `hookbench send --fixture`, `hookbench replay` and the Send command send
 * again, re-signed. Declared once here for the extension that writes it and the CLI that reads
 * it, with the one reader both use: a broken file gets an error naming the file and the field.
 *
 * Never in a fixture: signature headers and anything secret-bearing (they are re-signed on send).
 */
import { PROVIDERS, type ProviderName } from './providers';

/** The `format` value of every fixture this version writes and reads. */
export const FIXTURE_FORMAT = 'hookbench-fixture/1';

/** How far in the past a fixture may ask to be signed: a year. */
const MAX_SIGNED_AGO = 365 * 24 * 3600;

/** Fixtures are small files; anything bigger is not one (the deliveries log caps bodies lower). */
export const MAX_FIXTURE_BYTES = 8 * 1024 * 1024;

/** The request as received, minus what is re-signed or secret. */
export interface FixtureRequest {
  readonly method: string;
  /** The path, starting with `/`, without the query. */
  readonly path: string;
  /** The query string without `?`, as received ('' when none). */
  readonly query: string;
  /** Lower-case names; no signature, cookie, authorization or token headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body: the bytes as UTF-8 text when they are valid UTF-8, else their base64. */
  readonly body: string;
  readonly bodyEncoding: 'utf8' | 'base64';
}

/** What the suite expects when the fixture is sent again (recorded when it was saved). */
export interface FixtureExpect {
  /** The answer's status. */
  readonly status?: number;
  /** Any answer outside 2xx will do: a stale chaos copy must be refused, whatever the status (docs/chaos.md). */
  readonly refused?: true;
  /** The entity's agent state after the delivery, as the agents protocol broadcasts it. */
  readonly state?: unknown;
  /** Dotted paths into the state left out of the comparison (times that differ on every run). */
  readonly ignore?: readonly string[];
}

export interface Fixture {
  readonly format: typeof FIXTURE_FORMAT;
  readonly name: string;
  readonly provider: ProviderName;
  /** The entity (agent instance name) the delivery reached, when the worker said. */
  readonly entity?: string;
  /** The agent's URL segment (`/agents/<agent>/<entity>`) whose state `expect.state` is. */
  readonly agent?: string;
  readonly request: FixtureRequest;
  readonly expect?: FixtureExpect;
  /**
   * Fixtures next to each other with the same `burst` are sent at once, as `hookbench chaos`
   * writes a `concurrent` case (docs/chaos.md, "Replaying a failure").
   */
  readonly burst?: number;
  /** Signed this many seconds in the past: a `stale` case's copy, outside the provider's tolerance. */
  readonly signedAgo?: number;
  /** When and from which delivery it was saved. Informational. */
  readonly recorded?: { readonly at: string; readonly delivery?: string };
}

/** A fixture that cannot be used: `file: field: what is wrong`. */
export class FixtureError extends Error {
  constructor(
    readonly file: string,
    readonly field: string | undefined,
    problem: string,
  ) {
    super(`${file}: ${field === undefined ? '' : `${field}: `}${problem}`);
    this.name = 'FixtureError';
  }
}

/** A fixture's name: what its file is called, so nothing that could leave the folder. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** True when `name` is a fixture name: letters, digits, `.`, `_`, `-`, not starting with a dot, no `..`. */
export function isFixtureName(name: string): boolean {
  return NAME.test(name) && !name.includes('..');
}

/** A fixture name made from free text ("github push acme/widgets" → "github-push-acme-widgets"). */
export function fixtureNameFrom(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
    .slice(0, 90)
    .replace(/[^A-Za-z0-9]+$/, '');
  return slug === '' ? 'fixture' : slug;
}

/** The file a fixture named `name` lives in, inside `directory`; throws for a name that is not one. */
export function fixtureFileName(name: string): string {
  if (!isFixtureName(name)) throw new FixtureError(name, 'name', 'a fixture name is letters, digits, ".", "_" and "-", up to 100, not starting with a dot');
  return `${name}.json`;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Field readers that name the field in their error. */
function reader(file: string) {
  const fail = (field: string, problem: string): never => {
    throw new FixtureError(file, field, problem);
  };
  return {
    fail,
    object: (value: unknown, field: string): Json => (isObject(value) ? value : fail(field, 'must be an object')),
    string: (value: unknown, field: string): string => (typeof value === 'string' ? value : fail(field, 'must be a string')),
    optionalString: (value: unknown, field: string): string | undefined =>
      value === undefined ? undefined : typeof value === 'string' ? value : fail(field, 'must be a string'),
  };
}

const HTTP_METHOD = /^[A-Z]{1,16}$/;

function readRequest(value: unknown, file: string): FixtureRequest {
  const r = reader(file);
  const request = r.object(value, 'request');
  const method = r.string(request['method'] ?? 'POST', 'request.method');
  if (!HTTP_METHOD.test(method)) r.fail('request.method', `"${method.slice(0, 20)}" is not an HTTP method`);
  const path = r.string(request['path'], 'request.path');
  // Only a path on whatever receiver the fixture is sent to: never a full URL or a scheme-relative one.
  if (!path.startsWith('/') || path.startsWith('//') || /[\s?#]/.test(path))
    r.fail('request.path', 'must be a path starting with "/", without spaces, "?" or "#"');
  const query = r.string(request['query'] ?? '', 'request.query');
  if (/[\s#]/.test(query) || query.startsWith('?')) r.fail('request.query', 'must be a query string without "?", spaces or "#"');
  const rawHeaders = r.object(request['headers'] ?? {}, 'request.headers');
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(rawHeaders)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) r.fail(`request.headers`, `"${name.slice(0, 40)}" is not a header name`);
    const text = r.string(v, `request.headers.${name}`);
    if (/[\r\n\0]/.test(text)) r.fail(`request.headers.${name}`, 'must not contain line breaks');
    headers[name.toLowerCase()] = text;
  }
  const bodyEncoding = request['bodyEncoding'] ?? 'utf8';
  if (bodyEncoding !== 'utf8' && bodyEncoding !== 'base64') r.fail('request.bodyEncoding', 'must be "utf8" or "base64"');
  const body = r.string(request['body'] ?? '', 'request.body');
  if (bodyEncoding === 'base64' && !/^[A-Za-z0-9+/]*={0,2}$/.test(body.replace(/\s/g, ''))) r.fail('request.body', 'is not base64 (bodyEncoding is "base64")');
  return { method, path, query, headers, body, bodyEncoding: bodyEncoding as 'utf8' | 'base64' };
}

function readExpect(value: unknown, file: string): FixtureExpect | undefined {
  if (value === undefined) return undefined;
  const r = reader(file);
  const expect = r.object(value, 'expect');
  const status = expect['status'];
  if (status !== undefined && (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599))
    r.fail('expect.status', 'must be an HTTP status (100–599)');
  const refused = expect['refused'];
  if (refused !== undefined && refused !== true) r.fail('expect.refused', 'must be true when present');
  const ignore = expect['ignore'];
  if (ignore !== undefined && (!Array.isArray(ignore) || ignore.some((p) => typeof p !== 'string'))) r.fail('expect.ignore', 'must be a list of dotted paths');
  return {
    ...(status === undefined ? {} : { status: status as number }),
    ...(refused === true ? { refused: true as const } : {}),
    ...('state' in expect ? { state: expect['state'] } : {}),
    ...(ignore === undefined ? {} : { ignore: ignore as string[] }),
  };
}

/**
 * Reads a fixture file's text; `file` names it in errors. Checks every field the senders use, and
 * that nothing in it could make a send leave the receiver it is pointed at (a full URL as path).
 */
export function parseFixture(text: string, file: string): Fixture {
  if (text.length > MAX_FIXTURE_BYTES) throw new FixtureError(file, undefined, `larger than ${MAX_FIXTURE_BYTES} bytes: not a fixture`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new FixtureError(file, undefined, `not JSON (${(error as Error).message})`);
  }
  const r = reader(file);
  const top = r.object(raw, '(top level)');
  if (top['format'] !== FIXTURE_FORMAT) r.fail('format', `must be "${FIXTURE_FORMAT}"${top['format'] === undefined ? ' (is this a Hookbench fixture?)' : ''}`);
  const name = r.string(top['name'], 'name');
  if (!isFixtureName(name)) r.fail('name', 'must be letters, digits, ".", "_" and "-", up to 100, not starting with a dot');
  const provider = r.string(top['provider'], 'provider');
  if (!(PROVIDERS as readonly string[]).includes(provider)) r.fail('provider', `"${provider.slice(0, 30)}" is not one of ${PROVIDERS.join(', ')}`);
  const entity = r.optionalString(top['entity'], 'entity');
  const agent = r.optionalString(top['agent'], 'agent');
  if (agent !== undefined && !/^[a-z0-9][a-z0-9-]*$/.test(agent)) r.fail('agent', 'must be a kebab-case agent name, as in /agents/<agent>/<name>');
  const request = readRequest(top['request'], file);
  const expect = readExpect(top['expect'], file);
  const burst = top['burst'];
  if (burst !== undefined && (!Number.isInteger(burst) || (burst as number) < 1)) r.fail('burst', 'must be a whole number, 1 or more');
  const signedAgo = top['signedAgo'];
  if (signedAgo !== undefined && (!Number.isInteger(signedAgo) || (signedAgo as number) < 0 || (signedAgo as number) > MAX_SIGNED_AGO))
    r.fail('signedAgo', `must be whole seconds, 0 to ${MAX_SIGNED_AGO}`);
  const recorded = top['recorded'];
  return {
    format: FIXTURE_FORMAT,
    name,
    provider: provider as ProviderName,
    ...(entity === undefined ? {} : { entity }),
    ...(agent === undefined ? {} : { agent }),
    request,
    ...(expect === undefined ? {} : { expect }),
    ...(burst === undefined ? {} : { burst: burst as number }),
    ...(signedAgo === undefined ? {} : { signedAgo: signedAgo as number }),
    ...(isObject(recorded) && typeof recorded['at'] === 'string'
      ? { recorded: { at: recorded['at'], ...(typeof recorded['delivery'] === 'string' ? { delivery: recorded['delivery'] } : {}) } }
      : {}),
  };
}

/** The body's exact bytes. */
export function fixtureBody(request: FixtureRequest): Buffer {
  return request.bodyEncoding === 'base64' ? Buffer.from(request.body, 'base64') : Buffer.from(request.body, 'utf8');
}

/** The body as a fixture keeps it: text when the bytes are valid UTF-8 (and survive the round trip), base64 otherwise. */
export function encodeFixtureBody(bytes: Buffer): Pick<FixtureRequest, 'body' | 'bodyEncoding'> {
  const text = bytes.toString('utf8');
  // A lone surrogate-free round trip is the test: invalid UTF-8 decodes to U+FFFD and re-encodes differently.
  if (Buffer.from(text, 'utf8').equals(bytes)) return { body: text, bodyEncoding: 'utf8' };
  return { body: bytes.toString('base64'), bodyEncoding: 'base64' };
}

/** The file's text: two-space JSON with a final newline, as a reviewer reads it in a diff. */
export function serializeFixture(fixture: Fixture): string {
  return `${JSON.stringify(fixture, null, 2)}\n`;
}
