/**
 * Splits SQL text into single statements at top-level semicolons, skipping quoted strings,
 * identifiers and comments, and keeping a CREATE TRIGGER's BEGIN … END body whole. D1's `exec`
 * and `batch` take many statements; the journal must record one statement per entry, because
 * sql.js's `prepare` runs only the first statement of a text while replay would run them all.
 */

export function splitStatements(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let depth = 0; // BEGIN … END nesting inside CREATE TRIGGER
  let i = 0;
  const push = (end: number) => {
    const statement = text.slice(start, end).trim();
    if (statement !== '' && !/^(?:\s|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*$/.test(statement)) out.push(statement);
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      i++;
      while (i < text.length) {
        if (text[i] === close) {
          if (close !== ']' && text[i + 1] === close) i += 2;
          else break;
        } else i++;
      }
      i++;
    } else if (ch === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (/[A-Za-z_]/.test(ch)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_$]/.test(text[j]!)) j++;
      const word = text.slice(i, j).toUpperCase();
      if (word === 'BEGIN' && /^\s*CREATE\s+(?:TEMP\w*\s+)?TRIGGER\b/i.test(text.slice(start, i))) depth++;
      else if ((word === 'END' || word === 'CASE') && depth > 0) depth += word === 'CASE' ? 1 : -1;
      i = j;
    } else if (ch === ';' && depth === 0) {
      push(i);
      start = ++i;
    } else i++;
  }
  push(text.length);
  return out;
}

/**
 * How many values a statement takes, by SQLite's numbering: each `?` takes the next number,
 * `?NNN` names its own, and each distinct `:name`, `@name` or `$name` takes the next one.
 */
export function parameterCount(statement: string): number {
  let count = 0;
  const named = new Set<string>();
  let i = 0;
  while (i < statement.length) {
    const ch = statement[i]!;
    if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      i++;
      while (i < statement.length && !(statement[i] === close && statement[i + 1] !== close)) i += statement[i] === close ? 2 : 1;
      i++;
    } else if (ch === '-' && statement[i + 1] === '-') {
      while (i < statement.length && statement[i] !== '\n') i++;
    } else if (ch === '/' && statement[i + 1] === '*') {
      const end = statement.indexOf('*/', i + 2);
      i = end < 0 ? statement.length : end + 2;
    } else if (ch === '?') {
      const digits = /^\d+/.exec(statement.slice(i + 1))?.[0];
      count = digits ? Math.max(count, Number(digits)) : count + 1;
      i += 1 + (digits?.length ?? 0);
    } else if ((ch === ':' || ch === '@' || ch === '$') && /[A-Za-z_]/.test(statement[i + 1] ?? '')) {
      const name = /^[A-Za-z0-9_]+/.exec(statement.slice(i + 1))![0];
      if (!named.has(name)) {
        named.add(name);
        count++;
      }
      i += 1 + name.length;
    } else i++;
  }
  return count;
}
