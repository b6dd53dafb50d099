/**
 * Where renders go, from `hookbench.render.target`: the local emulator of the receiver's serve
 * process (started when needed; its token is the session's) or Cloudflare (account id from the
 * settings, API token from SecretStorage, never from settings).
 */
import * as vscode from 'vscode';
import { CLOUDFLARE_API, type RenderTarget } from '../../core/browserRendering/client';
import type { ServerController } from '../receiver/serverController';

export const CLOUDFLARE_TOKEN_KEY = 'hookbench.render.cloudflareToken';

export interface ResolvedTarget extends RenderTarget {
  readonly local: boolean;
  readonly label: string;
}

export class RenderTargetError extends Error {}

export async function resolveTarget(server: ServerController, secrets: vscode.SecretStorage): Promise<ResolvedTarget> {
  const settings = vscode.workspace.getConfiguration('hookbench.render');
  if (settings.get<string>('target', 'local') === 'cloudflare') {
    const accountId = settings.get<string>('accountId', '').trim();
    if (!accountId) throw new RenderTargetError('Set hookbench.render.accountId to render through Cloudflare.');
    const token = await secrets.get(CLOUDFLARE_TOKEN_KEY);
    if (!token) throw new RenderTargetError('No Cloudflare API token: run "Hookbench: Set Render Token".');
    return { baseUrl: CLOUDFLARE_API, accountId, token, local: false, label: `Cloudflare (${accountId})` };
  }
  await server.start();
  const baseUrl = server.renderUrl;
  if (!baseUrl) throw new RenderTargetError('The local render emulator is not running: its port may be taken (hookbench.render.port); see the Hookbench log.');
  return { baseUrl, accountId: 'local', token: server.renderToken, local: true, label: `local emulator (${new URL(baseUrl).host})` };
}
