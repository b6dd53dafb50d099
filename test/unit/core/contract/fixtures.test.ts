// The fixture file's reader: every broken file gets one error naming the file and the field, and no
// name can make a fixture file land outside its folder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  FIXTURE_FORMAT,
  fixtureFileName,
  fixtureNameFrom,
  FixtureError,
  isFixtureName,
  parseFixture,
  serializeFixture,
  type Fixture,
} from '../../../../src/core/contract/fixtures';
import { FixtureExistsError, fixturePaths, writeFixtureFile } from '../../../../src/core/fixtures/fixtureFiles';
import { stateDiff } from '../../../../src/core/fixtures/stateDiff';

const good: Fixture = {
  format: FIXTURE_FORMAT,
  name: 'github-push',
  provider: 'github',
  entity: 'acme-widgets',
  request: {
    method: 'POST',
    path: '/webhooks/github/acme-widgets',
    query: '',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
    body: '{}',
    bodyEncoding: 'utf8',
  },
  expect: { status: 200, state: { stats: { total: 1 } }, ignore: ['lastEventAt'] },
};

/** The fixture with `change` applied to its parsed JSON, as text. */
// The tests break the parsed file anywhere, so it is loosely typed here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function broken(change: (json: Record<string, any>) => void): string {
  const json = JSON.parse(serializeFixture(good));
  change(json);
  return JSON.stringify(json);
}

function errorOf(text: string): FixtureError {
  try {
    parseFixture(text, 'fixtures/f.json');
  } catch (error) {
    assert.ok(error instanceof FixtureError, String(error));
    return error;
  }
  assert.fail('the reader accepted a broken fixture');
}

describe('fixture contract: the reader', () => {
  it('reads back what it serializes, unchanged', () => {
    assert.deepEqual(parseFixture(serializeFixture(good), 'f.json'), good);
  });

  it('reads back a chaos case’s fields: a burst, a signing age, a refusal expected', () => {
    const chaosCase: Fixture = { ...good, burst: 2, signedAgo: 360, expect: { refused: true } };
    assert.deepEqual(parseFixture(serializeFixture(chaosCase), 'f.json'), chaosCase);
  });

  const cases: [string, string, string, RegExp][] = [
    ['text that is not JSON', '{"format":', '(file)', /not JSON/],
    ['a JSON array', '[]', '(top level)', /object/],
    ['another format', broken((j) => (j.format = 'hookbench-fixture/9')), 'format', /hookbench-fixture\/1/],
    ['a missing provider', broken((j) => delete j.provider), 'provider', /string/],
    ['an unknown provider', broken((j) => (j.provider = 'paypal')), 'provider', /github, stripe/],
    ['a full URL as the path', broken((j) => (j.request.path = 'https://evil.test/x')), 'request.path', /starting with "\/"/],
    ['a scheme-relative path', broken((j) => (j.request.path = '//evil.test/x')), 'request.path', /starting with "\/"/],
    ['a query in the path', broken((j) => (j.request.path = '/webhooks?x=1')), 'request.path', /"\?"/],
    ['a header value with a line break', broken((j) => (j.request.headers['x-a'] = 'a\r\nInjected: 1')), 'request.headers.x-a', /line breaks/],
    ['a header name with a space', broken((j) => (j.request.headers['x a'] = '1')), 'request.headers', /header name/],
    ['a body that is not base64', broken((j) => Object.assign(j.request, { bodyEncoding: 'base64', body: '%%%' })), 'request.body', /base64/],
    ['an unknown body encoding', broken((j) => (j.request.bodyEncoding = 'latin1')), 'request.bodyEncoding', /utf8/],
    ['a method that is not one', broken((j) => (j.request.method = 'POST /x HTTP/1.1')), 'request.method', /HTTP method/],
    ['a status out of range', broken((j) => (j.expect.status = 42)), 'expect.status', /100–599/],
    ['ignore that is not a list', broken((j) => (j.expect.ignore = 'lastEventAt')), 'expect.ignore', /list/],
    ['an agent that is not kebab-case', broken((j) => (j.agent = '../admin')), 'agent', /kebab/],
    ['a burst that is not a whole number', broken((j) => (j.burst = 1.5)), 'burst', /whole number/],
    ['a signing age that is negative', broken((j) => (j.signedAgo = -1)), 'signedAgo', /whole seconds/],
    ['refused that is not true', broken((j) => (j.expect.refused = 'yes')), 'expect.refused', /true/],
  ];
  for (const [what, text, field, message] of cases) {
    it(`names the file and the field for ${what}`, () => {
      const error = errorOf(text);
      assert.equal(error.file, 'fixtures/f.json');
      if (field !== '(file)') assert.equal(error.field, field);
      assert.match(error.message, /^fixtures\/f\.json: /);
      assert.match(error.message, message);
    });
  }
});

describe('fixture contract: names', () => {
  const hostile = ['../escape', '..', '.hidden', 'a/b', 'a\\b', '/etc/passwd', 'a\0b', 'C:evil', '', 'x'.repeat(101), 'a..b', 'nul\n'];
  for (const name of hostile) {
    it(`refuses ${JSON.stringify(name.slice(0, 20))} as a name, in the reader and for the file`, () => {
      assert.equal(isFixtureName(name), false);
      assert.throws(() => fixtureFileName(name), FixtureError);
      assert.equal(errorOf(broken((j) => (j.name = name))).field, 'name');
    });
  }

  it('makes a safe name from free text', () => {
    assert.equal(fixtureNameFrom('github push · Acme/Widgets'), 'github-push-Acme-Widgets');
    assert.equal(fixtureNameFrom('../../etc/passwd'), 'etc-passwd');
    assert.equal(fixtureNameFrom('…'), 'fixture');
    for (const text of ['../x', '.env', 'a/../../b', '\0', 'x'.repeat(500)]) assert.ok(isFixtureName(fixtureNameFrom(text)), text);
  });

  it('writes inside its folder only, and not through a link that leads out of the workspace', (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-fixtures-'));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-outside-'));
    t.after(() => [root, outside].forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
    const file = writeFixtureFile(root, path.join(root, '.hookbench', 'fixtures'), good);
    assert.equal(file, path.join(root, '.hookbench', 'fixtures', 'github-push.json'));
    assert.deepEqual(parseFixture(fs.readFileSync(file, 'utf8'), file), good);
    assert.throws(() => writeFixtureFile(root, path.join(root, '.hookbench', 'fixtures'), good), FixtureExistsError);
    fs.symlinkSync(outside, path.join(root, 'linked'));
    assert.throws(() => writeFixtureFile(root, path.join(root, 'linked'), good), /linked: is a symbolic link; fixtures are never saved through links/);
    assert.throws(() => writeFixtureFile(root, path.join(root, '..', 'elsewhere'), good), /is outside .*; fixtures are saved inside the workspace/);
    assert.deepEqual(fs.readdirSync(outside), []);
    // A link planted where the file goes is replaced, never written through.
    const target = path.join(outside, 'victim');
    fs.writeFileSync(target, 'keep');
    fs.symlinkSync(target, path.join(root, '.hookbench', 'fixtures', 'planted.json'));
    writeFixtureFile(root, path.join(root, '.hookbench', 'fixtures'), { ...good, name: 'planted' }, { overwrite: true });
    assert.equal(fs.readFileSync(target, 'utf8'), 'keep');
    assert.equal(fs.lstatSync(path.join(root, '.hookbench', 'fixtures', 'planted.json')).isFile(), true);
    assert.deepEqual(
      fs.readdirSync(path.join(root, '.hookbench', 'fixtures')).filter((f) => f.endsWith('.tmp')),
      [],
    );
  });

  it('creates no folder through a committed link: the save is refused, naming the link, and nothing appears where it points', (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-fixtures-clone-'));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-outside-'));
    t.after(() => [root, outside].forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
    // A cloned repository commits `.hookbench` as a link to a folder of the user's.
    fs.symlinkSync(outside, path.join(root, '.hookbench'));
    const refusal = (() => {
      try {
        writeFixtureFile(root, path.join(root, '.hookbench', 'fixtures', 'set'), good);
      } catch (error) {
        return (error as Error).message;
      }
      return 'saved';
    })();
    assert.deepEqual(fs.readdirSync(outside), [], 'no folder was made through the link');
    assert.equal(
      refusal,
      `${path.join(root, '.hookbench')}: is a symbolic link; fixtures are never saved through links: remove it, or choose another hookbench.fixtures.directory`,
    );
    // A link deeper down, to a folder inside the workspace, is refused the same way.
    fs.rmSync(path.join(root, '.hookbench'));
    fs.mkdirSync(path.join(root, '.hookbench'));
    fs.mkdirSync(path.join(root, 'src'));
    fs.symlinkSync(path.join(root, 'src'), path.join(root, '.hookbench', 'fixtures'));
    assert.throws(() => writeFixtureFile(root, path.join(root, '.hookbench', 'fixtures', 'set'), good), /fixtures: is a symbolic link/);
    assert.deepEqual(fs.readdirSync(path.join(root, 'src')), []);
  });

  it('lists a suite in name order, numbers as numbers, dot files left out', (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-suite-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    for (const name of ['10-c.json', '2-b.json', '1-a.json', '.draft.json', 'notes.txt']) fs.writeFileSync(path.join(dir, name), '{}');
    fs.mkdirSync(path.join(dir, 'set'));
    fs.writeFileSync(path.join(dir, 'set', '1-d.json'), '{}');
    assert.deepEqual(
      fixturePaths(dir).map((f) => path.relative(dir, f)),
      ['1-a.json', '2-b.json', '10-c.json', path.join('set', '1-d.json')],
    );
  });
});

describe('fixture contract: state comparison', () => {
  it('finds each differing leaf and leaves the ignored paths out', () => {
    const expected = { lastEventAt: '2026-01-01T00:00:00.000Z', stats: { total: 1, byType: { push: 1 } } };
    const actual = { lastEventAt: '2026-11-22T10:00:00.000Z', stats: { total: 2, byType: { push: 1, ping: 1 } } };
    assert.deepEqual(stateDiff(expected, actual, ['lastEventAt']), ['stats.byType.ping: expected (absent), got 1', 'stats.total: expected 1, got 2']);
    assert.deepEqual(stateDiff(expected, expected), []);
    const [whole, ...more] = stateDiff(expected, undefined);
    assert.deepEqual(more, []);
    assert.match(whole!, /^\(state\): expected \{"lastEventAt".{20,}…, got \(absent\)$/);
  });
});
