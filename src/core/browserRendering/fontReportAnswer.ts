/**
 * The answer of the emulator's `POST /hookbench/font-report` (docs/render.md, "Font report"): per
 * element with text, the families it asked for and the platform fonts that drew its glyphs. Serve's
 * render emulator writes it (serve/renderEmulator/fontReport.ts); `hookbench render --font-report`
 * and the render preview read it.
 */
export interface DrawnFont {
  readonly family: string;
  /** The face that drew the most of its glyphs (the family's faces are one entry, see `faces`). */
  readonly postScriptName: string;
  /** Every face of the family that drew some, most glyphs first: regular, bold, … */
  readonly faces: string[];
  /** A downloaded (web) font rather than an installed one. */
  readonly custom: boolean;
  readonly glyphs: number;
  /** The requested family this font stands for, or null when it stands for none of them. */
  readonly requestedAs: string | null;
  /** It replaces `requestedAs` with the same metrics (a Microsoft font Debian cannot install). */
  readonly standIn?: boolean;
}

export interface ElementFonts {
  /** A CSS path to the element (tag, id, nth-of-type). */
  readonly selector: string;
  /** Its own text, trimmed and cut to 80 characters. */
  readonly text: string;
  readonly requested: string[];
  readonly fonts: DrawnFont[];
  readonly fallback: boolean;
}

export interface FontReport {
  readonly elements: ElementFonts[];
  /** The @font-face families the page declared, with their loading status. */
  readonly webFonts: { family: string; status: string }[];
}
