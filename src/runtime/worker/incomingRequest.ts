/**
 * A request from the network as a worker sees it under wrangler dev (Miniflare's entry worker,
 * 4.20260426.0): `Accept-Encoding` is always `br, gzip` (what Cloudflare's edge hands a worker),
 * the client's own value moving to `request.cf.clientAcceptEncoding`; `CF-Connecting-IP` is the
 * client's address unless the request already carries one; and `request.cf` is Miniflare's
 * placeholder (its `fallbackCf`, used when the real `cf` object is not downloaded: wrangler dev
 * offline, or with CLOUDFLARE_CF_FETCH_ENABLED=false).
 */

const TLS_CLIENT_AUTH = Object.freeze({
  certPresented: '0',
  certVerified: 'NONE',
  certRevoked: '0',
  certIssuerDN: '',
  certSubjectDN: '',
  certIssuerDNRFC2253: '',
  certSubjectDNRFC2253: '',
  certIssuerDNLegacy: '',
  certSubjectDNLegacy: '',
  certSerial: '',
  certIssuerSerial: '',
  certSKI: '',
  certIssuerSKI: '',
  certFingerprintSHA1: '',
  certFingerprintSHA256: '',
  certNotBefore: '',
  certNotAfter: '',
});

const BOT_MANAGEMENT = Object.freeze({
  corporateProxy: false,
  verifiedBot: false,
  ja3Hash: '25b4882c2bcb50cd6b469ff28c596742',
  staticResource: false,
  detectionIds: Object.freeze([]),
  score: 99,
});

/** Miniflare's placeholder `request.cf`, field for field. */
export const PLACEHOLDER_CF: Readonly<Record<string, unknown>> = Object.freeze({
  asOrganization: '',
  asn: 395747,
  colo: 'DFW',
  city: 'Austin',
  region: 'Texas',
  regionCode: 'TX',
  metroCode: '635',
  postalCode: '78701',
  country: 'US',
  continent: 'NA',
  timezone: 'America/Chicago',
  latitude: '30.27130',
  longitude: '-97.74260',
  clientTcpRtt: 0,
  httpProtocol: 'HTTP/1.1',
  requestPriority: 'weight=192;exclusive=0',
  tlsCipher: 'AEAD-AES128-GCM-SHA256',
  tlsVersion: 'TLSv1.3',
  tlsClientAuth: TLS_CLIENT_AUTH,
  edgeRequestKeepAliveStatus: 0,
  hostMetadata: undefined,
  clientTrustScore: 99,
  botManagement: BOT_MANAGEMENT,
});

/**
 * A fresh copy of the placeholder for one request, so a worker that changes its `cf` changes no
 * other request's. Copied field by field: `structuredClone` of it was a measurable share of serve's
 * time under the receiver's load on Node 20 (docs/performance.md, "Into the worker").
 */
function placeholderCf(clientAcceptEncoding: string): Record<string, unknown> {
  return { ...PLACEHOLDER_CF, tlsClientAuth: { ...TLS_CLIENT_AUTH }, botManagement: { ...BOT_MANAGEMENT, detectionIds: [] }, clientAcceptEncoding };
}

/** What the worker's `fetch` receives for `request` from the client at `clientAddress`. */
export function asWorkerRequest(request: Request, clientAddress: string | undefined): Request {
  const clientAcceptEncoding = request.headers.get('Accept-Encoding') ?? '';
  request.headers.set('Accept-Encoding', 'br, gzip');
  const ip = clientAddress?.replace(/^::ffff:/, '');
  if (ip && !request.headers.get('CF-Connecting-IP')) request.headers.set('CF-Connecting-IP', ip);
  const cf = placeholderCf(clientAcceptEncoding);
  Object.defineProperty(request, 'cf', { value: cf, enumerable: false, configurable: true });
  return request;
}
