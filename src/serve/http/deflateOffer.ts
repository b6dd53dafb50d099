/**
 * The `permessage-deflate` agreement (RFC 7692) as workerd answers a WebSocket upgrade, so a
 * worker's clients see under Hookbench the `Sec-WebSocket-Extensions` answer they get from
 * `wrangler dev` and Cloudflare. Recorded against workerd 2026-04-26 (the differential suite's
 * routing area checks it): the first valid `permessage-deflate` offer wins (the name compared
 * exactly, offers of other extensions skipped); an offer with an unknown, repeated or malformed
 * parameter is invalid; window bits are decimal integers 8–15 (`+9` and `08` pass, quoted values
 * do not); `client_max_window_bits` without a value is answered `=15`; the answer lists
 * client_no_context_takeover, server_no_context_takeover, client_max_window_bits,
 * server_max_window_bits, in that order. No valid offer: no extension, the upgrade still succeeds.
 */

interface Agreement {
  clientNoContextTakeover: boolean;
  serverNoContextTakeover: boolean;
  clientMaxWindowBits?: number;
  serverMaxWindowBits?: number;
}

function windowBits(value: string): number | undefined {
  if (!/^\+?\d+$/.test(value)) return undefined;
  const bits = Number(value);
  return bits >= 8 && bits <= 15 ? bits : undefined;
}

/** One offer's parameters (the parts after the extension name), or undefined when invalid. */
function parseOffer(params: readonly string[]): Agreement | undefined {
  const agreement: Agreement = { clientNoContextTakeover: false, serverNoContextTakeover: false };
  const seen = new Set<string>();
  for (const param of params) {
    const equals = param.indexOf('=');
    const key = (equals < 0 ? param : param.slice(0, equals)).trim();
    const value = equals < 0 ? undefined : param.slice(equals + 1).trim();
    if (seen.has(key)) return undefined;
    seen.add(key);
    switch (key) {
      case 'client_no_context_takeover':
      case 'server_no_context_takeover':
        if (value !== undefined) return undefined;
        agreement[key === 'client_no_context_takeover' ? 'clientNoContextTakeover' : 'serverNoContextTakeover'] = true;
        break;
      case 'client_max_window_bits': {
        const bits = value === undefined ? 15 : windowBits(value);
        if (bits === undefined) return undefined;
        agreement.clientMaxWindowBits = bits;
        break;
      }
      case 'server_max_window_bits': {
        const bits = value === undefined ? undefined : windowBits(value);
        if (bits === undefined) return undefined;
        agreement.serverMaxWindowBits = bits;
        break;
      }
      default:
        return undefined;
    }
  }
  return agreement;
}

/** The `Sec-WebSocket-Extensions` answer to `offers` (the request header), or undefined for none. */
export function agreeDeflate(offers: string | undefined): string | undefined {
  if (!offers) return undefined;
  for (const offer of offers.split(',')) {
    const [name, ...params] = offer.split(';').map((part) => part.trim());
    if (name !== 'permessage-deflate') continue;
    const agreement = parseOffer(params);
    if (!agreement) continue;
    const parts = ['permessage-deflate'];
    if (agreement.clientNoContextTakeover) parts.push('client_no_context_takeover');
    if (agreement.serverNoContextTakeover) parts.push('server_no_context_takeover');
    if (agreement.clientMaxWindowBits !== undefined) parts.push(`client_max_window_bits=${agreement.clientMaxWindowBits}`);
    if (agreement.serverMaxWindowBits !== undefined) parts.push(`server_max_window_bits=${agreement.serverMaxWindowBits}`);
    return parts.join('; ');
  }
  return undefined;
}
