import { spawnSync } from 'node:child_process';

// The Debian packages the test suite runs for real (npm test's first step).
//
// The tests talk to real peers and engines, never stand-ins: a browser, SIP
// user agents and proxies, a translation engine and a recognizer. On a fresh
// Debian or Ubuntu machine with only Node and git, `npm test` installs them
// itself when it can (as root, or through sudo without a password), naming
// each with why; otherwise it stops at once with the one line to run. A
// missing tool fails the run here, before any test, never skips a test.
//
// `--list` prints the packages, one per line (what .ci/run and the fresh-machine
// run read); `--check` only reports, installing nothing.

type Need = { pkg: string; why: string };

export const NEEDS: Need[] = [
  { pkg: 'chromium', why: 'the room, booking, consent and reference pages are opened and clicked in a real browser (playwright-core drives /usr/bin/chromium)' },
  { pkg: 'sip-tester', why: 'SIPp answers, rejects and records calls as a carrier or a callee would' },
  { pkg: 'baresip-core', why: 'a softphone that answers a call and records what it hears' },
  { pkg: 'kamailio', why: 'a SIP proxy and carrier in front of the gateway, and its dispatcher in front of two gateways' },
  { pkg: 'apertium-apy', why: 'real translation: Apertium\'s HTTP server' },
  { pkg: 'cg3', why: 'Apertium\'s Italian→Spanish pipeline runs cg-proc, which apertium-apy does not pull in' },
  { pkg: 'apertium-eng-spa', why: 'Apertium\'s English↔Spanish pair' },
  { pkg: 'apertium-es-pt', why: 'Apertium\'s Spanish↔Portuguese pair (English↔Portuguese goes through Spanish)' },
  { pkg: 'apertium-fr-es', why: 'Apertium\'s French↔Spanish pair' },
  { pkg: 'apertium-spa-ita', why: 'Apertium\'s Spanish↔Italian pair' },
  { pkg: 'pocketsphinx', why: 'real speech recognition (the embedded recognizer)' },
  { pkg: 'pocketsphinx-en-us', why: 'PocketSphinx\'s US English model' },
  { pkg: 'pocketsphinx-testdata', why: 'real recorded English speech the recognizer is tested with' },
  { pkg: 'asterisk-core-sounds-es-wav', why: 'real recorded Spanish telephone prompts voice activity detection is tested with' },
  { pkg: 'asterisk-core-sounds-fr-wav', why: 'real recorded French telephone prompts voice activity detection is tested with' },
  { pkg: 'asterisk-core-sounds-it-wav', why: 'real recorded Italian telephone prompts voice activity detection is tested with' },
  { pkg: 'curl', why: 'the README\'s examples are run as written, and they call the API with curl' },
  { pkg: 'sox', why: 'the softphone recipe for a server (docs/calling.md) makes its silence with sox' },
  { pkg: 'janus', why: 'rooms\' live voices go through Janus (Meetecho\'s WebRTC server), which the service runs itself' },
  { pkg: 'coturn', why: 'the TURN server the room pages are handed (TOLK_ICE_SERVERS) in the voices tests' },
  { pkg: 'iproute2', why: 'the live-voice tests run the service, its Janus and the browsers in a network namespace of their own (ip netns)' },
  { pkg: 'espeak-ng', why: 'the voice of the languages Pico does not speak (Portuguese among them)' },
];

/** The packages of `needs` that dpkg does not have installed. */
export function missing(needs: Need[] = NEEDS): Need[] {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Status}\n', ...needs.map((n) => n.pkg)], { encoding: 'utf8' });
  if (r.error) return needs; // no dpkg: not Debian or Ubuntu
  const installed = new Set(r.stdout.split('\n').filter((l) => l.endsWith(' installed')).map((l) => l.split(' ')[0]));
  return needs.filter((n) => !installed.has(n.pkg));
}

function can(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/** What this machine allows: apt-get there, run as root, or through sudo without a password. */
export type Means = { apt: boolean; root: boolean; sudo: boolean };

export function means(): Means {
  const apt = can('apt-get', ['--version']);
  const root = process.getuid?.() === 0;
  return { apt, root, sudo: !root && apt && can('sudo', ['-n', 'true']) };
}

/**
 * Makes sure `needs` are installed: nothing to do (0); installed now with
 * apt-get (0); or a refusal saying what is missing, why, and the one line to
 * run (1). `check` only reports. `say` gets each line for the terminal.
 */
export function ensure(needs: Need[], m: Means, o: { check?: boolean; say: (line: string) => void }): number {
  const say = o.say;
  const absent = missing(needs);
  if (absent.length === 0) return 0;
  const names = absent.map((n) => n.pkg).join(' ');
  say('npm test runs against real tools; these Debian packages are missing:');
  for (const n of absent) say(`  ${n.pkg.padEnd(22)} ${n.why}`);
  if (o.check || !m.apt || (!m.root && !m.sudo)) {
    say('');
    say(m.apt ? 'Install them, then run npm test again:' : 'This machine has no apt-get; on Debian or Ubuntu they install with:');
    say(`  sudo apt-get update && sudo apt-get install -y ${names}`);
    return 1;
  }
  say(`installing them now (apt-get${m.sudo ? ' through sudo' : ''})…`);
  const pre = m.sudo ? ['sudo', '-n'] : [];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const step = (args: string[]): boolean => {
    const [cmd, ...rest] = [...pre, ...args];
    const r = spawnSync(cmd!, rest, { stdio: ['ignore', 'inherit', 'inherit'], env });
    if (r.status === 0) return true;
    say('');
    say(`${args.join(' ')} failed (exit ${r.status ?? r.signal}); install them by hand:`);
    say(`  sudo apt-get update && sudo apt-get install -y ${names}`);
    return false;
  };
  if (!step(['apt-get', 'update', '-q']) || !step(['apt-get', 'install', '-y', '-q', ...absent.map((n) => n.pkg)])) return 1;
  const still = missing(needs);
  if (still.length > 0) {
    say(`still missing after apt-get: ${still.map((n) => n.pkg).join(' ')}`);
    return 1;
  }
  return 0;
}

function main(): void {
  if (process.argv.includes('--list')) {
    process.stdout.write(NEEDS.map((n) => n.pkg).join('\n') + '\n');
    return;
  }
  const code = ensure(NEEDS, means(), { check: process.argv.includes('--check'), say: (l) => process.stderr.write(`${l}\n`) });
  if (code !== 0) process.exit(code);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
