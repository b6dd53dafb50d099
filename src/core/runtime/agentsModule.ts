// What `import … from 'agents'` gives a worker bundled by Hookbench: the emulated SDK surface.
export { Agent, type ConnectionContext, type WSMessage } from './agent';
export { callable, unstable_callable, StreamingResponse, type CallableMetadata } from './callable';
export { Connection } from './connection';
export { getCurrentAgent } from './context';
export { SqlError } from './errors';
export { type QueueItem, type Schedule } from './jobs';
export { MessageType, camelCaseToKebabCase } from './protocol';
export { getAgentByName, routeAgentRequest } from './routing';
