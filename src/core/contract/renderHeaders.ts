/**
 * The headers the local Browser Rendering emulator adds to Cloudflare's API (docs/render.md, "When
 * captures wait for fonts"), declared once for the emulator (src/serve/renderEmulator) and the
 * client (src/core/browserRendering/client.ts): a request may ask for a capture that does not wait
 * for web fonts, and a render's answer says how its fonts ended up. Cloudflare ignores the one and
 * never sends the other.
 */

/** Sent `false` to capture without waiting for `document.fonts.ready`. */
export const WAIT_FOR_FONTS_HEADER = 'x-hookbench-wait-for-fonts';

/** Whether a request waits for fonts: unless its header says `false`. */
export function waitsForFonts(value: string | readonly string[] | undefined): boolean {
  return String(value ?? 'true').toLowerCase() !== 'false';
}

/** On a render's answer: `ready`, `timeout` or `skipped`. */
export const FONTS_HEADER = 'x-hookbench-fonts';

/** Cloudflare's own: the browser time the request used, in ms, which the emulator answers too. */
export const BROWSER_MS_HEADER = 'x-browser-ms-used';
