// @ts-check
// The library's import rules (docs/code-map.md says them in prose), checked by `make check` and CI:
//   npx depcruise --config .dependency-cruiser.mjs scripts dagger

const LIB = '^scripts/lib/';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'lib-not-entry-points',
      comment: 'The library never imports an entry point (scripts/*.ts) or a command (scripts/commands/).',
      severity: 'error',
      from: { path: LIB },
      to: { path: '^scripts/(?!lib/)' },
    },
    {
      name: 'lib-not-tests',
      comment: 'The library never imports test code.',
      severity: 'error',
      from: { path: LIB },
      to: { path: '^test/' },
    },
    {
      name: 'commands-in-scripts',
      comment:
        'cmd-ts commands live under scripts/; in the library only the one top-level handler (cli/run-cli.ts) uses cmd-ts.',
      severity: 'error',
      from: { path: LIB, pathNot: '^scripts/lib/cli/run-cli\\.ts$' },
      to: { path: '(^|/)node_modules/cmd-ts/' },
    },
    {
      name: 'ports-no-domain',
      comment: 'ports/ holds the side effects only: it imports no domain folder (errors/ is shared by every folder).',
      severity: 'error',
      from: { path: '^scripts/lib/ports/' },
      to: { path: LIB, pathNot: '^scripts/lib/(ports|errors)/' },
    },
    {
      name: 'steps-no-domain',
      comment: 'steps/ is the one step runner every reconcile uses: it knows none of them.',
      severity: 'error',
      from: { path: '^scripts/lib/steps/' },
      to: { path: LIB, pathNot: '^scripts/lib/(steps|ports|errors)/' },
    },
    {
      name: 'ownership-not-delivery-or-takeover',
      comment:
        "ownership/ (the lease's footprint in the cluster) is used by delivery, deploy and takeover, never the reverse.",
      severity: 'error',
      from: { path: '^scripts/lib/ownership/' },
      to: { path: '^scripts/lib/(delivery|deploy|takeover)/' },
    },
    {
      name: 'registry-seed-reads-dockerfiles-only',
      comment:
        'registry-seed/ (the bases in the in-cluster registry) reads the catalogue and its Dockerfiles; deploy calls it, never the reverse.',
      severity: 'error',
      from: { path: '^scripts/lib/registry-seed/' },
      to: { path: LIB, pathNot: '^scripts/lib/(registry-seed|catalogue|dockerfile|ports|errors)/' },
    },
    {
      name: 'host-core-no-applier',
      comment: 'The host core knows no applier: compose/ and chart/ plug their steps into its tick.',
      severity: 'error',
      from: { path: '^scripts/lib/host/[^/]+$' },
      to: { path: '^scripts/lib/host/(compose|chart)/' },
    },
    {
      name: 'applier-not-other-applier',
      comment: 'No applier imports the other.',
      severity: 'error',
      from: { path: '^scripts/lib/host/(compose|chart)/' },
      to: { path: '^scripts/lib/host/(compose|chart)/', pathNot: '^scripts/lib/host/$1/' },
    },
    {
      name: 'takeover-rooms-apart',
      comment:
        "takeover's rooms (runtime/, replacement/, watch/) import nothing else of takeover/: not each other, not the " +
        'session; the session (takeover/) joins them, so watch/ knows no runtime and reports each save to a callback.',
      severity: 'error',
      from: { path: '^scripts/lib/takeover/(runtime|replacement|watch)/' },
      to: { path: '^scripts/lib/takeover/', pathNot: '^scripts/lib/takeover/$1/' },
    },
    {
      name: 'catalogue-not-fingerprint',
      comment: 'The catalogue says what images are built from; fingerprinting reads it, never the reverse.',
      severity: 'error',
      from: { path: '^scripts/lib/catalogue/' },
      to: { path: '^scripts/lib/fingerprint/' },
    },
    {
      name: 'client-node-lazy',
      comment:
        'Loading @kubernetes/client-node costs ~0.4 s of CPU, more than a warm command: scripts/ imports its types, or ' +
        'the module with import() where only it handles the credentials (ports/kube-client-node.ts).',
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '(^|/)node_modules/@kubernetes/client-node/', dependencyTypesNot: ['type-only', 'dynamic-import'] },
    },
    {
      name: 'dagger-only-library',
      comment:
        'The Dagger module is a thin shell over the library: it imports the library, its SDK and npm packages only.',
      severity: 'error',
      from: { path: '^dagger/' },
      to: { path: '^(scripts/(?!lib/)|test/)' },
    },
    {
      name: 'no-module-cycle',
      comment: 'No import cycle between files.',
      severity: 'error',
      from: { path: '^(scripts|dagger)/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      comment: 'No import cycle between library folders.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^scripts/lib/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    metrics: true,
    reporterOptions: { text: { highlightFocused: true } },
  },
};
