/**
 * A public URL that could not be had, with one line that says what to do: a binary missing from
 * the PATH, a token missing or refused, a relay that answered something else than an event
 * stream. The CLI prints the message as is; the extension shows it as a toast.
 */
export class ExposeError extends Error {
  constructor(
    message: string,
    readonly code: 'missing-binary' | 'missing-token' | 'refused' | 'unreachable' | 'failed',
  ) {
    super(message);
    this.name = 'ExposeError';
  }
}
