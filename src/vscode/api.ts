/**
 * The extension's API: what `activate` returns, for other extensions (and the integration tests,
 * which use nothing else of the extension's objects). What is stable and why it is this small:
 * docs/architecture.md, "The extension's API". Everything else is reached through the commands,
 * the views, and the receiver's own HTTP API (docs/admin-api.md), with the token given here.
 */
import type * as vscode from 'vscode';

/**
 * The receiver's state: starting, running on `url`, stopped, or failed to start with `message`.
 * `attached`: the running serve is not this window's own but one that already held the
 * workspace's data folder (a terminal's, a task's, another window's), with its pid and what
 * started it in words; `note`: why it stopped, when that is news (the attached serve stopped).
 */
export type ReceiverState =
  | { readonly kind: 'starting' }
  | { readonly kind: 'running'; readonly url: string; readonly attached?: { readonly pid: number; readonly origin: string } }
  | { readonly kind: 'stopped'; readonly note?: string }
  | { readonly kind: 'failed'; readonly message: string };

/** The local receiver (a `hookbench serve` process) this window runs for its workspace, or the one it attached to. */
export interface HookbenchReceiver {
  readonly state: ReceiverState;
  readonly onDidChangeState: vscode.Event<ReceiverState>;
  /** Its base URL (`http://127.0.0.1:<port>`) while it runs: webhooks go to `<url>/webhooks/<provider>/<entity>`. */
  readonly url: string | undefined;
  /**
   * Resolves with its URL once it runs: after a restart under way (a setting or a secret
   * changed), starting it when it is stopped. Rejects when it cannot start.
   */
  ready(): Promise<string>;
  /**
   * The admin API's Bearer token for this session (docs/admin-api.md): a fresh one each time the
   * window starts; while attached to a serve this window did not start, that serve's. It keeps other users and web pages out; another extension runs as the user
   * already. Never log it or show it in a webview.
   */
  readonly adminToken: string;
  /** The local Browser Rendering emulator's `…/client/v4` base URL while it runs (docs/render.md). */
  readonly renderUrl: string | undefined;
  /** The emulator's Bearer token for this session, as Cloudflare's API token is for Cloudflare. */
  readonly renderToken: string;
  /** The folder the receiver keeps its instances and deliveries in (in an untrusted workspace, VS Code's private storage). */
  readonly dataFolder: string;
}

/**
 * How long activation took, in milliseconds: `activationMs` the `activate` call;
 * `loadMs` from the bundle's first statement to `activate` (evaluating the bundle, then VS Code
 * preparing the ExtensionContext, which VS Code's own activation time leaves out);
 * `bundleStartedAt` when the bundle began evaluating (ms since the epoch, as VS Code's marks);
 * `receiverReadyMs` from the start of activation to the receiver listening.
 */
export interface ActivationTimings {
  readonly activationMs: number;
  readonly loadMs: number;
  readonly bundleStartedAt: number;
  readonly receiverReadyMs: Promise<number>;
}

/** What `activate` returns. */
export interface HookbenchApi {
  readonly receiver: HookbenchReceiver;
  /** The newest lines written to the Hookbench log (Output › Hookbench), oldest first. */
  recentLog(): readonly string[];
  readonly timings: ActivationTimings;
}
