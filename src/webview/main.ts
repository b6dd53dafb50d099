// Runs inside the render-preview webview. It talks to the extension only through postMessage:
// the form goes out (to be checked as it changes, and to be rendered), the capture, its font
// report and warnings come back. Its state survives reloads.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-form-group/index.js';
import '@vscode-elements/elements/dist/vscode-form-helper/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { CatalogEntry } from '../core/browserRendering/fontCatalog';
import type { PreviewForm, ToExtension, ToWebview, Zoom } from '../core/browserRendering/previewProtocol';
import { buildForm, type FormView } from './form';
import { applyZoom, showFailure, showImage, showPdf, showReport, showWarnings } from './results';
import { STYLES } from './styles';

interface State {
  readonly form?: PreviewForm;
  readonly zoom?: Zoom;
}
declare function acquireVsCodeApi(): { postMessage(message: ToExtension): void; getState(): State | undefined; setState(state: State): void };

const vscode = acquireVsCodeApi();
const app = document.getElementById('app')!;
const workerUrl = app.dataset['pdfWorker'] ?? '';
const style = document.createElement('style');
style.nonce = app.dataset['nonce'] ?? '';
style.textContent = STYLES;
document.head.append(style);

type Button = HTMLElement & { disabled: boolean };
const button = (text: string, id: string, secondary = false): Button => {
  const element = Object.assign(document.createElement('vscode-button'), { textContent: text, id }) as Button;
  if (secondary) element.setAttribute('secondary', '');
  return element;
};
const toolbar = Object.assign(document.createElement('div'), { className: 'toolbar' });
const renderButton = button('Render', 'render');
const curlButton = button('Copy as cURL', 'copy-curl', true);
const reveal = Object.assign(document.createElement('vscode-checkbox'), { textContent: 'with token', id: 'reveal-token' }) as HTMLElement & {
  checked: boolean;
};
const saveButton = button('Save…', 'save', true);
const status = Object.assign(document.createElement('span'), { className: 'status', id: 'status' });
toolbar.append(renderButton, curlButton, reveal, saveButton, status);

const warnings = Object.assign(document.createElement('div'), { className: 'warnings', id: 'warnings', hidden: true });
warnings.setAttribute('role', 'alert');
const fitButton = button('Fit', 'zoom-fit');
const actualButton = button('1:1', 'zoom-actual', true);
const zoomBar = Object.assign(document.createElement('div'), { className: 'zoom-bar', id: 'zoom-bar', hidden: true });
zoomBar.append(Object.assign(document.createElement('span'), { textContent: 'Zoom' }), fitButton, actualButton);
const capture = Object.assign(document.createElement('div'), { className: 'capture-area', id: 'capture' });
const report = Object.assign(document.createElement('div'), { className: 'report-area', id: 'report' });
let form: FormView | undefined;
let mounted: { catalog: CatalogEntry[]; target: string } | undefined;
let zoom: Zoom = vscode.getState()?.zoom ?? 'fit';
/** The check the answer must belong to: an answer to an older one is stale. */
let lastCheck = 0;
let checkTimer: ReturnType<typeof setTimeout> | undefined;
let problemCount = 0;
/** When the user pressed Render, for the render under way: the preview's timing starts there. */
let clickedAt: number | undefined;

function setStatus(text: string, kind: 'info' | 'error' | 'busy' = 'info'): void {
  status.textContent = text;
  status.dataset['kind'] = kind;
}

function send(message: ToExtension): void {
  vscode.postMessage(message);
}

function saveState(): void {
  vscode.setState({ ...(form ? { form: form.read() } : {}), zoom });
}

/** Asks the extension which fields stop a render; soon after typing stops, at once otherwise. */
function check(delayMs = 0): void {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(() => form && send({ type: 'check', requestId: ++lastCheck, form: form.read() }), delayMs);
}

function mount(initial: PreviewForm, catalog: CatalogEntry[], target: string): void {
  mounted = { catalog, target };
  form = buildForm(initial, catalog, () => {
    saveState();
    check(150);
  });
  saveState();
  form.root.addEventListener('pick-font-file', () => send({ type: 'pickFontFile' }));
  form.root.addEventListener('submit', (event) => event.preventDefault());
  const left = Object.assign(document.createElement('section'), { className: 'left' });
  left.append(form.root, toolbar);
  const right = Object.assign(document.createElement('section'), { className: 'right' });
  const heading = Object.assign(document.createElement('h2'), { textContent: 'Font report' });
  right.append(warnings, zoomBar, capture, heading, report);
  app.replaceChildren(left, right);
  setStatus(`Target: ${target}`);
  check();
}

/** The pressed zoom button is the primary one. */
function paintZoom(): void {
  fitButton.toggleAttribute('secondary', zoom !== 'fit');
  actualButton.toggleAttribute('secondary', zoom !== 'actual');
  fitButton.setAttribute('aria-pressed', String(zoom === 'fit'));
  actualButton.setAttribute('aria-pressed', String(zoom === 'actual'));
}
paintZoom();

function setZoom(next: Zoom): void {
  zoom = next;
  paintZoom();
  saveState();
  const image = capture.querySelector('img');
  if (image) applyZoom(image, zoom);
}

/** `arrived`: when the message came; `clicked`: when the user's Render click asked for it, if it did. */
function showRendered(message: Extract<ToWebview, { type: 'rendered' }>, arrived: number, clicked: number | undefined): void {
  const ms = message.browserMsUsed !== undefined ? ` · ${message.browserMsUsed} browser ms` : '';
  showWarnings(warnings, message.warnings);
  if (message.report) showReport(report, message.report);
  else report.textContent = message.reportError ? `No font report: ${message.reportError}` : 'The font report comes from the local emulator only.';
  const noted = message.warnings.length > 0 ? ` · ${message.warnings.length} font warning${message.warnings.length === 1 ? '' : 's'}` : '';
  if (message.contentType.includes('pdf')) {
    zoomBar.hidden = true;
    void showPdf(capture, message.data, workerUrl).then(
      (pages) => setStatus(`PDF, ${pages} page${pages === 1 ? '' : 's'}${ms}${noted}`),
      (error: Error) => setStatus(`Could not draw the PDF: ${error.message}`, 'error'),
    );
    return;
  }
  zoomBar.hidden = false;
  const image = showImage(capture, message.contentType, message.data, zoom);
  setStatus(`${message.contentType}${ms}${noted}`);
  // Shown: decoded, so the next frame paints it without waiting for the bytes.
  image.decode().then(
    () => {
      applyZoom(image, zoom);
      const shown = performance.now();
      // How long the user's click took to show (the extension logs it with its own part).
      if (clicked !== undefined) send({ type: 'displayed', timing: { clickToShownMs: shown - clicked, arrivedToShownMs: shown - arrived } });
    },
    () => setStatus(`Could not draw the ${message.contentType} capture: its bytes are not an image`, 'error'),
  );
}

renderButton.addEventListener('click', () => {
  if (!form || renderButton.disabled) return;
  clickedAt = performance.now();
  send({ type: 'render', form: form.read() });
});
curlButton.addEventListener('click', () => form && send({ type: 'copyCurl', form: form.read(), revealToken: reveal.checked }));
saveButton.addEventListener('click', () => send({ type: 'save' }));
fitButton.addEventListener('click', () => setZoom('fit'));
actualButton.addEventListener('click', () => setZoom('actual'));

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'init':
      // A form the extension rendered (a command's argument) wins over the saved one.
      mount(message.form ?? vscode.getState()?.form ?? message.defaults, message.catalog, message.target);
      break;
    case 'setForm':
      // A command's render: not the click's.
      clickedAt = undefined;
      if (mounted) mount(message.form, mounted.catalog, mounted.target);
      break;
    case 'checked': {
      if (message.requestId !== undefined && message.requestId !== lastCheck) break;
      form?.showProblems(message.problems);
      problemCount = message.problems.length;
      renderButton.disabled = problemCount > 0;
      renderButton.title = problemCount > 0 ? 'Fix the fields marked below to render' : '';
      if (problemCount > 0) setStatus(`Fix ${problemCount === 1 ? 'the marked field' : `the ${problemCount} marked fields`} to render.`, 'error');
      else if (status.dataset['kind'] === 'error' && status.textContent?.startsWith('Fix ')) setStatus(`Target: ${mounted?.target ?? ''}`);
      break;
    }
    case 'rendering':
      // What is on screen belongs to the previous render until the new one arrives.
      capture.dataset['stale'] = 'true';
      report.dataset['stale'] = 'true';
      setStatus('Rendering…', 'busy');
      break;
    case 'rendered':
      delete capture.dataset['stale'];
      delete report.dataset['stale'];
      showRendered(message, performance.now(), clickedAt);
      clickedAt = undefined;
      break;
    case 'renderFailed':
      delete capture.dataset['stale'];
      delete report.dataset['stale'];
      zoomBar.hidden = true;
      clickedAt = undefined;
      showFailure(capture, report, warnings, message.message);
      setStatus(message.message, 'error');
      break;
    case 'fontFile':
      form?.setFontFile(message.source);
      break;
    case 'error':
      setStatus(message.message, 'error');
      break;
  }
});

send({ type: 'ready' });
