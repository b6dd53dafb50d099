/**
 * The fonts Cloudflare's Browser Rendering has installed (docs/render.md, "Fonts"),
 * grouped as its docs group them, with the Debian package that reproduces each here (§2.4) and the
 * fontconfig families that package provides. Whether a family is installed on this machine is
 * asked of an injected lister (`fc-list` in the serve process), never guessed.
 */

export type FontGroup = 'generic' | 'common' | 'open' | 'international';

export interface CatalogFont {
  /** The name Cloudflare's list uses. */
  readonly name: string;
  readonly group: FontGroup;
  /** The CSS family to request (a generic keyword, or a fontconfig family). */
  readonly family: string;
  /** The Debian package that provides it here; undefined when none can (proprietary, contrib). */
  readonly debianPackage?: string;
  /** Why a family has no package here, or what stands in for it. */
  readonly note?: string;
}

const generic = (name: string): CatalogFont => ({ name, group: 'generic', family: name });

export const FONT_CATALOG: readonly CatalogFont[] = [
  ...['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy'].map(generic),
  {
    name: 'Arial',
    group: 'common',
    family: 'Arial',
    note: 'ttf-mscorefonts-installer downloads at install time (contrib); Liberation Sans is metric-compatible',
  },
  { name: 'Arial Black', group: 'common', family: 'Arial Black', note: 'Microsoft core font, not installable here' },
  { name: 'Andale Mono', group: 'common', family: 'Andale Mono', note: 'Microsoft core font, not installable here' },
  { name: 'Comic Sans MS', group: 'common', family: 'Comic Sans MS', note: 'Microsoft core font, not installable here' },
  { name: 'Courier', group: 'common', family: 'Courier', debianPackage: 'fonts-urw-base35', note: 'fontconfig maps it to Liberation Mono or Nimbus Mono PS' },
  { name: 'Courier New', group: 'common', family: 'Courier New', note: 'Liberation Mono is metric-compatible' },
  { name: 'Georgia', group: 'common', family: 'Georgia', note: 'Microsoft core font, not installable here' },
  { name: 'Helvetica', group: 'common', family: 'Helvetica', debianPackage: 'fonts-urw-base35', note: 'fontconfig maps it to Liberation Sans or Nimbus Sans' },
  { name: 'Impact', group: 'common', family: 'Impact', note: 'Microsoft core font, not installable here' },
  { name: 'Lucida Handwriting', group: 'common', family: 'Lucida Handwriting', note: 'proprietary; no Debian package' },
  { name: 'Times', group: 'common', family: 'Times', debianPackage: 'fonts-urw-base35', note: 'fontconfig maps it to Liberation Serif or Nimbus Roman' },
  { name: 'Times New Roman', group: 'common', family: 'Times New Roman', note: 'Liberation Serif is metric-compatible' },
  { name: 'Trebuchet MS', group: 'common', family: 'Trebuchet MS', note: 'Microsoft core font, not installable here' },
  { name: 'Verdana', group: 'common', family: 'Verdana', note: 'Microsoft core font, not installable here' },
  { name: 'Webdings', group: 'common', family: 'Webdings', note: 'Microsoft core font, not installable here' },
  { name: 'Bitstream Vera Serif', group: 'open', family: 'Bitstream Vera Serif', debianPackage: 'ttf-bitstream-vera' },
  { name: 'Bitstream Vera Sans', group: 'open', family: 'Bitstream Vera Sans', debianPackage: 'ttf-bitstream-vera' },
  { name: 'Bitstream Vera Sans Mono', group: 'open', family: 'Bitstream Vera Sans Mono', debianPackage: 'ttf-bitstream-vera' },
  { name: 'Cyberbit', group: 'open', family: 'Bitstream Cyberbit', note: 'not packaged by Debian' },
  { name: 'DejaVu Serif', group: 'open', family: 'DejaVu Serif', debianPackage: 'fonts-dejavu' },
  { name: 'DejaVu Sans', group: 'open', family: 'DejaVu Sans', debianPackage: 'fonts-dejavu' },
  { name: 'DejaVu Sans Mono', group: 'open', family: 'DejaVu Sans Mono', debianPackage: 'fonts-dejavu' },
  { name: 'FreeSerif', group: 'open', family: 'FreeSerif', debianPackage: 'fonts-freefont-ttf' },
  { name: 'FreeSans', group: 'open', family: 'FreeSans', debianPackage: 'fonts-freefont-ttf' },
  { name: 'FreeMono', group: 'open', family: 'FreeMono', debianPackage: 'fonts-freefont-ttf' },
  { name: 'GFS Neohellenic', group: 'open', family: 'GFS Neohellenic', debianPackage: 'fonts-gfs-neohellenic' },
  { name: 'Liberation Serif', group: 'open', family: 'Liberation Serif', debianPackage: 'fonts-liberation' },
  { name: 'Liberation Sans', group: 'open', family: 'Liberation Sans', debianPackage: 'fonts-liberation' },
  { name: 'Liberation Mono', group: 'open', family: 'Liberation Mono', debianPackage: 'fonts-liberation' },
  { name: 'Open Sans', group: 'open', family: 'Open Sans', debianPackage: 'fonts-open-sans' },
  { name: 'Roboto', group: 'open', family: 'Roboto', debianPackage: 'fonts-roboto' },
  { name: 'IPAfont Gothic (Japanese)', group: 'international', family: 'IPAGothic', debianPackage: 'fonts-ipafont-gothic' },
  { name: 'Indic: Devanagari', group: 'international', family: 'Lohit Devanagari', debianPackage: 'fonts-indic' },
  { name: 'Indic: Bengali', group: 'international', family: 'Lohit Bengali', debianPackage: 'fonts-indic' },
  { name: 'Indic: Tamil', group: 'international', family: 'Lohit Tamil', debianPackage: 'fonts-indic' },
  { name: 'KACST (Arabic)', group: 'international', family: 'KacstBook', debianPackage: 'fonts-kacst' },
  { name: 'Noto CJK (Chinese, Japanese, Korean)', group: 'international', family: 'Noto Sans CJK SC', debianPackage: 'fonts-noto-cjk' },
  { name: 'Noto Color Emoji', group: 'international', family: 'Noto Color Emoji', debianPackage: 'fonts-noto-color-emoji' },
  { name: 'TLWG (Thai)', group: 'international', family: 'Garuda', debianPackage: 'fonts-thai-tlwg' },
  { name: 'WenQuanYi Zen Hei (Chinese)', group: 'international', family: 'WenQuanYi Zen Hei', debianPackage: 'fonts-wqy-zenhei' },
];

/** The Debian packages that reproduce the service's set as far as Debian's main archive allows. */
export function fontPackages(): string[] {
  return [...new Set(FONT_CATALOG.flatMap((f) => (f.debianPackage ? [f.debianPackage] : [])))].sort();
}

export interface CatalogEntry extends CatalogFont {
  /** True when the family is installed here (generic families always are). */
  readonly installed: boolean;
}

/**
 * The catalog with what is installed on this machine, given the families fontconfig knows
 * (`fc-list : family` lines, each possibly "A,B" for localized names).
 */
export function catalogWith(installedFamilies: Iterable<string>): CatalogEntry[] {
  const known = new Set<string>();
  for (const line of installedFamilies) for (const name of line.split(',')) known.add(name.trim().toLowerCase());
  return FONT_CATALOG.map((font) => ({ ...font, installed: font.group === 'generic' || known.has(font.family.toLowerCase()) }));
}

/**
 * Installed families that fontconfig substitutes for Cloudflare fonts Debian cannot install, with
 * the same metrics (so the same line breaks and page count): `/etc/fonts/conf.d/30-metric-aliases.conf`.
 */
export const METRIC_STAND_INS: Readonly<Record<string, readonly string[]>> = {
  'times new roman': ['Liberation Serif'],
  arial: ['Liberation Sans'],
  'courier new': ['Liberation Mono'],
  times: ['Liberation Serif', 'Nimbus Roman'],
  helvetica: ['Liberation Sans', 'Nimbus Sans'],
  courier: ['Liberation Mono', 'Nimbus Mono PS'],
};

/** True when `drawn` is the metric-compatible stand-in for the requested family. */
export function isStandIn(requested: string, drawn: string): boolean {
  return METRIC_STAND_INS[requested.toLowerCase()]?.some((f) => f.toLowerCase() === drawn.toLowerCase()) ?? false;
}
