// `hookbench` command line: a table of subcommands, each in its own module, on the same core the
// extension uses.
import { version } from '../package.json';

interface Command {
  readonly summary: string;
  run(argv: string[]): Promise<number>;
}

const commands: Record<string, Command> = {};

function usage(): string {
  const rows = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`);
  return [`hookbench ${version}`, '', 'Usage: hookbench <command> [options]', '', 'Commands:', ...rows].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(version + '\n');
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`hookbench: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`hookbench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
