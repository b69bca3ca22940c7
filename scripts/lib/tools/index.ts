export { parseToolList, toolsFor, ToolListError } from './tool-list.ts';
export type { Probe, Tool, ToolMode } from './tool-list.ts';
export { probeTool } from './probe-tool.ts';
export type { ProbeContext, ProbeResult } from './probe-tool.ts';
export { missingToolLine } from './missing-tool-line.ts';
