/**
 * The admin API's statement policy: exactly one statement, and one that reads. `SELECT`,
 * `WITH … SELECT`, `VALUES`, `EXPLAIN` of an allowed statement, and `PRAGMA` reads: a bare
 * `PRAGMA name`, or `PRAGMA name(subject)` for the pragmas whose argument names what to read
 * (`table_info(events)`). A pragma given a value, `PRAGMA user_version = 1` or
 * `PRAGMA user_version(1)`, sets it and is refused. SQLite applies some pragmas while it compiles
 * the statement, so even `EXPLAIN PRAGMA query_only(1)` would act.
 *
 * This is the first of two walls: the query runs on a copy of the database, read-only, in a
 * worker (adminQuery.ts), so whatever slips past the parser still cannot change the instance.
 */

import { isOwnTable, isSchemaTable } from '../../runtime/storage/ownTables';

interface Token {
  readonly kind: 'word' | 'quoted' | 'other';
  readonly text: string;
}

/** Pragmas whose argument is the thing to read (a table, an index, a row count), not a new value. */
const SUBJECT_PRAGMAS = new Set([
  'table_info',
  'table_xinfo',
  'table_list',
  'index_info',
  'index_xinfo',
  'index_list',
  'foreign_key_list',
  'foreign_key_check',
  'integrity_check',
  'quick_check',
]);

/** Pragmas that act even without an argument. */
const ACTING_PRAGMAS = new Set(['optimize', 'incremental_vacuum', 'wal_checkpoint', 'shrink_memory']);

const ALLOWED = 'only SELECT, WITH … SELECT, VALUES, EXPLAIN and PRAGMA reads are allowed';

/** Why `sql` may not run as an admin query, or undefined when it may. */
export function readOnlyRefusal(sql: string): string | undefined {
  const tokens = tokenize(sql);
  const end = tokens.findIndex((t) => t.kind === 'other' && t.text === ';');
  if (end >= 0 && tokens.slice(end + 1).some((t) => !(t.kind === 'other' && t.text === ';'))) {
    return 'exactly one statement is allowed';
  }
  const statement = end >= 0 ? tokens.slice(0, end) : tokens;
  if (statement.length === 0) return 'there is no statement to run';
  return refusal(statement);
}

/**
 * Why `sql` may not run through the read-write console's route, or undefined when it may (the
 * rules: docs/admin-api.md). Exactly one statement, no transaction control (a statement is its own
 * transaction, as on Durable Objects), and nothing that can change what the runtime relies on:
 * its own tables ({@link isOwnTable}) and SQLite's schema, named however they are spelled;
 * `writable_schema`; attached databases, temporary objects (they live on the instance's
 * connection, outside its snapshots, and shadow its tables) and `VACUUM INTO`; and pragmas that
 * set anything but the two numbers the database file keeps for its user.
 *
 * This is the first of two walls: the statement then runs on a copy in a worker thread, which
 * compares what the runtime relies on before and after (adminQueryWorker.ts).
 */
export function executeRefusal(sql: string): string | undefined {
  const tokens = tokenize(sql);
  const end = statementEnd(tokens);
  if (end >= 0 && tokens.slice(end + 1).some((t) => !(t.kind === 'other' && t.text === ';'))) return 'exactly one statement is allowed';
  const statement = end >= 0 ? tokens.slice(0, end) : tokens;
  if (statement.length === 0) return 'there is no statement to run';
  const verb = keyword(statement[0]);
  if (verb && ['BEGIN', 'COMMIT', 'END', 'ROLLBACK', 'SAVEPOINT', 'RELEASE'].includes(verb)) return `${verb} is refused: each statement is its own transaction`;
  const named = namedForbidden(statement);
  if (named) return named;
  // SQLite applies some statements (pragmas) while it compiles them: EXPLAIN of one is judged as the one.
  const explained = verb === 'EXPLAIN' ? statement.slice(keyword(statement[1]) === 'QUERY' ? 3 : 1) : statement;
  const acting = keyword(explained[0]);
  if (acting === 'ATTACH' || acting === 'DETACH')
    return `${acting} is refused: the instance's database is one file, and an attached one is outside its snapshots`;
  if (acting === 'VACUUM' && explained.some((t) => keyword(t) === 'INTO'))
    return "VACUUM INTO is refused: it writes a second database the instance's snapshots do not hold";
  if (acting === 'CREATE' && createsTemporary(explained))
    return "CREATE TEMP is refused: a temporary object lives on the instance's connection, outside its snapshots, and shadows its tables";
  if (acting === 'PRAGMA') return pragmaSetRefusal(explained);
  return undefined;
}

/** `CREATE TEMP …`, `CREATE TEMPORARY …`, or a name in the `temp` schema (`CREATE TABLE temp.t`). */
function createsTemporary(tokens: readonly Token[]): boolean {
  if (['TEMP', 'TEMPORARY'].includes(keyword(tokens[1]) ?? '')) return true;
  return tokens.some((t, i) => t.kind !== 'other' && /^temp$/i.test(unquote(t)) && tokens[i + 1]?.text === '.');
}

/**
 * Where the first statement ends: its `;`, or -1. A CREATE TRIGGER's body holds statements of its
 * own, each with its `;`, between BEGIN and the END that closes it (a CASE inside has an END too).
 */
function statementEnd(tokens: readonly Token[]): number {
  const trigger =
    keyword(tokens[0]) === 'CREATE' &&
    (keyword(tokens[1]) === 'TRIGGER' || (['TEMP', 'TEMPORARY'].includes(keyword(tokens[1]) ?? '') && keyword(tokens[2]) === 'TRIGGER'));
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const word = keyword(tokens[i]);
    if (trigger && (word === 'BEGIN' || (word === 'CASE' && depth > 0))) depth++;
    else if (trigger && word === 'END' && depth > 0) depth--;
    else if (depth === 0 && tokens[i]!.kind === 'other' && tokens[i]!.text === ';') return i;
  }
  return -1;
}

/** The names a console statement may never mention, however quoted: what SQLite would take for them is the same. */
function namedForbidden(tokens: readonly Token[]): string | undefined {
  for (const token of tokens) {
    if (token.kind === 'other') continue;
    const name = unquote(token);
    if (/writable_schema/i.test(name))
      return "writable_schema is refused: with it, a write to sqlite_master can rename or orphan any table, the runtime's included";
    if (isSchemaTable(name)) return `${name} is refused: SQLite's schema changes only through CREATE, ALTER and DROP`;
    if (isOwnTable(name)) return `${name} is the runtime's own table: it cannot be changed from the console (read it with a SELECT)`;
  }
  return undefined;
}

/**
 * Pragmas that set a value. `user_version` and `application_id` are numbers the database file
 * keeps for its user (migrations use them). Every other setting is the connection's, not the
 * database's: it would change how the agent's own statements run (`journal_mode = OFF` takes away
 * the rollback a failed `transactionSync` needs) and last only until the instance is next opened
 * from a snapshot; `schema_version` can corrupt the database outright.
 */
const SETTABLE_PRAGMAS = new Set(['user_version', 'application_id']);

function pragmaSetRefusal(tokens: readonly Token[]): string | undefined {
  if (pragmaRefusal(tokens) === undefined) return undefined;
  let at = 1;
  if (tokens[at + 1]?.text === '.') at += 2;
  const name = tokens[at] ? unquote(tokens[at]!).toLowerCase() : '';
  if (SETTABLE_PRAGMAS.has(name) || ACTING_PRAGMAS.has(name)) return undefined;
  return `PRAGMA ${name} is refused: only user_version and application_id may be set from the console; other settings belong to the instance's connection`;
}

/** Whether `sql` (a trigger's or a view's, as sqlite_master keeps it) names one of the runtime's tables, however quoted. */
export function namesOwnTable(sql: string): boolean {
  return tokenize(sql).some((t) => t.kind !== 'other' && isOwnTable(unquote(t)));
}

/** A token as SQLite reads the name: quotes taken off, a doubled quote inside made one. */
function unquote(token: Token): string {
  if (token.kind !== 'quoted') return token.text;
  const open = token.text[0]!;
  const inner = token.text.slice(1, -1);
  return open === '[' ? inner : inner.split(open + open).join(open);
}

function refusal(tokens: readonly Token[]): string | undefined {
  const verb = keyword(tokens[0]);
  switch (verb) {
    case 'SELECT':
    case 'VALUES':
      return undefined;
    case 'WITH': {
      const main = mainVerb(tokens);
      return main === 'SELECT' || main === 'VALUES' ? undefined : `read-only: WITH … ${main ?? '(no statement)'} is refused; ${ALLOWED}`;
    }
    case 'EXPLAIN': {
      const skip = keyword(tokens[1]) === 'QUERY' && keyword(tokens[2]) === 'PLAN' ? 3 : 1;
      if (tokens.length <= skip) return 'EXPLAIN needs a statement';
      return refusal(tokens.slice(skip));
    }
    case 'PRAGMA':
      return pragmaRefusal(tokens);
    default:
      return `read-only: ${verb ?? tokens[0]!.text} is refused; ${ALLOWED}`;
  }
}

/** The statement after a WITH clause's common table expressions: the first verb outside parentheses. */
function mainVerb(tokens: readonly Token[]): string | undefined {
  let depth = 0;
  for (const token of tokens.slice(1)) {
    if (token.kind === 'other' && token.text === '(') depth++;
    else if (token.kind === 'other' && token.text === ')') depth--;
    else if (depth === 0) {
      const word = keyword(token);
      if (word && ['SELECT', 'VALUES', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE'].includes(word)) return word;
    }
  }
  return undefined;
}

/** PRAGMA [schema.]name, or PRAGMA [schema.]name(subject) for SUBJECT_PRAGMAS. */
function pragmaRefusal(tokens: readonly Token[]): string | undefined {
  let at = 1;
  if (tokens[at + 1]?.text === '.') at += 2;
  const name = tokens[at]?.kind === 'word' ? tokens[at]!.text.toLowerCase() : undefined;
  if (name === undefined) return 'PRAGMA needs a name';
  const rest = tokens.slice(at + 1);
  const shown = `PRAGMA ${tokens
    .slice(1)
    .map((t) => t.text)
    .join('')}`;
  const setting = `read-only: ${shown} sets a value; only PRAGMA reads such as PRAGMA user_version or PRAGMA table_info(events) are allowed`;
  if (rest.length === 0) return ACTING_PRAGMAS.has(name) ? `read-only: ${shown} changes the database` : undefined;
  const isSubject = rest.length === 3 && rest[0]!.text === '(' && rest[2]!.text === ')' && rest[1]!.kind !== 'other';
  if (isSubject && SUBJECT_PRAGMAS.has(name)) return undefined;
  return setting;
}

function keyword(token: Token | undefined): string | undefined {
  return token?.kind === 'word' ? token.text.toUpperCase() : undefined;
}

/** SQLite's lexical shape, as far as the policy needs it: words, quoted names and strings, comments skipped. */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  const word = /[\w$\u0080-\uffff]+/y;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      let j = i + 1;
      // A doubled quote is the quote itself; [names] have no escape.
      while (j < sql.length && !(sql[j] === close && (close === ']' || sql[j + 1] !== close))) j += sql[j] === close ? 2 : 1;
      tokens.push({ kind: 'quoted', text: sql.slice(i, j + 1) });
      i = j + 1;
    } else if (/[\w$\u0080-\uffff]/.test(c)) {
      word.lastIndex = i;
      const match = word.exec(sql)![0];
      tokens.push({ kind: 'word', text: match });
      i += match.length;
    } else {
      tokens.push({ kind: 'other', text: c });
      i++;
    }
  }
  return tokens;
}
