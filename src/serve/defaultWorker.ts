/**
 * The built-in webhook worker (src/workers/default) as the serve process runs it: its binding,
 * its settings as vars, and where its bundle is (pre-built beside the CLI, or the source when
 * running from a checkout).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WranglerConfig } from '../core/workerConfig/wranglerConfig';

export interface DefaultWorkerSettings {
  readonly retentionCount?: number;
  readonly retentionDays?: number;
  readonly publicUrl?: string;
  readonly outboundUrl?: string;
  readonly chatUrl?: string;
}

export function defaultWorkerConfig(settings: DefaultWorkerSettings): WranglerConfig {
  const vars: Record<string, string> = {};
  if (settings.retentionCount !== undefined) vars['HOOKBENCH_RETENTION_COUNT'] = String(settings.retentionCount);
  if (settings.retentionDays !== undefined) vars['HOOKBENCH_RETENTION_DAYS'] = String(settings.retentionDays);
  if (settings.publicUrl !== undefined) vars['HOOKBENCH_PUBLIC_URL'] = settings.publicUrl;
  if (settings.outboundUrl !== undefined) vars['OUTBOUND_WEBHOOK_URL'] = settings.outboundUrl;
  if (settings.chatUrl !== undefined) vars['CHAT_WEBHOOK_URL'] = settings.chatUrl;
  return { file: '(built-in)', main: undefined, durableObjects: [{ name: 'WEBHOOK_AGENT', className: 'WebhookAgent' }], vars };
}

/** The pre-built bundle next to dist/cli.js, if this is a build. */
export function prebuiltDefaultWorker(distDir: string = __dirname): string | undefined {
  const file = path.join(distDir, 'workers', 'default.js');
  return fs.existsSync(file) ? file : undefined;
}
