// An error the simulator prints as Helm does: `Error: <message>` on stderr, exit 1 (helm/helm@e9b85e4 cmd/helm/helm.go).
export class HelmFailure extends Error {}
