// Use Another Port takes the next free port after the taken one (8787 → 8788 …), as the README
// promises, passing over a taken one and the render emulator's; never a random port.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { isFree, nextFreePort } from '../../../src/core/nextFreePort';

const held: net.Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function hold(port: number): Promise<void> {
  const server = net.createServer();
  held.push(server);
  return new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
}

/** A port with the `count` after it free too (the kernel's choice, checked). */
async function freeRun(count: number): Promise<number> {
  for (;;) {
    const server = net.createServer();
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
    await new Promise((resolve) => server.close(resolve));
    const after = Array.from({ length: count + 1 }, (_, i) => port + i);
    if (port + count < 65_536 && (await Promise.all(after.map((p) => isFree('127.0.0.1', p)))).every(Boolean)) return port;
  }
}

describe('the next free port', () => {
  it('is the one right after the taken port', async () => {
    const taken = await freeRun(3);
    await hold(taken);
    assert.equal(await nextFreePort('127.0.0.1', taken), taken + 1);
  });

  it("passes over a port that is taken too, and the render emulator's", async () => {
    const taken = await freeRun(4);
    await hold(taken);
    await hold(taken + 1);
    assert.equal(await nextFreePort('127.0.0.1', taken), taken + 2);
    assert.equal(await nextFreePort('127.0.0.1', taken, [taken + 2]), taken + 3);
  });

  it('says what to do when none is free', async () => {
    await assert.rejects(nextFreePort('127.0.0.1', 65_535), /no free port on 127\.0\.0\.1 among the 100 after 65535: set hookbench\.receiver\.port/);
  });
});
