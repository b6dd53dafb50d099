// The preview form, built from VS Code's own web components so it looks native in every theme.
// What stops a render is decided by the extension (it answers `check`); the form shows it beside
// each field.
import type { CatalogEntry } from '../core/browserRendering/fontCatalog';
import type { CustomFontSource, FieldProblem, PreviewForm } from '../core/browserRendering/previewProtocol';

const GROUP_TITLES: Record<string, string> = {
  generic: 'Generic families',
  common: 'Common system fonts',
  open: 'Open source and extended',
  international: 'International',
};

type Field = HTMLElement & { value: string };

function el<T extends HTMLElement>(tag: string, attributes: Record<string, string> = {}, children: (Node | string)[] = []): T {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element as T;
}

/** A labelled control with a line under it for the reason it cannot be rendered. */
function labelled(label: string, control: HTMLElement, help?: string): { group: HTMLElement; error: HTMLElement } {
  const id = `f-${label.toLowerCase().replace(/\W+/g, '-')}`;
  control.id = id;
  const error = el('div', { class: 'field-error', id: `${id}-error`, role: 'alert' });
  const group = el('vscode-form-group', { variant: 'vertical' }, [
    el('vscode-label', { for: id }, [label]),
    control,
    error,
    ...(help ? [el('vscode-form-helper', {}, [help])] : []),
  ]);
  return { group, error };
}

function select(
  options: { value: string; label: string; description?: string; disabled?: boolean }[],
  value: string,
  attributes: Record<string, string> = {},
): Field {
  const control = el<Field>('vscode-single-select', attributes);
  for (const o of options) {
    const option = el('vscode-option', { value: o.value, ...(o.description ? { description: o.description } : {}), ...(o.disabled ? { disabled: '' } : {}) }, [
      o.label,
    ]);
    if (o.value === value) option.setAttribute('selected', '');
    control.append(option);
  }
  return control;
}

/** The font choices: the page's own fonts, the catalog by group (what is not installed here says so), a custom font. */
function fontOptions(catalog: CatalogEntry[]): { value: string; label: string; description?: string; disabled?: boolean }[] {
  const options: { value: string; label: string; description?: string; disabled?: boolean }[] = [{ value: 'page', label: "The page's own fonts" }];
  for (const group of Object.keys(GROUP_TITLES)) {
    options.push({ value: `group:${group}`, label: `— ${GROUP_TITLES[group]} —`, disabled: true });
    for (const font of catalog.filter((f) => f.group === group)) {
      options.push({
        value: font.family,
        label: font.name,
        description: font.installed ? (font.debianPackage ?? '') : `not installed here${font.note ? `: ${font.note}` : ''}`,
      });
    }
  }
  options.push({ value: 'custom', label: 'Custom font (URL or file)…' });
  return options;
}

export interface FormView {
  readonly root: HTMLElement;
  read(): PreviewForm;
  setFontFile(source: CustomFontSource): void;
  /** Marks the fields the extension found problems in (and clears the others). */
  showProblems(problems: FieldProblem[]): void;
}

/** The name of the file a form's HTML comes from, for the line under the HTML field. */
const fileName = (uri: string) => decodeURIComponent(uri.split('/').pop() ?? uri);

/**
 * Enter in the font box takes what was typed: the choice it names, else the first whose name
 * contains it (the top of the filtered list), else the typed family itself as a new choice. The
 * element's own Enter takes only a highlighted option, so a typed name was dropped.
 */
function acceptTypedFont(control: Field): void {
  // A click into the box selects the name it shows, so what is typed replaces it instead of
  // being added after it (as a browser's own combo box does).
  control.addEventListener('click', () => control.shadowRoot?.querySelector('input')?.select());
  control.addEventListener(
    'keydown',
    (event) => {
      const typed = (event.key === 'Enter' && control.shadowRoot?.querySelector('input')?.value.trim()) || '';
      if (typed === '') return;
      event.preventDefault();
      event.stopImmediatePropagation();
      const lower = typed.toLowerCase();
      const options = [...control.querySelectorAll<HTMLElement>('vscode-option:not([disabled])')];
      const name = (option: HTMLElement) => (option.textContent ?? '').trim().toLowerCase();
      let match = options.find((o) => name(o) === lower || o.getAttribute('value')?.toLowerCase() === lower) ?? options.find((o) => name(o).includes(lower));
      if (!match) {
        match = el('vscode-option', { value: typed, description: 'typed' }, [typed]);
        control.lastElementChild?.before(match);
      }
      (control as Field & { open: boolean }).open = false;
      control.value = match.getAttribute('value') ?? typed;
      control.dispatchEvent(new Event('change', { bubbles: true }));
      // The box shows the chosen name, not the letters typed (the element's own Enter does this).
      const shown = control as Field & { updateComplete?: Promise<unknown>; updateInputValue?: () => void };
      void shown.updateComplete?.then(() => shown.updateInputValue?.());
    },
    { capture: true },
  );
}

export function buildForm(initial: PreviewForm, catalog: CatalogEntry[], onChange: () => void): FormView {
  let customSource = initial.customSource;
  let htmlFile = initial.source === 'html' ? initial.htmlFile : undefined;
  const source = select(
    [
      { value: 'html', label: 'HTML' },
      { value: 'url', label: 'URL' },
    ],
    initial.source,
  );
  const url = el<Field>('vscode-textfield', { placeholder: 'https://…' });
  url.value = initial.url;
  const html = el<Field>('vscode-textarea', { rows: '6', monospace: '', resize: 'vertical' });
  html.value = initial.html;
  const endpoint = select(
    [
      { value: 'screenshot', label: 'Screenshot (PNG)' },
      { value: 'pdf', label: 'PDF' },
    ],
    initial.endpoint,
  );
  // Numbers stay as typed (a blank is NaN): the extension says what is wrong with them.
  const side = () => el<Field>('vscode-textfield', { type: 'number', min: '1', max: '16384' });
  const width = side();
  width.value = Number.isFinite(initial.width) ? String(initial.width) : '';
  const height = side();
  height.value = Number.isFinite(initial.height) ? String(initial.height) : '';
  const scale = select(
    ['1', '1.5', '2', '3'].map((v) => ({ value: v, label: `${v}×` })),
    String(initial.scale),
  );
  const fontChoices = fontOptions(catalog);
  // A family typed before (restored with the form) is a choice of its own.
  if (initial.font && !fontChoices.some((o) => o.value === initial.font))
    fontChoices.splice(fontChoices.length - 1, 0, { value: initial.font, label: initial.font, description: 'typed' });
  const font = select(fontChoices, initial.font || 'page', { combobox: '' });
  acceptTypedFont(font);
  const family = el<Field>('vscode-textfield', { placeholder: 'Family name (default: the file name)' });
  family.value = initial.customFamily;
  const fontUrl = el<Field>('vscode-textfield', { placeholder: 'https://…/font.woff2' });
  fontUrl.value = initial.customSource?.kind === 'url' ? initial.customSource.url : '';
  const fileLabel = el('span', { class: 'file-name' }, [initial.customSource?.kind === 'file' ? initial.customSource.name : 'no file chosen']);
  const pickFile = el('vscode-button', { secondary: '', id: 'pick-font-file' }, ['Choose File…']);
  const weight = select(
    ['normal', 'bold', '100', '200', '300', '400', '500', '600', '700', '800', '900'].map((v) => ({ value: v, label: v })),
    initial.weight,
  );
  const style = select(
    [
      { value: 'normal', label: 'normal' },
      { value: 'italic', label: 'italic' },
    ],
    initial.style,
  );
  const fallback = select(
    ['sans-serif', 'serif', 'monospace', 'cursive', 'fantasy'].map((v) => ({ value: v, label: v })),
    initial.fallback,
  );

  const fields = {
    source: labelled('Page', source),
    url: labelled('URL', url),
    html: labelled('HTML', html),
    endpoint: labelled('Output', endpoint),
    width: labelled('Width', width),
    height: labelled('Height', height),
    scale: labelled('Scale', scale),
    font: labelled('Font', font),
    fallback: labelled('Fallback', fallback),
    customFamily: labelled('Family', family),
    customSource: labelled('Font URL', fontUrl, 'or a local file, sent as a base64 data URL'),
    weight: labelled('Weight', weight),
    style: labelled('Style', style),
  } satisfies Record<FieldProblem['field'], { group: HTMLElement; error: HTMLElement }>;
  const controls: Record<FieldProblem['field'], HTMLElement> = {
    source,
    url,
    html,
    endpoint,
    width,
    height,
    scale,
    font,
    fallback,
    customFamily: family,
    customSource: fontUrl,
    weight,
    style,
  };

  // A form taken from an HTML file shows the file's text read-only until the user edits it here.
  const fileLine = el('div', { class: 'html-file', id: 'html-file' });
  const unlink = el('vscode-button', { secondary: '', id: 'unlink-html-file' }, ['Edit Here']);
  const fileRow = el('div', { class: 'row html-file-row' }, [fileLine, unlink]);
  fields.html.group.append(fileRow);

  const custom = el('div', { class: 'custom-font' }, [
    fields.customFamily.group,
    fields.customSource.group,
    el('div', { class: 'row' }, [pickFile, fileLabel]),
    el('div', { class: 'row' }, [fields.weight.group, fields.style.group]),
  ]);
  // Before a select has rendered its options its value is '': the initial choice stands until then.
  const chosen = (field: Field, initialValue: string) => field.value || initialValue;
  const sync = () => {
    const isHtml = chosen(source, initial.source) === 'html';
    if (!isHtml) htmlFile = undefined;
    fields.url.group.hidden = isHtml;
    fields.html.group.hidden = !isHtml;
    custom.hidden = chosen(font, initial.font) !== 'custom';
    fileRow.hidden = htmlFile === undefined;
    fileLine.textContent = htmlFile ? `From ${fileName(htmlFile)}: renders again when you save it.` : '';
    if (htmlFile) html.setAttribute('readonly', '');
    else html.removeAttribute('readonly');
  };
  const root = el('form', { class: 'form' }, [
    fields.source.group,
    fields.url.group,
    fields.html.group,
    el('div', { class: 'row' }, [fields.endpoint.group, fields.width.group, fields.height.group, fields.scale.group]),
    el('div', { class: 'row' }, [fields.font.group, fields.fallback.group]),
    custom,
  ]);
  root.addEventListener('change', () => {
    sync();
    onChange();
  });
  root.addEventListener('input', () => onChange());
  pickFile.addEventListener('click', () => root.dispatchEvent(new CustomEvent('pick-font-file', { bubbles: true })));
  unlink.addEventListener('click', () => {
    htmlFile = undefined;
    sync();
    onChange();
  });
  sync();

  const number = (field: Field) => (field.value.trim() === '' ? NaN : Number(field.value));
  return {
    root,
    read: () => {
      const fontUrlValue = fontUrl.value.trim();
      const chosenSource: CustomFontSource | undefined = fontUrlValue ? { kind: 'url', url: fontUrlValue } : customSource;
      const isHtml = chosen(source, initial.source) !== 'url';
      return {
        source: isHtml ? 'html' : 'url',
        url: url.value,
        html: html.value,
        ...(isHtml && htmlFile ? { htmlFile } : {}),
        endpoint: chosen(endpoint, initial.endpoint) === 'pdf' ? 'pdf' : 'screenshot',
        width: number(width),
        height: number(height),
        scale: Number(chosen(scale, String(initial.scale))) || 1,
        font: ((f) => (f === 'page' || f.startsWith('group:') ? '' : f))(chosen(font, initial.font || 'page')),
        customFamily: family.value,
        ...(chosenSource ? { customSource: chosenSource } : {}),
        weight: chosen(weight, initial.weight),
        style: chosen(style, initial.style) === 'italic' ? 'italic' : 'normal',
        fallback: chosen(fallback, initial.fallback) as PreviewForm['fallback'],
      };
    },
    setFontFile: (picked) => {
      customSource = picked;
      fontUrl.value = '';
      fileLabel.textContent = picked.kind === 'file' ? picked.name : picked.url;
      onChange();
    },
    showProblems: (problems) => {
      for (const [name, field] of Object.entries(fields) as [FieldProblem['field'], { error: HTMLElement }][]) {
        const problem = problems.find((p) => p.field === name);
        field.error.textContent = problem?.message ?? '';
        if (problem) controls[name].setAttribute('invalid', '');
        else controls[name].removeAttribute('invalid');
      }
    },
  };
}
