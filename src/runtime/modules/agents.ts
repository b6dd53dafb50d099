// What `import … from 'agents'` gives a worker bundled by Hookbench: the emulated SDK surface.
export { Agent, type ConnectionContext, type WSMessage } from '../agents/agent';
export { callable, unstable_callable, StreamingResponse, type CallableMetadata } from '../agents/callable';
export { Connection } from '../agents/connection';
export { getCurrentAgent } from '../agents/context';
export { SqlError } from '../errors';
export { type QueueItem, type Schedule } from '../agents/jobs';
export { MessageType, camelCaseToKebabCase } from '../../core/contract/agentsProtocol';
export { getAgentByName, routeAgentRequest } from '../agents/routing';
