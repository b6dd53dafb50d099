/** What the outbound sink (`POST /__hookbench/sink/<name>`) captured, as the admin API and the live feed describe it. */

/** One captured request, byte for byte. */
export interface Capture {
  readonly id: string;
  readonly sink: string;
  readonly time: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly bodyBase64: string;
  /** "valid", the failure reason, or null when no sink secret is set. */
  readonly verification: string | null;
}

/** A capture on the live feed: without the base64 copy of its body. */
export type CaptureSummary = Omit<Capture, 'bodyBase64'>;

/** The sink's answer to the request it captured. */
export interface SinkReceipt {
  readonly received: true;
  readonly id: string;
  readonly verification: string | null;
}
