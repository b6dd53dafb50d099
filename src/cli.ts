// `hookbench` command line: a table of subcommands, each in its own module, on the same core the
// extension uses.
import { version } from '../package.json';
import { UsageError } from './cli/args';
import { chaos, chaosUsage } from './cli/chaos';
import { expose, exposeUsage } from './cli/expose';
import { processIo, type CliIo } from './cli/io';
import { render, renderUsage } from './cli/render';
import { replay, replayUsage } from './cli/replay';
import { send, sendUsage } from './cli/send';
import { serve, serveUsage } from './cli/serve';
import { sign, signUsage } from './cli/sign';
import { verify, verifyUsage } from './cli/verify';

interface Command {
  readonly summary: string;
  readonly usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

const commands: Record<string, Command> = {
  serve: { summary: 'run a worker on the Agents SDK emulation behind the local receiver', usage: serveUsage, run: serve },
  send: { summary: 'sign a test webhook for a provider and POST it', usage: sendUsage, run: send },
  replay: { summary: 'send saved fixtures again, re-signed, and check the answers and agent state (a regression suite)', usage: replayUsage, run: replay },
  chaos: {
    summary: 'send a fixture set as providers really do (duplicates, reordered, at once, retried, stale) and shrink any divergence',
    usage: chaosUsage,
    run: chaos,
  },
  sign: { summary: 'sign a webhook body (stdin) for a provider', usage: signUsage, run: sign },
  verify: { summary: "check a webhook body's signature", usage: verifyUsage, run: verify },
  render: { summary: 'render a page to PNG/PDF through Browser Rendering (local or Cloudflare)', usage: renderUsage, run: render },
  expose: { summary: 'forward a public URL (smee, ngrok, cloudflared, stripe listen) to the local receiver', usage: exposeUsage, run: expose },
};

function usage(): string {
  const rows = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`);
  return [
    `hookbench ${version}`,
    '',
    'Usage: hookbench <command> [options]',
    '',
    'Commands:',
    ...rows,
    '',
    'hookbench <command> --help shows its options.',
  ].join('\n');
}

async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage() + '\n');
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(version + '\n');
    return 0;
  }
  const command = commands[name];
  if (!command) {
    io.stderr.write(`hookbench: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(command.usage + '\n');
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`hookbench ${name}: ${error.message}\n\n${command.usage}\n`);
    return 2;
  }
}

// A reader that stops early (`hookbench send --list | head`) closes the pipe: stop quietly, as
// Unix tools do, instead of dying with a stack trace on the next write.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

main(process.argv.slice(2), processIo).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`hookbench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
