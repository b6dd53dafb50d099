/**
 * A request bin for webhooks: POST /bin/<name> keeps the delivery in memory and answers with a
 * receipt; GET / is the page (an imported .html); GET /help is a Markdown file (a `rules` entry);
 * the receipt text comes from an imported .txt template, and the bin's magic header from a .bin
 * file. The signing key and the route table are set up with top-level await before any request.
 */
import page from './assets/index.html';
import receiptTemplate from './assets/receipt.txt';
import magic from './assets/magic.bin';
import help from './assets/help.md';

const encoder = new TextEncoder();

const key = await crypto.subtle.importKey('raw', encoder.encode('bin-signing-key'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
const routes = await Promise.resolve(new Map<string, string>([['/', 'page'], ['/help', 'help'], ['/magic', 'magic']]));
const bins = new Map<string, { at: number; bytes: number }[]>();

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const route = routes.get(url.pathname);
    if (route === 'page') return new Response(page, { headers: { 'content-type': 'text/html;charset=UTF-8' } });
    if (route === 'help') return new Response(help, { headers: { 'content-type': 'text/markdown;charset=UTF-8' } });
    if (route === 'magic') {
      return Response.json({ isArrayBuffer: magic instanceof ArrayBuffer, byteLength: magic.byteLength, bytes: [...new Uint8Array(magic)] });
    }
    const [, section, name] = url.pathname.split('/');
    if (section !== 'bin' || !name) return new Response('Not found', { status: 404 });
    if (request.method === 'GET') return Response.json(bins.get(name) ?? []);
    const body = await request.arrayBuffer();
    const deliveries = bins.get(name) ?? [];
    deliveries.push({ at: deliveries.length + 1, bytes: body.byteLength });
    bins.set(name, deliveries);
    const signature = hex(await crypto.subtle.sign('HMAC', key, body));
    const receipt = receiptTemplate.replace('{bin}', name).replace('{count}', String(deliveries.length)).replace('{signature}', signature);
    return new Response(receipt, { headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-bin-magic': hex(magic.slice(0, 4)) } });
  },
} satisfies ExportedHandler;
