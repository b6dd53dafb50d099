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

interface Token {
  readonly kind: 'word' | 'quoted' | 'other';
  readonly text: string;
}

/** Pragmas whose argument is the thing to read (a table, an index, a row count), not a new value. */
const SUBJECT_PRAGMAS = new Set(['table_info', 'table_xinfo', 'table_list', 'index_info', 'index_xinfo', 'index_list', 'foreign_key_list', 'foreign_key_check', 'integrity_check', 'quick_check']);

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
 * Why `sql` may not run through the read-write console's route, or undefined when it may: exactly
 * one statement, no transaction control (a statement is its own transaction, as on Durable
 * Objects), and nothing that names the runtime's own bookkeeping table.
 */
export function executeRefusal(sql: string): string | undefined {
  const tokens = tokenize(sql);
  const end = tokens.findIndex((t) => t.kind === 'other' && t.text === ';');
  if (end >= 0 && tokens.slice(end + 1).some((t) => !(t.kind === 'other' && t.text === ';'))) return 'exactly one statement is allowed';
  const statement = end >= 0 ? tokens.slice(0, end) : tokens;
  if (statement.length === 0) return 'there is no statement to run';
  const verb = keyword(statement[0]);
  if (verb && ['BEGIN', 'COMMIT', 'END', 'ROLLBACK', 'SAVEPOINT', 'RELEASE'].includes(verb)) return `${verb} is refused: each statement is its own transaction`;
  if (statement.some((t) => /_hookbench_meta/i.test(t.text))) return "_hookbench_meta is the runtime's own table (the journal's position): it cannot be changed";
  return undefined;
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
  const shown = `PRAGMA ${tokens.slice(1).map((t) => t.text).join('')}`;
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
