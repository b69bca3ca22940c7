// Helm 4's own golden outputs, copied byte for byte from helm/helm@e9b85e4:pkg/cmd/testdata/output/ (the 4.3 line:
// no v4.3.x tag is reachable here; status.json, history.json, get-metadata.json and list-json.txt are identical at
// v4.2.4, 3900f43). The port's unit tests parse them and the simulator's outputs are checked against their shape.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const HELM_COMMIT = 'e9b85e4de16ad45805843fb121748018cf89094b';

/** Each golden file and the test in helm/helm@e9b85e4 that writes it. */
export const HELM_GOLDEN = {
  'status.json': 'pkg/cmd/status_test.go TestStatusCmd "get status of a deployed release with notes in json"',
  'status-with-resources.json':
    'pkg/cmd/status_test.go TestStatusCmd "get status of a deployed release with resources in json"',
  'status.txt': 'pkg/cmd/status_test.go TestStatusCmd "get status of a deployed release"',
  'history.json': 'pkg/cmd/history_test.go TestHistoryCmd "get history with json output format"',
  'history-with-rollback.json': 'pkg/cmd/history_test.go TestHistoryWithRollback "history with rollback revision json"',
  'history.txt': 'pkg/cmd/history_test.go TestHistoryCmd "get history for release"',
  'get-metadata.json': 'pkg/cmd/get_metadata_test.go TestGetMetadataCmd "get metadata to json"',
  'get-metadata.txt': 'pkg/cmd/get_metadata_test.go TestGetMetadataCmd "get metadata with a release"',
  'list-json.txt': 'pkg/cmd/list_test.go TestListCmd "list releases in json format"',
  'upgrade.txt': 'pkg/cmd/upgrade_test.go TestUpgradeCmd "upgrade a release"',
  'upgrade-with-install.txt': 'pkg/cmd/upgrade_test.go TestUpgradeCmd "install a release with \'upgrade --install\'"',
  'upgrade-uninstalled-with-keep-history.txt':
    "pkg/cmd/upgrade_test.go TestUpgradeCmd \"install a previously uninstalled release with '--keep-history' using 'upgrade --install'\"",
  'install.txt': 'pkg/cmd/install_test.go TestInstall "basic install"',
  'rollback.txt': 'pkg/cmd/rollback_test.go TestRollbackCmd "rollback a release"',
  'uninstall.txt': 'pkg/cmd/uninstall_test.go TestUninstall "basic uninstall"',
  'upgrade-with-pending-install.txt': 'pkg/cmd/upgrade_test.go TestUpgradeCmd "upgrade a pending install release"',
  'upgrade-with-bad-or-missing-existing-release.txt':
    'pkg/cmd/upgrade_test.go TestUpgradeCmd "upgrade a non-existent release"',
  'rollback-non-existent-version.txt':
    'pkg/cmd/rollback_test.go TestRollbackCmd "rollback a release with non-existent version"',
} as const;

export type HelmGolden = keyof typeof HELM_GOLDEN;

/** The golden file's exact bytes as text. */
export const helmGolden = (name: HelmGolden): string => readFileSync(join(import.meta.dirname, name), 'utf8');

/** Where a golden file came from, as `owner/repo@commit:path`. */
export const helmGoldenSource = (name: HelmGolden): string =>
  `helm/helm@${HELM_COMMIT.slice(0, 7)}:pkg/cmd/testdata/output/${name}`;
