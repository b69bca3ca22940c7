import type { Tool } from './tool-list.ts';
import type { ProbeResult } from './probe-tool.ts';

/** One line naming a program that is not here, what it is for and what installs it. */
export function missingToolLine(tool: Tool, result: ProbeResult): string {
  const version = tool.probes.find((p) => p.kind === 'version');
  const minimum = version === undefined ? '' : ` ${version.minimum.join('.')} or newer`;
  const state =
    result.state === 'too-old'
      ? `${tool.program} ${result.found} is too old (needs${minimum})`
      : `${tool.program}${minimum} is missing`;
  const from =
    tool.repository === undefined
      ? `Debian package ${tool.package}`
      : `package ${tool.package} from ${tool.repository}, not Debian's`;
  return `${state}: it ${tool.why} (${from})`;
}
