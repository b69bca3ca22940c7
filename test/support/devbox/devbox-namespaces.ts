// What a dev box's bootstrap creates before any delivery: Argo CD's namespace, the build namespace and the platform's.
export const DEVBOX_NAMESPACES: readonly string[] = ['argocd', 'pharos-build', 'pharos', 'themelio-compat'];
