/**
 * Carries out one step against one runtime's origin and records what came back, byte-exact:
 * node:http (no automatic decompression, redirects or added headers) and `ws` for upgrades.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import WebSocket from 'ws';
import type { HttpObservation, Observation, WebSocketObservation } from './compare';
import type { Answers, HttpStep, LogStep, PollStep, WebSocketStep } from './step';

/** How long one request or WebSocket exchange may take before it counts as failed. */
const STEP_TIMEOUT_MS = 15_000;

function headersOf(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const NO_ANSWERS: Answers = new Map();

/** The step's path, made from this runtime's earlier answers when the step says how. */
export function pathOf(step: HttpStep, earlier: Answers): string {
  return typeof step.path === 'string' ? step.path : step.path(earlier);
}

/** Sends one HTTP step to `origin` (e.g. `http://127.0.0.1:8787`); `earlier` are that runtime's answers so far. */
export function sendHttp(origin: string, step: HttpStep, earlier: Answers = NO_ANSWERS): Promise<Observation> {
  return new Promise((resolve) => {
    const url = new URL(origin + pathOf(step, earlier));
    const body = step.body === undefined ? undefined : Buffer.from(step.body);
    const request = http.request(url, {
      method: step.method ?? 'GET',
      headers: { ...(body ? { 'content-length': String(body.length) } : {}), ...step.headers },
      timeout: STEP_TIMEOUT_MS,
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const observed: HttpObservation = {
          kind: 'http',
          status: response.statusCode ?? 0,
          headers: headersOf(response.headers),
          body: Buffer.concat(chunks).toString('utf8'),
        };
        resolve(observed);
      });
      response.on('error', (error) => resolve({ kind: 'failed', error: error.message }));
    });
    request.on('timeout', () => request.destroy(new Error(`no answer in ${STEP_TIMEOUT_MS} ms`)));
    request.on('error', (error) => resolve({ kind: 'failed', error: error.message }));
    request.end(body);
  });
}

/** Repeats an HTTP step until `until` holds or the time is up, and returns the last answer. */
export async function poll(origin: string, step: PollStep, sleep: (ms: number) => Promise<void>, earlier: Answers = NO_ANSWERS): Promise<Observation> {
  const deadline = Date.now() + step.timeoutMs;
  for (;;) {
    const observed = await sendHttp(origin, step.step, earlier);
    if (observed.kind === 'http' && step.until(observed.status, observed.body)) return observed;
    if (Date.now() >= deadline) return observed;
    await sleep(step.intervalMs ?? 100);
  }
}

/**
 * Waits until `output()` holds `step.count` matches of the step's pattern (or the time is up) and
 * returns the matched texts, normalized.
 */
export async function awaitLog(output: () => string, step: LogStep, sleep: (ms: number) => Promise<void>): Promise<Observation> {
  const deadline = Date.now() + step.timeoutMs;
  const pattern = new RegExp(step.pattern.source, step.pattern.flags.includes('g') ? step.pattern.flags : `${step.pattern.flags}g`);
  for (;;) {
    const matches = [...output().matchAll(pattern)].map((match) => (step.normalize ? step.normalize(match[0]) : match[0]));
    if (matches.length >= step.count) return { kind: 'log', matches: matches.slice(0, step.count) };
    if (Date.now() >= deadline)
      return { kind: 'log', matches, error: `${matches.length} of ${step.count} lines matching ${step.pattern} in ${step.timeoutMs} ms` };
    await sleep(100);
  }
}

/**
 * An upgrade with exactly the step's headers (its own `sec-websocket-extensions` offer, which a
 * WebSocket client would refuse to be answered differently): records the answer, sends nothing.
 */
function rawUpgrade(origin: string, step: WebSocketStep): Promise<Observation> {
  return new Promise((resolve) => {
    const request = http.request(new URL(origin + step.path), {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...step.headers,
      },
      timeout: STEP_TIMEOUT_MS,
    });
    request.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ kind: 'ws', status: response.statusCode ?? 0, headers: headersOf(response.headers), frames: [] });
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          kind: 'ws',
          status: response.statusCode ?? 0,
          headers: headersOf(response.headers),
          frames: [],
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    request.on('timeout', () => request.destroy(new Error(`no answer in ${STEP_TIMEOUT_MS} ms`)));
    request.on('error', (error) => resolve({ kind: 'failed', error: error.message }));
    request.end();
  });
}

/**
 * Upgrades, sends the step's frames, collects `frames` text frames, then closes. The client
 * offers `permessage-deflate` as browsers do, so the upgrade's extension answer is observed; a
 * step with its own `sec-websocket-extensions` header gets a raw upgrade instead (no frames).
 */
export function exchangeWebSocket(origin: string, step: WebSocketStep): Promise<Observation> {
  const offer = Object.keys(step.headers ?? {}).some((name) => name.toLowerCase() === 'sec-websocket-extensions');
  if (offer) return rawUpgrade(origin, step);
  return new Promise((resolve) => {
    const url = new URL(origin.replace(/^http/, 'ws') + step.path);
    const frames: string[] = [];
    let closing = false;
    let handshake: Record<string, string> = {};
    let settled = false;
    const socket = new WebSocket(url, { headers: { ...step.headers }, handshakeTimeout: STEP_TIMEOUT_MS });
    const finish = (observed: Observation) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeAllListeners('message');
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.terminate();
      resolve(observed);
    };
    const opened = (error?: string): WebSocketObservation => ({
      kind: 'ws',
      status: 101,
      headers: handshake,
      frames: [...frames],
      ...(error ? { error } : {}),
    });
    const timer = setTimeout(() => finish(opened(`${frames.length} of ${step.frames} frames in ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
    socket.on('upgrade', (response) => {
      handshake = headersOf(response.headers);
    });
    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        finish({
          kind: 'ws',
          status: response.statusCode ?? 0,
          headers: headersOf(response.headers),
          frames: [],
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    // Enough frames: drop the connection, or close with the step's code and await the answer.
    const enough = () => {
      if (!step.close) return finish(opened());
      closing = true;
      socket.close(step.close.code, step.close.reason);
    };
    socket.on('open', () => {
      for (const frame of step.send ?? []) socket.send(frame);
      if (step.sendInvalidText) socket.send(Buffer.from([0xc3, 0x28]), { binary: false });
      if (step.frames === 0) enough();
    });
    socket.on('message', (data, isBinary) => {
      if (isBinary || closing) return;
      frames.push(data.toString());
      if (frames.length >= step.frames) enough();
    });
    socket.on('close', (code, reason) =>
      finish(
        opened(
          closing
            ? `closed by the client, answered ${code} ${JSON.stringify(reason.toString())}`
            : `closed (${code}${reason.length ? ` ${JSON.stringify(reason.toString())}` : ''}) after ${frames.length} of ${step.frames} frames`,
        ),
      ),
    );
    socket.on('error', (error) => finish(handshake['upgrade'] ? opened(error.message) : { kind: 'failed', error: error.message }));
  });
}
