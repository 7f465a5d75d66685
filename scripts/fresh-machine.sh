#!/usr/bin/env bash
# The README's two commands on a fresh Debian machine, as a newcomer runs them
# (what .ci/run runs):
#
#   1. a clean Debian 12 root made with debootstrap (minbase, with git), given
#      this machine's Node.js and npm and nothing else: no PostgreSQL, no
#      browser, no SIP tools, no engines;
#   2. as root in it, in a private folder under /root (mktemp -d, mode 700):
#      `git clone` of this checkout's last commit, then `npm ci && npm start`,
#      which must answer /readyz and /v1/me with the key it printed, and stop
#      on Ctrl-C (SIGINT to its process group);
#   3. `npm test` there: it installs the Debian packages the tests need
#      (scripts/system-packages.ts) and runs the whole suite.
#
# The root shares this machine's network (Debian's mirror and the npm registry
# are reached from it), so a PostgreSQL this machine runs on 127.0.0.1:5432
# would answer inside too; TOLK_TEST_ADMIN_URL points the tests at a port
# where nothing answers, so they start the embedded PostgreSQL as they do on
# a machine without one.
#
# Needs root (debootstrap, chroot, mounts). Environment:
#   FRESH_MIRROR   Debian mirror (default http://deb.debian.org/debian)
#   FRESH_KEEP=1   keep the root afterwards (its path is printed)
#   FRESH_ONLY_START=1  stop after step 2
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
say() { printf '\n=== fresh machine: %s (%s)\n' "$*" "$(date -u +%T)"; }

[ "$(id -u)" -eq 0 ] || { echo "scripts/fresh-machine.sh needs root (debootstrap, chroot and mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null || {
  say "installing debootstrap on this machine"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap || {
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
  }
}

# On disk (not a tmpfs): the root grows to a few GB with the packages and node_modules.
work=$(mktemp -d /var/tmp/tolk-fresh-machine-XXXXXX)
root=$work/root
server_pgid=''
cleanup() {
  local rc=$?
  [ -n "$server_pgid" ] && kill -KILL -- "-$server_pgid" 2>/dev/null || true
  # Whatever the run left behind inside (clusters, servers, browsers): every process whose root is ours.
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -KILL "${p#/proc/}" 2>/dev/null || true
  done
  sleep 0.5
  for m in dev/shm dev/pts dev sys proc; do umount -l "$root/$m" 2>/dev/null || true; done
  # Anything else a run mounted inside (deepest first), so that the root can be removed.
  awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  if [ "${FRESH_KEEP:-}" = 1 ]; then echo "kept: $root"; else rm -rf --one-file-system "$work"; fi
  exit $rc
}
trap cleanup EXIT

say "debootstrap $suite from $mirror"
debootstrap --variant=minbase --include=git,ca-certificates "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2; exit 1;
}
# The sources of a Debian install: the release, its updates and its security updates.
security=${mirror%/debian}/debian-security
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
# This workplace's network, which a newcomer's machine would not need: its own certificate
# authorities (TLS to the npm registry goes through them), npm's settings (which name them), and
# apt's Acquire settings. Nothing of the project is copied.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null
fi
mkdir -p "$root/usr/etc"
for f in /etc/npmrc /usr/etc/npmrc /root/.npmrc; do [ -f "$f" ] && cp -p "$f" "$root$f"; done
for f in /etc/apt/apt.conf.d/*; do grep -qs '^Acquire' "$f" && cp "$f" "$root$f"; done
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"

# This machine's Node.js and npm, as a person who installed Node has them.
node_bin=$(command -v node)
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
cp "$(readlink -f "$node_bin")" "$root/usr/bin/node"
mkdir -p "$root/usr/lib/node_modules"
cp -a "$npm_dir" "$root/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"

mount -t proc proc "$root/proc"
mount --bind /sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs -o mode=1777 shm "$root/dev/shm"

# A private folder under /root, and a clone of the last commit in it.
private=$(chroot "$root" mktemp -d /root/tolk-XXXXXX)
git clone --quiet --no-hardlinks "$src" "$root$private/tolk"
clone=$private/tolk
echo "the clone: $clone (in $root), at $(git -C "$root$clone" log -1 --format='%h %s')"

inside() {
  chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

say "npm ci"
inside bash -c "cd $clone && npm ci --no-audit --no-fund"

say "npm start"
# setsid: its own process group, as a terminal runs it, so SIGINT reaches it as Ctrl-C does.
setsid chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c "cd $clone && exec npm start" >"$work/start.log" 2>&1 &
server=$!
server_pgid=$server
for _ in $(seq 1 180); do
  grep -q 'Tolk is listening' "$work/start.log" && break
  kill -0 "$server" 2>/dev/null || { cat "$work/start.log" >&2; echo "npm start exited" >&2; exit 1; }
  sleep 0.5
done
cat "$work/start.log"
key=$(inside node -pe "JSON.parse(require('fs').readFileSync('$clone/.data/first-keys.json','utf8')).test_key")
# Asked from this machine (the same network): the root has no curl yet, as a fresh one has none.
node -e "
  fetch('http://127.0.0.1:8080/readyz').then((r) => { console.log('GET /readyz', r.status); process.exit(r.status === 200 ? 0 : 1); }, () => process.exit(1))" || {
  echo "npm start does not answer /readyz" >&2; exit 1;
}
node -e "
  fetch('http://127.0.0.1:8080/v1/me', { headers: { Authorization: 'Bearer $key' } })
    .then(async (r) => { console.log('GET /v1/me', r.status, (await r.text()).slice(0, 120)); process.exit(r.status === 200 ? 0 : 1); })"
kill -INT -- "-$server_pgid"
for _ in $(seq 1 60); do kill -0 "$server" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$server" 2>/dev/null; then echo "npm start did not stop on Ctrl-C" >&2; exit 1; fi
server_pgid=''
echo "npm start stopped on Ctrl-C"
[ "${FRESH_ONLY_START:-}" = 1 ] && exit 0

say "npm test"
inside env TOLK_TEST_ADMIN_URL=postgres://postgres@127.0.0.1:9/postgres bash -c "cd $clone && npm test"
say "passed"
