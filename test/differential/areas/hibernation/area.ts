/**
 * The hibernation area: `ctx.acceptWebSocket` with tags, `webSocketMessage`/`webSocketClose`,
 * `getWebSockets(tag)`, `getTags`, attachments, the auto-response answered without waking the
 * object, close codes and reasons, and the API's limits and messages, against workerd.
 */
import type { Area } from '../../step';

const json = { body: 'json' } as const;

export const area: Area = {
  name: 'hibernation',
  folder: 'hibernation',
  steps: [
    { name: 'the API refuses 11 tags, a 257-character tag, a 17 kB attachment, a 2049-byte auto-response', path: '/limits/limits', compare: json },
    {
      kind: 'ws',
      name: 'messages reach webSocketMessage; getTags, getWebSockets(tag)',
      path: '/ws/one?tags=alpha,beta,alpha',
      send: ['echo:hi', 'tags', 'count', 'count:alpha', 'count:gamma'],
      frames: 5,
    },
    {
      kind: 'ws',
      name: 'an attachment set at accept, replaced, read back',
      path: '/ws/one?tags=gamma&attach=first',
      send: ['attachment', 'attach:{"n":1,"list":[1,2]}', 'attachment'],
      frames: 3,
    },
    { kind: 'ws', name: 'an attachment over 16 KiB is refused, the old one kept', path: '/ws/one?attach=kept', send: ['big:20000', 'attachment'], frames: 2 },
    {
      kind: 'ws',
      name: 'a close with code and reason from the client reaches webSocketClose',
      path: '/ws/two?tags=closer&attach=c',
      send: ['echo:before'],
      frames: 1,
      close: { code: 4001, reason: 'client done' },
    },
    {
      kind: 'poll',
      name: 'webSocketClose saw the code, reason, tags and attachment',
      step: { name: 'closes', path: '/closes/two', compare: json },
      until: (_s, body) => body.includes('4001'),
      timeoutMs: 5000,
    },
    { kind: 'ws', name: 'the object closes with its own code and reason', path: '/ws/three', send: ['echo:x', 'close:4002:server done'], frames: 2 },
    { kind: 'ws', name: 'a plain 1000 close from the client', path: '/ws/three?tags=plain', send: [], frames: 0, close: { code: 1000, reason: '' } },
    {
      kind: 'poll',
      name: 'both closes recorded',
      step: { name: 'closes', path: '/closes/three', compare: json },
      until: (_s, body) => (body.match(/"code"/g) ?? []).length >= 2,
      timeoutMs: 5000,
    },
    { kind: 'ws', name: 'too many tags refuses the upgrade with the message', path: '/ws/four?tags=a,b,c,d,e,f,g,h,i,j,k', send: [], frames: 0 },
    { name: 'an auto-response pair is set', path: '/auto/five?request=ping&response=pong', compare: json },
    { kind: 'ws', name: 'ping is answered pong without webSocketMessage', path: '/ws/five', send: ['ping', 'ping', 'stats'], frames: 3 },
    { name: 'an auto-response over 2048 bytes', path: `/auto/five?request=${'p'.repeat(2049)}&response=pong`, compare: json },
    { name: 'the auto-response is removed', path: '/auto/five', compare: json },
    { kind: 'ws', name: 'ping now reaches webSocketMessage', path: '/ws/five', send: ['ping', 'stats'], frames: 2 },
    { kind: 'ws', name: 'a client that drops without a close frame', path: '/ws/seven?tags=dropper&attach=d', send: ['echo:bye'], frames: 1 },
    {
      kind: 'poll',
      name: "webSocketClose saw 1006, workerd's reason, not clean",
      step: { name: 'closes', path: '/closes/seven', compare: json },
      until: (_s, body) => body.includes('1006'),
      timeoutMs: 5000,
    },
    {
      kind: 'ws',
      name: 'a text frame that is not UTF-8 is passed on (workerd does not validate)',
      path: '/ws/eight',
      send: ['echo:first'],
      sendInvalidText: true,
      frames: 2,
    },
    { name: 'pairs made inside the object count in getWebSockets(tag)', path: '/local/six?n=3&tags=red,blue', compare: json },
  ],
};
