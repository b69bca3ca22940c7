import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch } from '../../support/kube-api-server/strategic-merge-patch.ts';

// Cases from kubernetes.io/docs/tasks/manage-kubernetes-objects/update-api-object-kubectl-patch and
// community/contributors/devel/sig-api-machinery/strategic-merge-patch.md.
const deployment = {
  spec: {
    template: {
      spec: {
        containers: [{ name: 'patch-demo-ctr', image: 'nginx', ports: [{ containerPort: 80 }] }],
        tolerations: [{ effect: 'NoSchedule', key: 'dedicated', value: 'test-team' }],
      },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
  },
  metadata: { finalizers: ['a'] },
};

describe('strategic merge patch on built-in kinds', () => {
  it('merges containers by name (a new container is added, the existing one kept) but replaces tolerations', () => {
    const out = applyStrategicMergePatch(deployment, {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'patch-demo-ctr-2', image: 'redis' }],
            tolerations: [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }],
          },
        },
      },
    }) as typeof deployment;
    expect(out.spec.template.spec.containers.map((c) => c.name)).toEqual(['patch-demo-ctr', 'patch-demo-ctr-2']);
    expect(out.spec.template.spec.tolerations).toEqual([{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }]);
  });

  it('merges into the item with the same key, container ports by containerPort', () => {
    const out = applyStrategicMergePatch(deployment, {
      spec: {
        template: {
          spec: { containers: [{ name: 'patch-demo-ctr', image: 'nginx:1.27', ports: [{ containerPort: 443 }] }] },
        },
      },
    }) as typeof deployment;
    expect(out.spec.template.spec.containers).toEqual([
      { name: 'patch-demo-ctr', image: 'nginx:1.27', ports: [{ containerPort: 80 }, { containerPort: 443 }] },
    ]);
  });

  it('$retainKeys clears the keys it does not list (strategy type Recreate drops rollingUpdate)', () => {
    const out = applyStrategicMergePatch(deployment, {
      spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } },
    }) as typeof deployment;
    expect(out.spec.strategy).toEqual({ type: 'Recreate' });
  });

  it('$patch: delete removes a list item by key, $patch: replace replaces a list or a map', () => {
    const deleted = applyStrategicMergePatch(deployment, {
      spec: { template: { spec: { containers: [{ name: 'patch-demo-ctr', $patch: 'delete' }] } } },
    }) as typeof deployment;
    expect(deleted.spec.template.spec.containers).toEqual([]);
    const replaced = applyStrategicMergePatch(deployment, {
      spec: { template: { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } } },
    }) as typeof deployment;
    expect(replaced.spec.template.spec.containers).toEqual([{ name: 'only', image: 'x' }]);
    const map = applyStrategicMergePatch(deployment, {
      spec: { strategy: { $patch: 'replace', type: 'Recreate' } },
    }) as typeof deployment;
    expect(map.spec.strategy).toEqual({ type: 'Recreate' });
  });

  it('finalizers merge as a set; $deleteFromPrimitiveList removes values; $setElementOrder orders the merged list; directives are never stored', () => {
    const out = applyStrategicMergePatch(deployment, {
      metadata: { finalizers: ['b', 'a'], '$deleteFromPrimitiveList/finalizers': ['a'] },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'new' }, { name: 'patch-demo-ctr' }],
            containers: [{ name: 'new', image: 'y' }],
          },
        },
      },
    }) as typeof deployment;
    expect(out.metadata.finalizers).toEqual(['b']);
    expect(out.spec.template.spec.containers.map((c) => c.name)).toEqual(['new', 'patch-demo-ctr']);
    expect(JSON.stringify(out)).not.toContain('$');
  });
});
