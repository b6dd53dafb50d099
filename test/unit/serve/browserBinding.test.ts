// The Browser Rendering binding under a real `hookbench serve --worker` (dist/cli.js) with the
// render emulator on Debian's Chromium: the invoices fixture runs unchanged — @cloudflare/puppeteer
// launches a session on env.BROWSER, prints a Stripe invoice.paid to a PDF in its injected font,
// stores it in R2, and the customer's agent records it and broadcasts its state.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import { stripe } from '../../../src/core/signing/stripe';
import { startServe, type ServeProcess } from '../helpers/serveProcess';
import { projectRoot } from '../helpers/serveWorker';

const SECRET = 'whsec_binding_test';
const worker = () => path.join(projectRoot(), 'test', 'fixtures', 'workers', 'invoices', 'src', 'index.ts');
let serve: ServeProcess;

before(async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-browser-binding-'));
  serve = await startServe(['--worker', worker(), '--data', data, '--no-watch'], { STRIPE_WEBHOOK_SECRET: SECRET, HOOKBENCH_RENDER_TOKEN: 'binding-test' });
});
after(async () => {
  await serve?.stop('SIGTERM');
});

function invoicePaid(id: string, customer: string): string {
  const invoice = {
    id,
    number: `INV-${id}`,
    customer,
    customer_name: 'Acme GmbH',
    currency: 'eur',
    amount_paid: 12_900,
    lines: { data: [{ description: 'Webhook plan', amount: 12_900 }] },
  };
  return JSON.stringify({ id: `evt_${id}`, type: 'invoice.paid', data: { object: invoice } });
}

function send(body: string, secret = SECRET): Promise<Response> {
  const { headers } = stripe.sign({ secret, body: Buffer.from(body) });
  return fetch(`${serve.url}/webhooks/stripe`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
}

/** The names a PDF gives its embedded fonts (FontName in descriptors, BaseFont in font dictionaries), subset tags cut. */
function pdfFontNames(pdf: Buffer): string[] {
  return [...new Set([...pdf.toString('latin1').matchAll(/\/(?:FontName|BaseFont)\s*\/([^\s/<>[\]()]+)/g)].map((m) => m[1]!.replace(/^[A-Z]{6}\+/, '')))];
}

type Paid = { invoice: string; key: string };

/** The first state the agent broadcasts that satisfies `done`. */
function nextState(url: string, done: (state: { paid: Paid[] }) => boolean): Promise<{ paid: Paid[] }> {
  const socket = new WebSocket(url.replace('http', 'ws'));
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string; state?: { paid: Paid[] } };
      if (frame.type === 'cf_agent_state' && frame.state && done(frame.state)) {
        socket.close();
        resolve(frame.state);
      }
    });
  });
}

describe('the browser binding with @cloudflare/puppeteer, unchanged', () => {
  it('prints a signed invoice.paid to a PDF that embeds the injected font, stores it in R2 and broadcasts the agent state', async () => {
    const broadcast = nextState(`${serve.url}/agents/customer-agent/cus_Ab1`, (state) => state.paid.length > 0);
    const answer = await send(invoicePaid('in_1042', 'cus_Ab1'));
    assert.equal(answer.status, 200, await answer.clone().text());
    const stored = await fetch(`${serve.url}/invoices/in_1042.pdf`);
    assert.equal(stored.headers.get('content-type'), 'application/pdf');
    const pdf = Buffer.from(await stored.arrayBuffer());
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(pdfFontNames(pdf).includes('HookbenchInvoice-Regular'), pdfFontNames(pdf).join(', '));
    assert.deepEqual(
      (await broadcast).paid.map((paid) => [paid.invoice, paid.key]),
      [['in_1042', 'invoices/in_1042.pdf']],
    );
  });

  it('logs the font report of the capture: the injected font drew the text, nothing fell back', () => {
    assert.match(serve.stderr(), /\[browser\] BROWSER session \w+: PDF of about:blank: fonts drawn: Hookbench Invoice \(web font\) ×\d+; no fallback/);
  });

  it('lists the closed session in history, none active, and the limits as puppeteer reads them', async () => {
    const { sessions, limits, history } = (await (await fetch(`${serve.url}/sessions`)).json()) as {
      sessions: unknown[];
      limits: { allowedBrowserAcquisitions: number };
      history: { closeReasonText: string; endTime: number; startTime: number }[];
    };
    assert.deepEqual(sessions, []);
    assert.equal(limits.allowedBrowserAcquisitions, 1);
    assert.equal(history[0]?.closeReasonText, 'NormalClosure', JSON.stringify(history));
    assert.ok(history[0]!.endTime >= history[0]!.startTime);
  });

  it('refuses a wrong signature on the raw body and stores nothing', async () => {
    const answer = await send(invoicePaid('in_bad', 'cus_Ab1'), 'whsec_other');
    assert.equal(answer.status, 401);
    assert.equal((await fetch(`${serve.url}/invoices/in_bad.pdf`)).status, 404);
  });

  it("answers the binding's quickAction() from the local REST emulator", async () => {
    const shot = await fetch(`${serve.url}/quick/screenshot`);
    assert.equal(shot.headers.get('content-type'), 'image/png');
    assert.deepEqual([...new Uint8Array(await shot.arrayBuffer()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  });
});
