import { z } from 'zod';
import type { Clock } from '../ports/clock.ts';
import type { Kube } from '../ports/kube.ts';
import type { KubeObject } from '../ports/kube-kinds.ts';
import {
  BUILD_CONTAINER,
  buildJobName,
  digestFromTerminationMessage,
  imageRepository,
  renderBuildJob,
} from './build-job.ts';
import type { BuildRequest, JobTemplate } from './build-job.ts';
import { DeliveryError } from './delivery-error.ts';
import { KubeError } from '../ports/kube-error.ts';
import type { TargetProfile } from '../target/target-profile.ts';

export interface BuildJobOptions {
  readonly kube: Kube;
  readonly profile: TargetProfile;
  readonly template: JobTemplate;
  readonly clock: Clock;
  /** One line of build progress (the Job's log as it grows, and its state changes). */
  readonly progress: (image: string, line: string) => void;
  readonly pollMs?: number;
}

const jobStatus = z.looseObject({
  status: z
    .looseObject({
      succeeded: z.number().optional(),
      failed: z.number().optional(),
      conditions: z
        .array(
          z.looseObject({
            type: z.string(),
            status: z.string(),
            message: z.string().optional(),
            reason: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});

type JobPhase =
  | { readonly kind: 'running' }
  | { readonly kind: 'complete' }
  | { readonly kind: 'failed'; readonly reason: string };

export function jobPhase(job: KubeObject): JobPhase {
  const status = jobStatus.parse(job).status;
  const condition = (type: string) => status?.conditions?.find((c) => c.type === type && c.status === 'True');
  const failed = condition('Failed');
  if (failed !== undefined || (status?.failed ?? 0) > 0)
    return { kind: 'failed', reason: failed?.message ?? failed?.reason ?? 'the build container failed' };
  if (condition('Complete') !== undefined || (status?.succeeded ?? 0) > 0) return { kind: 'complete' };
  return { kind: 'running' };
}

const podSchema = z.looseObject({
  metadata: z.looseObject({
    creationTimestamp: z.string().optional(),
    deletionTimestamp: z.string().optional(),
    ownerReferences: z.array(z.looseObject({ uid: z.string(), controller: z.boolean().optional() })).optional(),
  }),
  status: z
    .looseObject({
      containerStatuses: z
        .array(
          z.looseObject({
            name: z.string(),
            state: z
              .looseObject({
                terminated: z
                  .looseObject({ exitCode: z.number().optional(), message: z.string().optional() })
                  .optional(),
              })
              .optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});

/**
 * The Pods of this very Job (its controller reference names the Job's uid), newest first, without the ones
 * terminating: a Job of the same name deleted before may have left Pods with the same `job-name` label.
 */
export function podsOfJob(pods: readonly KubeObject[], job: KubeObject): KubeObject[] {
  const uid = job.metadata.uid;
  const mine = pods.filter((pod) => {
    const meta = podSchema.parse(pod).metadata;
    return (
      meta.deletionTimestamp === undefined &&
      (meta.ownerReferences ?? []).some((o) => o.controller === true && o.uid === uid)
    );
  });
  const created = (pod: KubeObject) => podSchema.parse(pod).metadata.creationTimestamp ?? '';
  return mine.sort((a, b) => created(b).localeCompare(created(a)));
}

async function jobPods(kube: Kube, namespace: string, job: KubeObject): Promise<KubeObject[]> {
  return podsOfJob(await kube.list('Pod', namespace, { labelSelector: `job-name=${job.metadata.name}` }), job);
}

const terminating = (obj: KubeObject) =>
  (obj.metadata as { deletionTimestamp?: string }).deletionTimestamp !== undefined;

/** Polls until the object is gone (a deletion returns before finalizers and grace periods are done). */
async function waitDeleted(
  kube: Kube,
  namespace: string,
  name: string,
  clock: Clock,
  deadline: number,
  pollMs: number,
): Promise<void> {
  let pause = pollMs;
  while ((await kube.get('Job', namespace, name)) !== undefined) {
    if (clock.now().getTime() > deadline) {
      throw new DeliveryError(
        'build-failed',
        `Cannot start Job "${namespace}/${name}" again: the failed one is still being deleted`,
        { details: { job: name } },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 1000);
  }
}

function terminationMessage(pod: KubeObject): string | undefined {
  return podSchema.parse(pod).status?.containerStatuses?.find((c) => c.name === BUILD_CONTAINER)?.state?.terminated
    ?.message;
}

/** The Job to follow: the one an earlier run started, or a new one (after the failed or terminating one is gone). */
async function startJob(options: BuildJobOptions, request: BuildRequest, deadline: number): Promise<KubeObject> {
  const { kube, profile, clock, progress } = options;
  const namespace = profile.namespaces.build;
  const name = buildJobName(request.image.name, request.fingerprint);
  const image = request.image.name;
  const pollMs = options.pollMs ?? 100;
  for (let attempt = 1; ; attempt++) {
    const job = await kube.get('Job', namespace, name);
    if (job !== undefined && !terminating(job) && jobPhase(job).kind !== 'failed') {
      progress(image, `job ${namespace}/${name} found from an earlier run`);
      return job;
    }
    if (job !== undefined) {
      if (!terminating(job)) {
        progress(image, `job ${name} failed before; starting it again`);
        // Background: the Job goes at once and the garbage collector removes its Pods (the default would orphan them).
        await kube.delete('Job', namespace, name, { propagationPolicy: 'Background' });
      }
      // The name is free only once the old Job is gone (a real API server answers 409 AlreadyExists before).
      await waitDeleted(kube, namespace, name, clock, deadline, pollMs);
    }
    try {
      const created = await kube.create(
        'Job',
        namespace,
        renderBuildJob(options.template, profile, request) as KubeObject,
      );
      progress(image, `job ${namespace}/${name} created`);
      return created;
    } catch (error) {
      // Created (or not yet gone) meanwhile: decide again on what is there now.
      if (!(error instanceof KubeError && error.code === 'already-exists') || attempt >= 5) throw error;
    }
  }
}

/**
 * Creates the image's BuildKit Job (or finds the one a killed run started), streams its log, and returns the
 * pushed reference `<registry>/<name>@sha256:…`. A failed Job is a `build-failed` error quoting its log tail.
 */
export async function runBuildJob(options: BuildJobOptions, request: BuildRequest): Promise<string> {
  const { kube, profile, clock, progress } = options;
  const namespace = profile.namespaces.build;
  const name = buildJobName(request.image.name, request.fingerprint);
  const image = request.image.name;
  const deadline = clock.now().getTime() + profile.build.timeout;
  let job = await startJob(options, request, deadline);
  let shown = 0;
  let pause = options.pollMs ?? 100;
  for (;;) {
    const phase = jobPhase(job);
    const pods = await jobPods(kube, namespace, job);
    const pod = pods[0];
    if (pod !== undefined && phase.kind !== 'complete') {
      const log = await kube.podLogs(namespace, pod.metadata.name, { container: BUILD_CONTAINER }).catch(() => '');
      for (const line of log.slice(shown).split('\n')) if (line.trim() !== '') progress(image, line);
      shown = Math.max(shown, log.length);
    }
    if (phase.kind === 'failed') {
      const tail =
        pod === undefined
          ? ''
          : (await kube.podLogs(namespace, pod.metadata.name, { container: BUILD_CONTAINER }).catch(() => ''))
              .trim()
              .split('\n')
              .slice(-3)
              .join(' / ');
      throw new DeliveryError(
        'build-failed',
        `Cannot build image "${image}": Job "${namespace}/${name}" failed: ${phase.reason}${tail === '' ? '' : ` (${tail})`}`,
        {
          details: { image, job: name },
        },
      );
    }
    if (phase.kind === 'complete') {
      if (pod === undefined)
        throw new DeliveryError(
          'build-failed',
          `Cannot read the pushed digest of Job "${namespace}/${name}": it has no pod`,
          { details: { image, job: name } },
        );
      const digest = digestFromTerminationMessage(terminationMessage(pod), name);
      return `${imageRepository(profile, image)}@${digest}`;
    }
    if (clock.now().getTime() > deadline) {
      throw new DeliveryError(
        'build-failed',
        `Cannot build image "${image}": Job "${namespace}/${name}" did not finish within ${Math.round(profile.build.timeout / 1000)} s`,
        { details: { image, job: name } },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 1000);
    job = (await kube.get('Job', namespace, name)) ?? job;
  }
}
