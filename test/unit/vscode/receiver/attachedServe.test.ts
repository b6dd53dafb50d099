// VS Code attaches to a serve it did not start (a terminal's) only when that serve speaks this
// extension's admin protocol, as its admin token file states (src/core/contract/adminTokenFile.ts):
// another protocol, or none (a serve from before it was stated), is one line saying which and what
// to do, and nothing is attached. A real serve, its real files; the token file is rewritten as a
// serve of another version writes it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ADMIN_PROTOCOL_VERSION, ProtocolMismatchError } from '../../../../src/core/contract/adminProtocol';
import { adminTokenFile, formatAdminToken, parseAdminTokenFile } from '../../../../src/core/contract/adminTokenFile';
import { nullLogger } from '../../../../src/core/log';
import { writePrivate } from '../../../../src/core/privateFiles';
import { findHolding, type Holding } from '../../../../src/core/serveHolder';
import { AdminClient } from '../../../../src/vscode/client/adminClient';
import { Attachment } from '../../../../src/vscode/receiver/attachedServe';
import { terminalServe } from '../../helpers/serveProcess';

describe("attaching to a terminal's serve", () => {
  let data: string;
  let serve: Awaited<ReturnType<typeof terminalServe>>;
  let written: string;
  let holding: Extract<Holding, { kind: 'live' }>;
  before(async () => {
    data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-attach-'));
    serve = await terminalServe(data);
    written = fs.readFileSync(adminTokenFile(data), 'utf8');
    const found = await findHolding(data);
    assert.equal(found.kind, 'live');
    holding = found as typeof holding;
  });
  after(() => {
    serve.kill();
    fs.rmSync(data, { recursive: true, force: true });
  });

  const open = () => Attachment.open(data, holding.lock, holding.origin, () => undefined);

  it('attaches to a serve that states this protocol, and its admin API answers', async () => {
    assert.equal(parseAdminTokenFile(written)?.protocol, ADMIN_PROTOCOL_VERSION);
    writePrivate(adminTokenFile(data), written);
    const attachment = open();
    const client = new AdminClient(attachment.url, attachment.token, nullLogger);
    try {
      assert.equal(attachment.serve.pid, serve.lock.pid);
      assert.deepEqual(await client.instances(), []);
    } finally {
      client.dispose();
      attachment.dispose();
    }
  });

  it('refuses, in one line naming both protocols and what to do, a serve that states another', () => {
    const token = parseAdminTokenFile(written)!.token;
    writePrivate(adminTokenFile(data), formatAdminToken({ token, protocol: ADMIN_PROTOCOL_VERSION + 1 }));
    assert.throws(open, (error: unknown) => {
      assert.ok(error instanceof ProtocolMismatchError);
      assert.equal(error.stated, ADMIN_PROTOCOL_VERSION + 1);
      assert.equal(
        error.message,
        `the hookbench serve of pid ${serve.lock.pid} (holding ${data}) speaks admin protocol ${ADMIN_PROTOCOL_VERSION + 1}, and this extension speaks ${ADMIN_PROTOCOL_VERSION}: not attached. Restart that serve with this extension's version of hookbench, or stop it and Start Receiver starts this window's own`,
      );
      return true;
    });
  });

  it('refuses a serve from before the protocol was stated (its file holds the token alone)', () => {
    writePrivate(adminTokenFile(data), `${parseAdminTokenFile(written)!.token}\n`);
    assert.throws(
      open,
      (error: unknown) =>
        error instanceof ProtocolMismatchError &&
        error.stated === undefined &&
        error.message.includes(
          `states no admin protocol (a hookbench from before it was stated), and this extension speaks ${ADMIN_PROTOCOL_VERSION}: not attached`,
        ),
    );
  });
});
