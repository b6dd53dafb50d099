// The preview form, built from VS Code's own web components so it looks native in every theme.
import type { CatalogEntry } from '../core/render/fontCatalog';
import type { CustomFontSource, PreviewForm } from '../core/render/previewProtocol';

export const DEFAULT_FORM: PreviewForm = {
  source: 'html',
  url: 'https://example.com/',
  html: '<h1>Invoice #1042</h1>\n<p>Thank you for your order. 谢谢 · شكرا · ขอบคุณ 🎉</p>',
  endpoint: 'screenshot',
  width: 1280,
  height: 720,
  scale: 1,
  font: '',
  customFamily: '',
  weight: 'normal',
  style: 'normal',
  fallback: 'sans-serif',
};

const GROUP_TITLES: Record<string, string> = { generic: 'Generic families', common: 'Common system fonts', open: 'Open source and extended', international: 'International' };

type Field = HTMLElement & { value: string };

function el<T extends HTMLElement>(tag: string, attributes: Record<string, string> = {}, children: (Node | string)[] = []): T {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element as T;
}

function labelled(label: string, control: HTMLElement, help?: string): HTMLElement {
  const id = `f-${label.toLowerCase().replace(/\W+/g, '-')}`;
  control.id = id;
  return el('vscode-form-group', { variant: 'vertical' }, [el('vscode-label', { for: id }, [label]), control, ...(help ? [el('vscode-form-helper', {}, [help])] : [])]);
}

function select(options: { value: string; label: string; description?: string; disabled?: boolean }[], value: string, attributes: Record<string, string> = {}): Field {
  const control = el<Field>('vscode-single-select', attributes);
  for (const o of options) {
    const option = el('vscode-option', { value: o.value, ...(o.description ? { description: o.description } : {}), ...(o.disabled ? { disabled: '' } : {}) }, [o.label]);
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
      options.push({ value: font.family, label: font.name, description: font.installed ? (font.debianPackage ?? '') : `not installed here${font.note ? `: ${font.note}` : ''}` });
    }
  }
  options.push({ value: 'custom', label: 'Custom font (URL or file)…' });
  return options;
}

export interface FormView {
  readonly root: HTMLElement;
  read(): PreviewForm;
  setFontFile(source: CustomFontSource): void;
}

export function buildForm(initial: PreviewForm, catalog: CatalogEntry[], onChange: () => void): FormView {
  let customSource = initial.customSource;
  const source = select([{ value: 'html', label: 'HTML' }, { value: 'url', label: 'URL' }], initial.source);
  const url = el<Field>('vscode-textfield', { placeholder: 'https://…' });
  url.value = initial.url;
  const html = el<Field>('vscode-textarea', { rows: '6', monospace: '', resize: 'vertical' });
  html.value = initial.html;
  const endpoint = select([{ value: 'screenshot', label: 'Screenshot (PNG)' }, { value: 'pdf', label: 'PDF' }], initial.endpoint);
  const width = el<Field>('vscode-textfield', { type: 'number', min: '1' });
  width.value = String(initial.width);
  const height = el<Field>('vscode-textfield', { type: 'number', min: '1' });
  height.value = String(initial.height);
  const scale = select(['1', '1.5', '2', '3'].map((v) => ({ value: v, label: `${v}×` })), String(initial.scale));
  const font = select(fontOptions(catalog), initial.font || 'page', { combobox: '' });
  const family = el<Field>('vscode-textfield', { placeholder: 'Family name (default: the file name)' });
  family.value = initial.customFamily;
  const fontUrl = el<Field>('vscode-textfield', { placeholder: 'https://…/font.woff2' });
  fontUrl.value = initial.customSource?.kind === 'url' ? initial.customSource.url : '';
  const fileLabel = el('span', { class: 'file-name' }, [initial.customSource?.kind === 'file' ? initial.customSource.name : 'no file chosen']);
  const pickFile = el('vscode-button', { secondary: '', id: 'pick-font-file' }, ['Choose File…']);
  const weight = select(['normal', 'bold', '100', '200', '300', '400', '500', '600', '700', '800', '900'].map((v) => ({ value: v, label: v })), initial.weight);
  const style = select([{ value: 'normal', label: 'normal' }, { value: 'italic', label: 'italic' }], initial.style);
  const fallback = select(['sans-serif', 'serif', 'monospace', 'cursive', 'fantasy'].map((v) => ({ value: v, label: v })), initial.fallback);

  const custom = el('div', { class: 'custom-font' }, [
    labelled('Family', family),
    labelled('Font URL', fontUrl, 'or a local file, sent as a base64 data URL'),
    el('div', { class: 'row' }, [pickFile, fileLabel]),
    el('div', { class: 'row' }, [labelled('Weight', weight), labelled('Style', style)]),
  ]);
  const urlGroup = labelled('URL', url);
  const htmlGroup = labelled('HTML', html);
  // Before a select has rendered its options its value is '': the initial choice stands until then.
  const chosen = (field: Field, initialValue: string) => field.value || initialValue;
  const sync = () => {
    urlGroup.hidden = chosen(source, initial.source) !== 'url';
    htmlGroup.hidden = chosen(source, initial.source) !== 'html';
    custom.hidden = chosen(font, initial.font) !== 'custom';
  };
  const root = el('form', { class: 'form' }, [
    labelled('Page', source),
    urlGroup,
    htmlGroup,
    el('div', { class: 'row' }, [labelled('Output', endpoint), labelled('Width', width), labelled('Height', height), labelled('Scale', scale)]),
    el('div', { class: 'row' }, [labelled('Font', font), labelled('Fallback', fallback)]),
    custom,
  ]);
  root.addEventListener('change', () => {
    sync();
    onChange();
  });
  root.addEventListener('input', () => onChange());
  pickFile.addEventListener('click', () => root.dispatchEvent(new CustomEvent('pick-font-file', { bubbles: true })));
  sync();

  const number = (field: Field, fallbackValue: number) => {
    const n = Math.round(Number(field.value));
    return Number.isFinite(n) && n > 0 ? n : fallbackValue;
  };
  return {
    root,
    read: () => {
      const fontUrlValue = fontUrl.value.trim();
      const chosenSource: CustomFontSource | undefined = fontUrlValue ? { kind: 'url', url: fontUrlValue } : customSource;
      return {
        source: chosen(source, initial.source) === 'url' ? 'url' : 'html',
        url: url.value,
        html: html.value,
        endpoint: chosen(endpoint, initial.endpoint) === 'pdf' ? 'pdf' : 'screenshot',
        width: number(width, DEFAULT_FORM.width),
        height: number(height, DEFAULT_FORM.height),
        scale: Number(chosen(scale, String(initial.scale))) || 1,
        font: ((f) => (f === 'page' || f.startsWith('group:') ? '' : f))(chosen(font, initial.font || 'page')),
        customFamily: family.value,
        ...(chosenSource ? { customSource: chosenSource } : {}),
        weight: chosen(weight, initial.weight),
        style: chosen(style, initial.style) === 'italic' ? 'italic' : 'normal',
        fallback: chosen(fallback, initial.fallback) as PreviewForm['fallback'],
      };
    },
    setFontFile: (chosen) => {
      customSource = chosen;
      fontUrl.value = '';
      fileLabel.textContent = chosen.kind === 'file' ? chosen.name : chosen.url;
      onChange();
    },
  };
}
