import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  findWranglerConfig,
  parseDevVars,
  readWranglerConfig,
  secretsBeside,
  secretsFileBeside,
  stripJsonc,
} from '../../../../src/core/workerConfig/wranglerConfig';

function write(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-wrangler-'));
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
}

describe('wrangler config', () => {
  it('reads bindings, vars and main from JSONC with comments and trailing commas', () => {
    const file = write(
      'wrangler.jsonc',
      `{
      // comment with "quotes" and a , comma
      "main": "src/index.ts", /* block */
      "durable_objects": { "bindings": [ { "name": "WEBHOOK_AGENT", "class_name": "WebhookAgent" }, ] },
      "vars": { "URL": "https://x.test/a//b", "N": 3 },
    }`,
    );
    const config = readWranglerConfig(file);
    assert.deepEqual(config.durableObjects, [{ name: 'WEBHOOK_AGENT', className: 'WebhookAgent' }]);
    assert.deepEqual(config.vars, { URL: 'https://x.test/a//b', N: 3 });
    assert.equal(config.main, path.join(path.dirname(file), 'src', 'index.ts'));
  });

  it('reads the same from TOML', () => {
    const file = write('wrangler.toml', 'main = "w.ts"\n[[durable_objects.bindings]]\nname = "A"\nclass_name = "B"\n[vars]\nX = "y"\n');
    const config = readWranglerConfig(file);
    assert.deepEqual(config.durableObjects, [{ name: 'A', className: 'B' }]);
    assert.deepEqual(config.vars, { X: 'y' });
  });

  it('says what is wrong with a broken config', () => {
    assert.throws(() => readWranglerConfig(write('wrangler.jsonc', '{ "main": ')), /wrangler\.jsonc is not valid JSON\(C\)/);
    assert.throws(() => readWranglerConfig(write('wrangler.toml', 'main = ')), /wrangler\.toml is not valid TOML/);
    assert.throws(() => readWranglerConfig(write('wrangler.json', '[]')), /the top level must be an object/);
    assert.throws(
      () => readWranglerConfig(write('wrangler.json', '{"durable_objects":{"bindings":[{"name":"A"}]}}')),
      /bindings\[0\] needs a "name" and a "class_name"/,
    );
    assert.throws(
      () => readWranglerConfig(write('wrangler.json', '{"durable_objects":{"bindings":[{"name":"A","class_name":"B","script_name":"other"}]}}')),
      /another worker/,
    );
    assert.throws(() => readWranglerConfig('/nonexistent/wrangler.toml'), /cannot read/);
  });

  it('is found in the folder or any folder above', () => {
    const file = write('wrangler.jsonc', '{}');
    const deep = path.join(path.dirname(file), 'src', 'agents');
    fs.mkdirSync(deep, { recursive: true });
    assert.equal(findWranglerConfig(deep), file);
  });

  it('keeps comment markers inside strings', () => {
    assert.equal(JSON.parse(stripJsonc('{"a":"// not a comment","b":"/* nor this */"}')).a, '// not a comment');
  });
});

describe('.dev.vars', () => {
  it('parses KEY=value lines with quotes, comments and export', () => {
    assert.deepEqual(parseDevVars('# secrets\nGITHUB_WEBHOOK_SECRET=abc\nexport TOKEN="x y"\nSINGLE=\'a#b\'\nPLAIN=v # note\nMULTI="l1\\nl2"\n\nbad line\n'), {
      GITHUB_WEBHOOK_SECRET: 'abc',
      TOKEN: 'x y',
      SINGLE: 'a#b',
      PLAIN: 'v',
      MULTI: 'l1\nl2',
    });
  });
});

describe('the secrets file beside a config', () => {
  it('is .dev.vars, else .env, as wrangler dev reads it; none when neither exists', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-secrets-beside-'));
    const config = path.join(dir, 'wrangler.jsonc');
    fs.writeFileSync(config, '{}');
    assert.equal(secretsFileBeside(config), undefined);
    assert.deepEqual(secretsBeside(config), {});
    fs.writeFileSync(path.join(dir, '.env'), 'STRIPE_WEBHOOK_SECRET=from-env-file\n');
    assert.equal(secretsFileBeside(config), path.join(dir, '.env'));
    fs.writeFileSync(path.join(dir, '.dev.vars'), 'STRIPE_WEBHOOK_SECRET=whsec_dev\n');
    assert.equal(secretsFileBeside(config), path.join(dir, '.dev.vars'));
    assert.deepEqual(secretsBeside(config), { STRIPE_WEBHOOK_SECRET: 'whsec_dev' });
  });
});

describe('wrangler config: what Hookbench does not emulate', () => {
  it('refuses a key it does not emulate with one line: the key, its bindings, the nearest alternative and the escape hatch', () => {
    const file = write(
      'wrangler.jsonc',
      '{ "main": "w.ts", "vectorize": [{ "binding": "CACHE", "index_name": "x" }, { "binding": "SESSIONS", "index_name": "y" }] }',
    );
    assert.throws(
      () => readWranglerConfig(file),
      (error: Error) => {
        assert.equal(error.name, 'UnsupportedConfigError');
        assert.equal(error.message.split('\n').length, 1);
        assert.match(
          error.message,
          /"vectorize" \(CACHE, SESSIONS\): Vectorize is not emulated by Hookbench; nearest supported: .*Durable Object.*; or run the worker under `wrangler dev` and attach the Hookbench explorer/,
        );
        return true;
      },
    );
  });

  it('accepts a refused key left empty, such as "hyperdrive": []', () => {
    const file = write('wrangler.jsonc', '{ "main": "w.ts", "ai": {}, "hyperdrive": [] }');
    assert.deepEqual(readWranglerConfig(file).notes, []);
  });

  it('ignores deploy-time keys silently and notes the keys it does not know', () => {
    const file = write(
      'wrangler.jsonc',
      '{ "main": "w.ts", "name": "x", "routes": ["a.example/*"], "compatibility_date": "2026-01-01", "brand_new_binding": [] }',
    );
    const notes = readWranglerConfig(file).notes ?? [];
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /"brand_new_binding" is not a key Hookbench knows/);
  });

  it('refuses, in one line, a key it does not know that declares bindings: never a silent undefined binding', () => {
    const file = write('wrangler.jsonc', '{ "main": "w.ts", "brand_new_binding": [{ "binding": "NEWTHING" }] }');
    assert.throws(
      () => readWranglerConfig(file),
      (error: Error) => {
        assert.equal(error.message.split('\n').length, 1);
        assert.match(error.message, /"brand_new_binding" \(NEWTHING\): a binding type Hookbench does not know, so it is not emulated; .*wrangler dev/);
        return true;
      },
    );
  });

  it('reads ratelimits, analytics_engine_datasets and send_email, and says what is wrong in them', () => {
    const file = write(
      'wrangler.jsonc',
      `{ "main": "w.ts",
      "ratelimits": [{ "name": "RL", "namespace_id": "1001", "simple": { "limit": 3, "period": 60 } }],
      "analytics_engine_datasets": [{ "binding": "AE", "dataset": "hits" }, { "binding": "PLAIN" }],
      "send_email": [{ "name": "MAIL", "allowed_destination_addresses": ["ops@example.com"] }] }`,
    );
    const bindings = readWranglerConfig(file).bindings!;
    assert.deepEqual(bindings.rateLimits, [{ binding: 'RL', namespaceId: '1001', limit: 3, period: 60 }]);
    assert.deepEqual(bindings.analyticsEngine, [
      { binding: 'AE', dataset: 'hits' },
      { binding: 'PLAIN', dataset: 'PLAIN' },
    ]);
    assert.deepEqual(bindings.sendEmail, [{ binding: 'MAIL', allowedDestinationAddresses: ['ops@example.com'] }]);
    assert.throws(
      () => readWranglerConfig(write('wrangler.json', '{ "ratelimits": [{ "name": "RL", "simple": { "limit": 3, "period": 30 } }] }')),
      /ratelimits\[0\]\.simple\.period must be 10 or 60/,
    );
    assert.throws(
      () => readWranglerConfig(write('wrangler.json', '{ "send_email": [{ "name": "M", "allowed_sender_addresses": "a@b" }] }')),
      /allowed_sender_addresses must be a list/,
    );
  });

  it('reads the compatibility date and flags', () => {
    const file = write('wrangler.jsonc', '{ "compatibility_date": "2025-04-01", "compatibility_flags": ["nodejs_compat"] }');
    assert.deepEqual(readWranglerConfig(file).compatibility, { date: '2025-04-01', flags: ['nodejs_compat'] });
    assert.throws(() => readWranglerConfig(write('wrangler.json', '{ "compatibility_date": "April" }')), /"compatibility_date" must be a date/);
  });

  it('refuses a Durable Object of another worker with the escape hatch', () => {
    const file = write('wrangler.jsonc', '{ "durable_objects": { "bindings": [{ "name": "A", "class_name": "B", "script_name": "other" }] } }');
    assert.throws(() => readWranglerConfig(file), /script_name.*wrangler dev/);
  });
});
