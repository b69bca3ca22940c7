#!/usr/bin/env bash
# What `make demo`, `make test` and CI need on the machine: every program in scripts/install-tools.tsv (the list the
# test suites' preflight reads too), each looked for itself, and a running Docker Engine. On Debian as root it installs
# and starts what is missing and says why; anywhere else it changes nothing, prints the exact list and exits 2.
# --dry-run prints what a real run would install and start, changes nothing and exits 0.
set -euo pipefail
usage='usage: install-tools.sh [demo|devbox|test] [--dry-run]   (default: test)'
here="${BASH_SOURCE[0]%/*}"
[ "$here" = "${BASH_SOURCE[0]}" ] && here=.
list="$(cd "$here" && pwd)/install-tools.tsv" # bash builtins only: the probes must not depend on what they look for
mode=test
dry_run=false
for arg in "$@"; do
  case "$arg" in
    demo | devbox | test) mode="$arg" ;;
    --dry-run) dry_run=true ;;
    -h | --help)
      echo "$usage"
      echo "  demo: make demo and make demo-chart; devbox: make demo-devbox; test: make test and CI (the default)"
      echo "  --dry-run: print what would be installed and started, change nothing, exit 0"
      echo "The programs, their Debian packages and what each is for: scripts/install-tools.tsv"
      exit 0
      ;;
    *)
      echo "install-tools: unknown argument \"$arg\"; $usage" >&2
      exit 2
      ;;
  esac
done
say() { echo "install-tools: $*"; }

# probe <probe text>: sets `found` to present, missing, or "old X.Y" (a `version` probe whose program is too old).
probe() {
  local alternative kind words out min
  local -a alternatives
  found=missing
  IFS='|' read -ra alternatives <<<"$1"
  for alternative in "${alternatives[@]}"; do
    read -ra words <<<"$alternative"
    kind="${words[0]}"
    words=("${words[@]:1}")
    case "$kind" in
      on-path) command -v "${words[0]}" >/dev/null 2>&1 && found=present ;;
      executable) [ -f "${words[0]}" ] && [ -x "${words[0]}" ] && found=present ;;
      readable) [ -f "${words[0]}" ] && [ -r "${words[0]}" ] && found=present ;;
      static)
        if [ -f "${words[0]}" ] && [ -x "${words[0]}" ]; then
          out="$(ldd "${words[0]}" 2>&1 || true)"
          [[ $out == *"not a dynamic executable"* ]] && found=present
        fi
        ;;
      answers) "${words[@]}" >/dev/null 2>&1 && found=present ;;
      version)
        min="${words[0]}"
        if out="$("${words[@]:1}" 2>/dev/null)" && [[ $out =~ ([0-9]+)\.([0-9]+) ]]; then
          local major="${BASH_REMATCH[1]}" minor="${BASH_REMATCH[2]}"
          if ((major > ${min%%.*} || (major == ${min%%.*} && minor >= ${min#*.}))); then
            found=present
          else
            found="old $major.$minor"
          fi
        fi
        ;;
      *)
        echo "install-tools: $list: unknown probe \"$kind\" (on-path, executable, readable, static, answers, version)" >&2
        exit 2
        ;;
    esac
    [ "$found" = present ] && return 0
  done
  return 0
}

needed=0       # programs this mode needs
missing=()     # one line per missing program: what it is for and its package
packages=()    # Debian packages to install, each once
package_why=() # per package: the programs it brings, and what they are for
by_hand=()     # programs no Debian package provides well enough: where to get them
rechecks=()    # "program<TAB>probe" of each program a package install must bring

add_package() { # add_package <package> <program: why>
  local i
  for i in "${!packages[@]}"; do
    if [ "${packages[$i]}" = "$1" ]; then
      package_why[i]+="; $2"
      return
    fi
  done
  packages+=("$1")
  package_why+=("$2")
}

line_number=0
while IFS= read -r line || [ -n "$line" ]; do
  line_number=$((line_number + 1))
  [[ -z $line || $line == \#* ]] && continue
  IFS=$'\t' read -r program needs package probe_text why extra <<<"$line"
  if [ -z "${why:-}" ] || [ -n "${extra:-}" ]; then
    echo "install-tools: $list line $line_number: expected 5 tab-separated fields (program, needs, package, probe, why)" >&2
    exit 2
  fi
  [[ " $needs " == *" $mode "* ]] || continue
  needed=$((needed + 1))
  probe "$probe_text"
  [ "$found" = present ] && continue
  shown="$program"
  if [[ $probe_text == version\ * ]]; then
    read -r _ min _ <<<"$probe_text"
    shown="$program $min or newer"
    [[ $found == old\ * ]] && shown="$program ${found#old } is too old (needs $min or newer)"
  fi
  if [[ $package == *@* ]]; then
    missing+=("$shown: $why (package ${package%@*} from ${package#*@}, not Debian's; see scripts/install-tools.tsv)")
    by_hand+=("$shown: no Debian package provides it; install package ${package%@*} from ${package#*@} by hand (why: scripts/install-tools.tsv)")
  else
    missing+=("$shown: $why (Debian package $package)")
    add_package "$package" "$program: $why"
    rechecks+=("$program"$'\t'"$probe_text")
  fi
done <"$list"

engine_running() { docker info >/dev/null 2>&1; }
engine_answers=false
engine_running && engine_answers=true
can_install() { [ "$(id -u)" = 0 ] && [ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; }
why_not="this is not Debian"
[ -r /etc/debian_version ] && why_not="this is not root"
[ "$(id -u)" = 0 ] && [ -r /etc/debian_version ] && why_not="apt-get is not on PATH"
for_what="make $mode"
[ "$mode" = devbox ] && for_what="make demo-devbox"

plan() { # plan <install verb> <start verb>
  local i
  for i in "${!packages[@]}"; do say "$1 ${packages[$i]}, for ${package_why[$i]}"; done
  if [ "$engine_answers" = false ]; then
    say "$2 dockerd: Docker Engine does not answer 'docker info' (log: /var/log/install-tools-dockerd.log)"
  fi
  for i in "${!by_hand[@]}"; do say "cannot install ${by_hand[$i]}"; done
}

if [ "$dry_run" = true ]; then
  if [ "${#missing[@]}" -eq 0 ] && [ "$engine_answers" = true ]; then
    say "dry run for $for_what: all $needed programs are here and Docker Engine answers: nothing to install or start"
    exit 0
  fi
  say "dry run for $for_what: ${#missing[@]} of $needed programs missing (scripts/install-tools.tsv); nothing is changed"
  if ! can_install; then say "a real run here changes nothing and exits 2 ($why_not); as root on Debian it would:"; fi
  plan "would install" "would start"
  exit 0
fi

all_here() { say "$for_what: all $needed programs it runs are here, and Docker Engine answers"; }

if ! can_install; then
  if [ "${#missing[@]}" -eq 0 ] && [ "$engine_answers" = true ]; then
    all_here
    exit 0
  fi
  echo "install-tools: missing tools, and $why_not, so nothing was installed. Install:" >&2
  for line in "${missing[@]}"; do echo "  - $line" >&2; done
  if [ "$engine_answers" = false ]; then
    echo "  - a running Docker Engine this user can reach (start dockerd or Docker Desktop, or join the docker group; 'docker info' must answer)" >&2
  fi
  if [ "${#packages[@]}" -gt 0 ]; then echo "On Debian, as root: apt-get install ${packages[*]}" >&2; fi
  exit 2
fi

if [ "${#missing[@]}" -eq 0 ] && [ "$engine_answers" = true ]; then
  all_here
  exit 0
fi

plan installing starting
if [ "${#packages[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get update -qq || ! apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; then
    echo "install-tools: apt-get could not install ${packages[*]} (its messages are above)" >&2
    exit 1
  fi
  for entry in "${rechecks[@]}"; do
    probe "${entry#*$'\t'}"
    if [ "$found" != present ]; then
      echo "install-tools: installed its package, but ${entry%%$'\t'*} is still not found (scripts/install-tools.tsv)" >&2
      exit 1
    fi
  done
fi

if ! engine_running; then
  (dockerd >/var/log/install-tools-dockerd.log 2>&1 &)
  for ((waited = 0; waited < 60; waited++)); do engine_running && break; sleep 1; done
  if ! engine_running; then
    echo "install-tools: Docker Engine did not start:" >&2
    tail -20 /var/log/install-tools-dockerd.log >&2
    exit 1
  fi
fi

if [ "${#by_hand[@]}" -gt 0 ]; then
  echo "install-tools: $for_what still needs what no Debian package provides:" >&2
  for line in "${by_hand[@]}"; do echo "  - $line" >&2; done
  exit 2
fi
say "ready: all $needed programs $for_what runs are here, and Docker Engine answers"
