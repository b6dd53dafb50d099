// What `import … from 'agents/workflows'` gives a worker bundled by Hookbench.
export { AgentWorkflow, WorkflowRejectedError, type WorkflowCallback } from '../agents/workflows/agentWorkflow';
export { type WorkflowCriteria, type WorkflowInfo, type WorkflowPage } from '../agents/workflows/workflowTable';
