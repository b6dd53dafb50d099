// AdminClient reads every answer on arrival with its route's reader: an answer of another shape (as
// a serve of another version would send) is one error line naming the route and what was wrong.
// The serve here is a real HTTP server on port 0 that answers in another shape.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { nullLogger } from '../../../../src/core/log';
import { AdminClient, MalformedAnswerError } from '../../../../src/vscode/client/adminClient';

const answers: Record<string, { status: number; body: string }> = {
  '/__hookbench/instances': {
    status: 200,
    body: JSON.stringify({ instances: [{ namespace: 'N', agent: 'a', className: 'A', name: 'n', awake: 'yes', connections: 0 }] }),
  },
  '/__hookbench/deliveries': { status: 200, body: 'deliveries: none' },
  '/__hookbench/bindings': { status: 200, body: JSON.stringify({ bindings: [{ kind: 'kv', name: 'CACHE', target: 'ns-1' }] }) },
  '/__hookbench/sink': { status: 401, body: JSON.stringify({ error: 'missing or wrong admin token' }) },
};

describe('AdminClient', () => {
  let server: http.Server;
  let client: AdminClient;
  before(async () => {
    server = http.createServer((req, res) => {
      const answer = answers[new URL(req.url!, 'http://x').pathname] ?? { status: 404, body: '{}' };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new AdminClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'token', nullLogger);
  });
  after(() => {
    client.dispose();
    server.close();
  });

  it('gives an answer of the declared shape', async () => {
    assert.deepEqual(await client.bindings(), [{ kind: 'kv', name: 'CACHE', target: 'ns-1' }]);
  });

  it('throws one line naming the route and the field for an answer of another shape', async () => {
    await assert.rejects(client.instances(), (error: unknown) => {
      assert.ok(error instanceof MalformedAnswerError);
      assert.equal(
        error.message,
        'the answer to GET /__hookbench/instances is malformed (is the serve of another hookbench version?): instances[0].awake: expected true or false, got "yes"',
      );
      return true;
    });
  });

  it('throws one line for an answer that is not JSON', async () => {
    await assert.rejects(client.deliveries(), {
      message: 'the answer to GET /__hookbench/deliveries is malformed (is the serve of another hookbench version?): the answer is not JSON',
    });
  });

  it("throws the server's own line for a refusal", async () => {
    await assert.rejects(client.captures(), { message: 'missing or wrong admin token' });
  });
});
