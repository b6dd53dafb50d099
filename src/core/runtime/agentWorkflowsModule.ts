// What `import … from 'agents/workflows'` gives a worker bundled by Hookbench.
export { AgentWorkflow, WorkflowRejectedError, type WorkflowCallback } from './agentWorkflow';
export { type WorkflowCriteria, type WorkflowInfo, type WorkflowPage } from './workflowTracking';
