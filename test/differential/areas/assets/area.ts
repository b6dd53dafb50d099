/**
 * The assets area: Workers Static Assets beside a worker (html_handling auto-trailing-slash,
 * not_found_handling 404-page, run_worker_first patterns, env.ASSETS.fetch, ETag and 304).
 */
import type { Area, Compare } from '../../step';

const asset: Compare = { body: 'text', headers: ['content-type', 'cache-control', 'location', 'etag', 'x-inner-type', 'x-inner-location'] };
const json: Compare = { body: 'json', headers: ['content-type'] };

export const area: Area = {
  name: 'assets',
  folder: 'assets',
  steps: [
    { name: 'the index at /', path: '/', compare: asset },
    { name: '/index.html redirects to /', path: '/index.html', compare: asset },
    { name: '/index redirects to /', path: '/index', compare: asset },
    { name: 'about.html served at /about', path: '/about', compare: asset },
    { name: '/about.html redirects to /about', path: '/about.html?x=1', compare: asset },
    { name: '/about/ redirects to /about', path: '/about/', compare: asset },
    { name: 'a folder index at /docs/', path: '/docs/', compare: asset },
    { name: '/docs redirects to /docs/', path: '/docs', compare: asset },
    { name: '/docs/index.html redirects to /docs/', path: '/docs/index.html', compare: asset },
    { name: 'a nested page', path: '/blog/post', compare: asset },
    { name: 'css with its charset', path: '/style.css', compare: asset },
    { name: 'javascript', path: '/app/main.js', compare: asset },
    { name: 'json', path: '/data.json', compare: asset },
    { name: 'text', path: '/notes.txt', compare: asset },
    { name: 'HEAD of an asset', method: 'HEAD', path: '/style.css', compare: asset },
    { name: 'an If-None-Match that does not match is a 200 with the ETag', path: '/style.css', headers: { 'if-none-match': 'W/"nope"' }, compare: asset },
    { name: 'with route patterns, a missing path not routed to the worker gets the 404 page', path: '/nothing/here', compare: asset },
    { name: 'a missing path on navigation gets the nearest 404 page', path: '/docs/missing', headers: { 'sec-fetch-mode': 'navigate' }, compare: asset },
    { name: 'a POST to an asset path goes to the asset worker: 405', method: 'POST', path: '/style.css', compare: asset },
    { name: 'with route patterns, a POST not routed to the worker is 405', method: 'POST', path: '/submit', compare: asset },
    { name: 'a POST routed to the worker reaches it', method: 'POST', path: '/api/submit', compare: json },
    { name: 'run_worker_first pattern: /api/* to the worker', path: '/api/items', compare: json },
    { name: 'run_worker_first negative pattern: /api/docs/* to assets', path: '/api/docs/', compare: asset },
    { name: 'a negative pattern path that is missing: the 404 page', path: '/api/docs/missing', compare: asset },
    { name: 'env.ASSETS.fetch serves a file', path: '/api/asset/style.css', compare: asset },
    { name: 'env.ASSETS.fetch follows html handling', path: '/api/asset/about.html', compare: asset },
    { name: 'env.ASSETS.fetch of a missing file: the 404 page', path: '/api/asset/missing', compare: asset },
    { name: 'percent-encoded paths are decoded', path: '/ab%6fut', compare: asset },
    { name: 'path traversal stays inside the folder', path: '/..%2fwrangler.jsonc', compare: { ...asset, body: 'ignore' } },
  ],
};
