// Start: `hookbench serve` spawned → its first answered request (a webhook POSTed as soon as it
// prints `listening on`), 9 starts after one that fills V8's code cache, against the same for a
// bare node:http server in its own process (what Node itself costs to start). Issue target: serve
// p50 ≤ 200 ms; the ratio is 200 ms ÷ serve's p50 (≥ 1 meets it).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listeningUrl } from '../src/core/contract/serveHandshake';
import { QUICK, report, type BenchResult } from './harness';

async function firstAnswer(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, GITHUB_WEBHOOK_SECRET: 'x', HOOKBENCH_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // Whole lines only: a chunk may end inside the URL.
      const url = out
        .split('\n')
        .slice(0, -1)
        .map(listeningUrl)
        .find((found) => found !== undefined);
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  const response = await fetch(`${url}/webhooks/github`, { method: 'POST', body: '{}', headers: { 'x-github-event': 'push' } });
  await response.arrayBuffer();
  const elapsed = performance.now() - started;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return elapsed;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const cli = path.resolve(__dirname, '..', '..', 'dist', 'cli.js');
  const serveArgs = () => [cli, 'serve', '--port', '0', '--render-port', '0', '--data', fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bench-start-'))];
  const bareArgs = [path.join(__dirname, 'baselineServer.js'), 'bare'];
  await firstAnswer(serveArgs());
  const serve: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < (QUICK ? 3 : 9); i++) {
    serve.push(await firstAnswer(serveArgs()));
    bare.push(await firstAnswer(bareArgs));
  }
  const results: BenchResult[] = [
    {
      name: `hookbench serve: spawn → first answered request, p50 of ${serve.length} (all: ${serve.map((t) => Math.round(t)).join(', ')} ms); bare node:http p50 ${median(bare).toFixed(0)} ms`,
      unit: 'ms',
      value: median(serve),
      baseline: 'target (ms)',
      baselineValue: 200,
      ratio: 200 / median(serve),
      target: 1,
    },
  ];
  report('start', results);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
