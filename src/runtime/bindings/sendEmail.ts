/**
 * The `send_email` binding and `EmailMessage` of `cloudflare:email`, as wrangler dev runs them
 * locally (Miniflare 4.20260426.0's `send_email` worker): nothing is sent; each message is written
 * to a file and its path logged. `send()` takes an `EmailMessage` (raw MIME: the sender and
 * recipients are checked against the binding's allow lists, the message must carry a
 * `Message-ID`, its `From:` must be the envelope sender, and it must not set `Received:`) or a
 * message builder (`{ from, to, subject, text, html, attachments }`), and answers
 * `{ messageId: "<random@sender's domain>" }`. Files go to
 * `<data>/_bindings/email/<email|email-text|email-html|email-attachment>/<uuid>.<ext>`, the layout
 * wrangler uses in its temp folder.
 */
import { randomUUID, webcrypto } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../core/log';
import type { SendEmailBinding } from '../../core/workerConfig/bindingsConfig';

const RAW = Symbol('EmailMessage.raw');

/** `new EmailMessage(from, to, raw)` of `cloudflare:email`: an envelope and its raw MIME text. */
export class EmailMessage {
  readonly [RAW]: string | ReadableStream<Uint8Array>;

  constructor(
    readonly from: string,
    readonly to: string,
    raw: string | ReadableStream<Uint8Array>,
  ) {
    this[RAW] = raw;
  }
}

type Address = string | { readonly name: string; readonly email: string };

interface MessageBuilder {
  readonly from: Address;
  readonly to: Address | readonly Address[];
  readonly cc?: Address | readonly Address[];
  readonly bcc?: Address | readonly Address[];
  readonly subject: string;
  readonly text?: string;
  readonly html?: string;
  readonly attachments?: readonly { readonly filename: string; readonly content: string | ArrayBuffer | ArrayBufferView; readonly disposition?: string }[];
}

const emailOf = (address: Address): string => (typeof address === 'string' ? address : address.email);
const shown = (address: Address): string => (typeof address === 'string' ? address : `"${address.name}" <${address.email}>`);
const listOf = <T>(value: T | readonly T[]): readonly T[] => (Array.isArray(value) ? (value as readonly T[]) : [value as T]);

/** The header fields of a raw message (names lower-cased, folded lines joined). */
function headerFields(raw: string): Map<string, string> {
  const end = raw.search(/\r?\n\r?\n/);
  const head = (end < 0 ? raw : raw.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const fields = new Map<string, string>();
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    const name = (colon < 0 ? line : line.slice(0, colon)).trim().toLowerCase();
    if (name && !fields.has(name)) fields.set(name, colon < 0 ? '' : line.slice(colon + 1).trim());
  }
  return fields;
}

/** The address of a `From:` value: `Name <a@b>` or `a@b`. */
const addressOf = (value: string): string => (/<([^>]*)>/.exec(value)?.[1] ?? value).trim();

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function messageId(sender: string): string {
  const id = Array.from(webcrypto.getRandomValues(new Uint8Array(36)), (b) => ALPHABET[b % ALPHABET.length]).join('');
  return `<${id}@${sender.slice(sender.lastIndexOf('@') + 1)}>`;
}

export class SendEmail {
  constructor(
    private readonly config: SendEmailBinding,
    private readonly dataDir: string,
    private readonly logger: Logger,
  ) {}

  async send(message: EmailMessage | MessageBuilder): Promise<{ messageId: string }> {
    if (message instanceof EmailMessage) return this.sendRaw(message);
    return this.sendBuilt(message);
  }

  private async sendRaw(message: EmailMessage): Promise<{ messageId: string }> {
    this.checkSender(message.from);
    for (const to of listOf(message.to)) this.checkDestination(to);
    const bytes = new Uint8Array(await new Response(message[RAW]).arrayBuffer());
    const fields = headerFields(Buffer.from(bytes).toString('utf8'));
    if (!fields.get('message-id')) throw new Error('invalid message-id');
    if (message.from !== addressOf(fields.get('from') ?? '')) throw new Error('From: header does not match mail from');
    if (fields.has('received')) throw new Error('invalid headers set');
    const file = this.store(bytes, 'eml', 'email');
    this.logger.info(`[email] send_email binding called with the following message:\n  ${file}`);
    return { messageId: messageId(message.from) };
  }

  private sendBuilt(builder: MessageBuilder): { messageId: string } {
    this.checkSender(emailOf(builder.from));
    for (const to of listOf(builder.to)) this.checkDestination(emailOf(to));
    const files: string[] = [];
    if (builder.text) files.push(`Text: ${this.store(builder.text, 'txt', 'email-text')}`);
    if (builder.html) files.push(`HTML: ${this.store(builder.html, 'html', 'email-html')}`);
    for (const attachment of builder.attachments ?? []) {
      // The file's own extension when it is one (letters and digits): a name is the worker's, maybe a
      // payload's, and never a path into or out of the data folder.
      const extension = /\.([A-Za-z0-9]{1,16})$/.exec(attachment.filename)?.[1] ?? 'bin';
      files.push(`Attachment (${attachment.disposition}): ${attachment.filename} -> ${this.store(attachment.content, extension, 'email-attachment')}`);
    }
    const lines = [`From: ${shown(builder.from)}`, `To: ${listOf(builder.to).map(shown).join(', ')}`];
    if (builder.cc) lines.push(`Cc: ${listOf(builder.cc).map(shown).join(', ')}`);
    if (builder.bcc) lines.push(`Bcc: ${listOf(builder.bcc).map(shown).join(', ')}`);
    lines.push(`Subject: ${builder.subject}`);
    this.logger.info(`[email] send_email binding called with MessageBuilder:\n${lines.join('\n')}${files.length ? `\n\n${files.join('\n')}` : ''}`);
    return { messageId: messageId(emailOf(builder.from)) };
  }

  private checkDestination(to: string): void {
    const { destinationAddress, allowedDestinationAddresses } = this.config;
    if (destinationAddress !== undefined && to !== destinationAddress) throw new Error(`email to ${to} not allowed`);
    if (allowedDestinationAddresses !== undefined && !allowedDestinationAddresses.includes(to)) throw new Error(`email to ${to} not allowed`);
  }

  private checkSender(from: string): void {
    const allowed = this.config.allowedSenderAddresses;
    if (allowed !== undefined && !allowed.includes(from)) throw new Error(`email from ${from} not allowed`);
  }

  /** Writes one part to its file and returns the path. */
  private store(content: string | ArrayBuffer | ArrayBufferView, extension: string, prefix: string): string {
    const file = path.join(this.dataDir, '_bindings', 'email', prefix, `${randomUUID()}.${extension}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const bytes =
      typeof content === 'string'
        ? content
        : content instanceof ArrayBuffer
          ? new Uint8Array(content)
          : new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
    fs.writeFileSync(file, bytes);
    return file;
  }
}
