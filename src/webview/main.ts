// Runs inside the render-preview webview. It talks to the extension only through postMessage:
// the form goes out, the capture and its font report come back. Its state survives reloads.
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
import type { PreviewForm, ToExtension, ToWebview } from '../core/render/previewProtocol';
import { buildForm, DEFAULT_FORM, type FormView } from './form';
import { showImage, showPdf, showReport } from './results';
import { STYLES } from './styles';

declare function acquireVsCodeApi(): { postMessage(message: ToExtension): void; getState(): { form?: PreviewForm } | undefined; setState(state: { form: PreviewForm }): void };

const vscode = acquireVsCodeApi();
const app = document.getElementById('app')!;
const workerUrl = app.dataset['pdfWorker'] ?? '';
const style = document.createElement('style');
style.nonce = app.dataset['nonce'] ?? '';
style.textContent = STYLES;
document.head.append(style);

const toolbar = document.createElement('div');
toolbar.className = 'toolbar';
const renderButton = Object.assign(document.createElement('vscode-button'), { textContent: 'Render', id: 'render' });
const curlButton = Object.assign(document.createElement('vscode-button'), { textContent: 'Copy as cURL', id: 'copy-curl' });
curlButton.setAttribute('secondary', '');
const reveal = Object.assign(document.createElement('vscode-checkbox'), { textContent: 'with token', id: 'reveal-token' }) as HTMLElement & { checked: boolean };
const saveButton = Object.assign(document.createElement('vscode-button'), { textContent: 'Save…', id: 'save' });
saveButton.setAttribute('secondary', '');
const status = Object.assign(document.createElement('span'), { className: 'status', id: 'status' });
toolbar.append(renderButton, curlButton, reveal, saveButton, status);

const capture = Object.assign(document.createElement('div'), { className: 'capture-area', id: 'capture' });
const report = Object.assign(document.createElement('div'), { className: 'report-area', id: 'report' });
let form: FormView | undefined;
let mounted: { catalog: Parameters<typeof buildForm>[1]; target: string } | undefined;

function setStatus(text: string, kind: 'info' | 'error' | 'busy' = 'info'): void {
  status.textContent = text;
  status.dataset['kind'] = kind;
}

function send(message: ToExtension): void {
  vscode.postMessage(message);
}

function mount(initial: PreviewForm, catalog: Parameters<typeof buildForm>[1], target: string): void {
  mounted = { catalog, target };
  vscode.setState({ form: initial });
  form = buildForm(initial, catalog, () => vscode.setState({ form: form!.read() }));
  form.root.addEventListener('pick-font-file', () => send({ type: 'pickFontFile' }));
  form.root.addEventListener('submit', (event) => event.preventDefault());
  const left = Object.assign(document.createElement('section'), { className: 'left' });
  left.append(form.root, toolbar);
  const right = Object.assign(document.createElement('section'), { className: 'right' });
  const heading = Object.assign(document.createElement('h2'), { textContent: 'Font report' });
  right.append(capture, heading, report);
  app.replaceChildren(left, right);
  setStatus(`Target: ${target}`);
}

renderButton.addEventListener('click', () => form && send({ type: 'render', form: form.read() }));
curlButton.addEventListener('click', () => form && send({ type: 'copyCurl', form: form.read(), revealToken: reveal.checked }));
saveButton.addEventListener('click', () => send({ type: 'save' }));

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'init':
      // A form the extension rendered (a command's argument) wins over the saved one.
      mount(message.form ?? vscode.getState()?.form ?? DEFAULT_FORM, message.catalog, message.target);
      break;
    case 'setForm':
      if (mounted) mount(message.form, mounted.catalog, mounted.target);
      break;
    case 'rendering':
      setStatus('Rendering…', 'busy');
      break;
    case 'rendered': {
      const ms = message.browserMsUsed !== undefined ? ` · ${message.browserMsUsed} browser ms` : '';
      const reportRows = message.report ? message.report.elements.length : 0;
      if (message.report) showReport(report, message.report.elements, message.report.fontsReady);
      else report.textContent = message.reportError ? `No font report: ${message.reportError}` : 'The font report comes from the local emulator only.';
      const displayed = (pages: number) => send({ type: 'displayed', contentType: message.contentType, pages, reportRows });
      if (message.contentType.includes('pdf')) {
        void showPdf(capture, message.data, workerUrl).then(
          (pages) => {
            setStatus(`PDF, ${pages} page${pages === 1 ? '' : 's'}${ms}`);
            displayed(pages);
          },
          (error: Error) => setStatus(`Could not draw the PDF: ${error.message}`, 'error'),
        );
      } else {
        showImage(capture, message.contentType, message.data);
        setStatus(`${message.contentType}${ms}`);
        const image = capture.querySelector('img');
        image?.addEventListener('load', () => displayed(1), { once: true });
      }
      break;
    }
    case 'fontFile':
      form?.setFontFile(message.source);
      break;
    case 'error':
      setStatus(message.message, 'error');
      break;
  }
});

send({ type: 'ready' });
