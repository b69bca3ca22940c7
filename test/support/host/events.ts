// Reads the events log the example containers append to: `<uptime> <hh:mm:ss> <service> <event> <version> <container>`.
import { readFile } from 'node:fs/promises';

export interface HostEvent {
  readonly uptime: number;
  readonly service: string;
  readonly event: string;
  readonly version: string;
  readonly line: number;
}

export async function readEvents(file: string): Promise<HostEvent[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, line) => {
      const [uptime, , service, event, version] = l.split(' ');
      return { uptime: Number(uptime), service: service ?? '', event: event ?? '', version: version ?? '', line };
    });
}

/** Index of the first event matching, or -1. */
export function indexOf(events: readonly HostEvent[], match: Partial<Omit<HostEvent, 'line' | 'uptime'>>): number {
  return events.findIndex((e) => Object.entries(match).every(([k, v]) => e[k as keyof HostEvent] === v));
}
