import type { DeploymentRecord, DeploymentStatus, Deployments } from '../../scripts/lib/promotion/deployments.ts';

export type DeploymentCall =
  | { readonly call: 'create'; readonly record: DeploymentRecord }
  | {
      readonly call: 'setStatus';
      readonly id: number;
      readonly environment: string;
      readonly status: DeploymentStatus;
    };

/** Test double of GitHub deployments: records every call in order; ids count from 1. */
export function deploymentsDouble(): Deployments & { calls: DeploymentCall[] } {
  const calls: DeploymentCall[] = [];
  return {
    calls,
    create: async (record) => {
      calls.push({ call: 'create', record });
      return calls.filter((c) => c.call === 'create').length;
    },
    setStatus: async (id, environment, status) => {
      calls.push({ call: 'setStatus', id, environment, status });
    },
  };
}
