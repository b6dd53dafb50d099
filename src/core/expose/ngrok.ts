/**
 * An ngrok tunnel through the ngrok agent library (`@ngrok/ngrok`, native, loaded only when asked
 * for): `forward({ addr, authtoken })` opens a session to ngrok's edge and returns a listener
 * whose `url()` is the public https URL. ngrok passes the public `Host` on (nothing here rewrites
 * it), which keeps public requests to the receiver's webhook routes. The authtoken comes from
 * NGROK_AUTHTOKEN (in VS Code: secret storage, handed over as that variable), never a flag.
 */
import { NGROK_TOKEN_ENV } from '../contract/expose';
import { ExposeError } from './errors';

export const NGROK_MISSING_TOKEN =
  'ngrok needs an authtoken: copy yours from https://dashboard.ngrok.com/get-started/your-authtoken into NGROK_AUTHTOKEN (in VS Code: Hookbench: Set ngrok Authtoken), or use hookbench expose smee, which needs no account';

/** The part of `@ngrok/ngrok`'s configuration Hookbench sets. */
export interface NgrokConfig {
  readonly addr: string;
  readonly authtoken: string;
  readonly forwards_to: string;
  /** Another ngrok edge (`server_addr`): only the tests' loopback stand-in sets it. */
  readonly server_addr?: string;
}

export interface NgrokListener {
  url(): string | null;
  close(): Promise<void>;
}

export interface NgrokModule {
  forward(config: NgrokConfig): Promise<NgrokListener>;
}

export function ngrokConfig(to: string, authtoken: string, serverAddr?: string): NgrokConfig {
  return { addr: to, authtoken, forwards_to: 'hookbench receiver', ...(serverAddr ? { server_addr: serverAddr } : {}) };
}

/** The one line for a session ngrok did not open. */
export function explainNgrok(error: unknown): ExposeError {
  const message = String((error as Error)?.message ?? error);
  const code = (error as { code?: unknown })?.code;
  const first = message.split('\n').find((line) => line.trim() !== '') ?? message;
  const codeText = typeof code === 'string' && code !== '' ? ` [${code}]` : /ERR_NGROK_\d+/.exec(message)?.[0] ? ` [${/ERR_NGROK_\d+/.exec(message)![0]}]` : '';
  if (/authentication failed|authtoken|ERR_NGROK_(105|106|107|4018)\b/i.test(`${message} ${String(code)}`)) {
    return new ExposeError(
      `ngrok refused the authtoken${codeText}: ${first}. Check NGROK_AUTHTOKEN against https://dashboard.ngrok.com/get-started/your-authtoken`,
      'refused',
    );
  }
  return new ExposeError(`ngrok could not open a tunnel${codeText}: ${first}`, 'unreachable');
}

export async function loadNgrok(): Promise<NgrokModule> {
  try {
    return (await import('@ngrok/ngrok')) as unknown as NgrokModule;
  } catch (error) {
    throw new ExposeError(
      `the ngrok library (@ngrok/ngrok) could not be loaded on ${process.platform}-${process.arch}: ${(error as Error).message.split('\n')[0]}`,
      'failed',
    );
  }
}

export interface NgrokOptions {
  readonly to: string;
  readonly env: NodeJS.ProcessEnv;
  readonly serverAddr?: string;
  readonly load?: () => Promise<NgrokModule>;
}

export interface RunningNgrok {
  readonly url: string;
  stop(): Promise<void>;
}

/** Opens the tunnel; resolves with its public URL. */
export async function startNgrok(options: NgrokOptions): Promise<RunningNgrok> {
  const authtoken = options.env[NGROK_TOKEN_ENV]?.trim();
  if (!authtoken) throw new ExposeError(NGROK_MISSING_TOKEN, 'missing-token');
  const ngrok = await (options.load ?? loadNgrok)();
  let listener: NgrokListener;
  try {
    listener = await ngrok.forward(ngrokConfig(options.to, authtoken, options.serverAddr));
  } catch (error) {
    throw explainNgrok(error);
  }
  const url = listener.url();
  if (!url) {
    await listener.close().catch(() => undefined);
    throw new ExposeError('ngrok opened a session but gave no URL', 'failed');
  }
  return { url, stop: () => listener.close().catch(() => undefined) };
}
