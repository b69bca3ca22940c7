import { stacksOf } from '../host-paths.ts';
import type { ServiceStatus } from '../host-status.ts';
import type { TickContext } from '../tick-context.ts';

/** The running services of each stack, found by the Compose project label (never by container name). */
export async function composeServices(ctx: TickContext): Promise<ServiceStatus[]> {
  const { config, ports } = ctx;
  const services: ServiceStatus[] = [];
  for (const stack of stacksOf(config.HEPHAESTUS_STACKS)) {
    const project = `${config.HEPHAESTUS_PROJECT_PREFIX ?? ''}${stack}`;
    for (const c of await ports.docker.containers({ 'com.docker.compose.project': project }).catch(() => [])) {
      if (!c.oneoff)
        services.push({ stack, service: c.service, image: c.image, state: c.status, health: c.health ?? null });
    }
  }
  return services;
}
