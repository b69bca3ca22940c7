#!/usr/bin/env bash
# What `make demo`, `make test` and CI need on the machine: on Debian as root, installs and starts what is
# missing and says so; anywhere else changes nothing, prints the exact list and exits 2.
# Usage: install-tools.sh [demo|test]   (test, the default, also needs kubectl; the demo does not)
set -euo pipefail
mode="${1:-test}"
case "$mode" in demo|test) ;; *) echo "install-tools: unknown mode \"$mode\" (demo or test)" >&2; exit 2 ;; esac

missing=()   # one line per missing thing: what it is, and its Debian package
packages=()  # Debian packages to install

need() { # need <description> <debian package> <test command...>
  local what="$1" package="$2"
  shift 2
  if ! "$@" >/dev/null 2>&1; then
    missing+=("$what (Debian package $package)")
    packages+=("$package")
  fi
}
has() { command -v "$1"; }
has_compose() { docker compose version || command -v docker-compose; }

need "git" git has git
need "make" make has make
need "npm, to install the project's own Node 24" npm has npm
need "CA certificates, for npm and git over HTTPS" ca-certificates test -e /etc/ssl/certs/ca-certificates.crt
need "Docker Engine (dockerd)" docker.io has dockerd
need "Docker Compose" docker-compose has_compose
need "a local image registry, /usr/bin/docker-registry" docker-registry test -x /usr/bin/docker-registry
need "a static busybox, /bin/busybox" busybox-static test -x /bin/busybox
need "PostgreSQL 15, whose files make the example's database image (and which the provisioning tests start)" postgresql test -x /usr/lib/postgresql/15/bin/postgres
engine_running() { docker info; }
can_install() { [ "$(id -u)" = 0 ] && [ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; }

# The tests render with kubectl; where it can be installed the demo gets it too, elsewhere the demo does not ask for it.
if [ "$mode" = test ] || can_install; then
  need "kubectl, which the Argo CD simulator and check render with" kubernetes-client has kubectl
fi
# The tests check the host's alert rules with promtool and its units with systemd-analyze.
if [ "$mode" = test ]; then
  need "promtool, which tests the host alert rules" prometheus has promtool
  need "systemd-analyze, which verifies the host units" systemd has systemd-analyze
  need "ansible-playbook, which runs the dev box cluster layers" ansible-core has ansible-playbook
  need "sshd, the Linux runner the SSH runner tests reach" openssh-server test -x /usr/sbin/sshd
fi

if ! can_install; then
  if [ "${#packages[@]}" -eq 0 ] && engine_running >/dev/null 2>&1; then exit 0; fi
  why="this is not Debian"
  [ -r /etc/debian_version ] && why="this is not root"
  echo "install-tools: missing tools, and $why, so nothing was installed. Install:" >&2
  for line in "${missing[@]}"; do echo "  - $line" >&2; done
  if ! engine_running >/dev/null 2>&1; then echo "  - a running Docker Engine (start dockerd, or Docker Desktop; 'docker info' must answer)" >&2; fi
  if [ "${#packages[@]}" -gt 0 ]; then echo "On Debian, as root: apt-get install ${packages[*]}" >&2; fi
  exit 2
fi

if [ "${#packages[@]}" -eq 0 ] && engine_running >/dev/null 2>&1; then
  echo "install-tools: everything make $mode needs is present, and Docker Engine is running"
  exit 0
fi

if [ "${#packages[@]}" -gt 0 ]; then
  echo "install-tools: installing ${packages[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi

if ! engine_running >/dev/null 2>&1; then
  echo "install-tools: starting dockerd (log: /tmp/install-tools-dockerd.log)"
  (dockerd >/tmp/install-tools-dockerd.log 2>&1 &)
  for _ in $(seq 1 60); do engine_running >/dev/null 2>&1 && break; sleep 1; done
  if ! engine_running >/dev/null 2>&1; then
    echo "install-tools: Docker Engine did not start:" >&2
    tail -20 /tmp/install-tools-dockerd.log >&2
    exit 1
  fi
fi
