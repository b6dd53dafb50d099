// What `import { EmailMessage } from 'cloudflare:email'` gives a worker bundled by Hookbench.
export { EmailMessage } from '../bindings/sendEmail';
