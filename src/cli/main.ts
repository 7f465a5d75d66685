import { Command, CommanderError, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { resolveDatabase } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { databaseFailure } from '../startup.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { loadActor } from '../actors/store.ts';
import { addNumber, createEventType, createKey, createOrg, listMail, markNeedsReview, revokeKey, serverBaseUrl, setOrg, UsageError } from './admin.ts';
import { showMail } from './mail-show.ts';
import { seed } from './seed.ts';
import { addTrunk, listTrunks, removeTrunk } from './trunk.ts';
import { reportAll } from '../engines/translate/report.ts';
import { enginesTable } from './engines-table.ts';
import { listen, registerListen } from './listen.ts';
import { registerModels } from './models.ts';

// The operator CLI of operator.md: one JSON object on stdout, logs on stderr,
// non-zero exit with {"error": "..."} on failure. `engines` alone prints a
// table instead when stdout is a terminal (a person reads it; scripts pipe).

function print(o: unknown): void {
  process.stdout.write(`${JSON.stringify(o)}\n`);
}

// An invalid environment is an {"error"} like any other failure, not a stack trace.
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (err) {
  print({ error: (err as Error).message });
  process.exit(1);
}

// The urls the CLI prints (event-type create) open the server: PUBLIC_BASE_URL
// when set, else http://localhost:PORT when PORT is set, else the address the
// server last started with records in the database (server.ts recordBaseUrl),
// else http://localhost:8080.
const baseFromEnv = Boolean(process.env.PUBLIC_BASE_URL || process.env.PORT);

async function withDb<T>(fn: (pool: Pool) => Promise<T>): Promise<T> {
  const db = await resolveDatabase(config, (m) => process.stderr.write(`${m}\n`));
  try {
    await migrate(db.url).catch((err) => {
      throw databaseFailure(err, db.url, Boolean(config.databaseUrl));
    });
    const pool = createPool(db.url, 2);
    try {
      if (!baseFromEnv) config.publicBaseUrl = (await serverBaseUrl(pool)) ?? config.publicBaseUrl;
      return await fn(pool);
    } finally {
      await pool.end();
    }
  } finally {
    await db.stop();
  }
}

const num = (flag: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${flag} must be a number`);
  return n;
};

const program = new Command('tolk')
  .description('Tolk operator CLI')
  .exitOverride()
  // Usage and commander's messages go to stderr; stdout carries only the JSON.
  .configureOutput({ writeOut: (s) => process.stderr.write(s), writeErr: (s) => process.stderr.write(s) });

program.command('migrate').description('apply database migrations').action(async () => {
  await withDb(async () => {});
  print({ migrated: true });
});

const org = program.command('org').description('organizations');
org.command('create')
  .requiredOption('--name <name>')
  .option('--plan <plan>', 'paid or free', 'paid')
  .option('--status <status>', 'active, blocked or suspended', 'active')
  .option('--minutes <minutes>', 'balance in minutes', num('--minutes'), 600)
  .option('--owner-email <email>')
  .action(async (o) => {
    checkPlanStatus(o);
    print(await withDb((p) => createOrg(p, o)));
  });
org.command('set <id>')
  .option('--plan <plan>')
  .option('--status <status>')
  .option('--minutes <minutes>', 'balance in minutes', num('--minutes'))
  .action(async (id, o) => {
    checkPlanStatus(o);
    print(await withDb((p) => setOrg(p, id, o)));
  });

function checkPlanStatus(o: { plan?: string; status?: string }) {
  if (o.plan !== undefined && !['paid', 'free'].includes(o.plan)) throw new UsageError('--plan must be paid or free');
  if (o.status !== undefined && !['active', 'blocked', 'suspended'].includes(o.status)) {
    throw new UsageError('--status must be active, blocked or suspended');
  }
}

const key = program.command('key').description('API keys');
key.command('create')
  .requiredOption('--org <id>')
  .requiredOption('--mode <mode>', 'test or live')
  .option('--name <name>')
  .option('--permissions <list>', 'all or p1,p2,...', 'all')
  .option('--ip-allow <cidrs>')
  .option('--langs <list>')
  .option('--voices <list>')
  .option('--numbers <list>')
  .option('--destinations <list>')
  .option('--spend-day <minutes>', 'minutes per day', num('--spend-day'))
  .option('--spend-month <minutes>', 'minutes per month', num('--spend-month'))
  .option('--per-call <minutes>', 'minutes per call', num('--per-call'))
  .option('--rpm <n>', 'requests per minute', num('--rpm'))
  .option('--expires-at <iso>')
  .action(async (o) => print(await withDb((p) => createKey(p, o))));
key.command('revoke <id>').action(async (id) => print(await withDb((p) => revokeKey(p, id))));
key.command('needs-review <id>').action(async (id) => print(await withDb((p) => markNeedsReview(p, id))));

program.command('number').description('phone numbers').command('add')
  .requiredOption('--org <id>')
  .requiredOption('--e164 <number>')
  .option('--label <label>')
  .option('--default')
  .option('--trunk <id>', 'the trunk live calls from this number go out through')
  .option('--inbound', 'calls from the trunk to this number join rooms (a greeting, then the person\'s PIN by DTMF, ending with #)')
  .action(async (o) => print(await withDb((p) => addNumber(p, o))));

const trunk = program.command('trunk').description('SIP trunks: the carrier connections live calls go out through');
trunk.command('add')
  .requiredOption('--org <id>')
  .requiredOption('--uri <uri>', 'sip:HOST[:PORT][;transport=udp|tcp]')
  .option('--proxy <uri>', 'an outbound proxy as next hop: sip:HOST[:PORT][;transport=udp|tcp]')
  .option('--username <user>')
  .option('--password <password>', 'stored encrypted with TOLK_SECRET_KEY')
  .option('--realm <realm>', 'answer only this realm\'s challenges')
  .option('--from-domain <host>', 'the host of From (and P-Asserted-Identity)')
  .option('--caller-id <where>', 'from or pai', 'from')
  .option('--privacy', 'with --caller-id pai: Privacy: id, and an anonymous From')
  .option('--number-format <format>', 'e164 or digits', 'e164')
  .option('--max-cps <n>', 'calls per second the carrier takes', num('--max-cps'))
  .action(async (o) => print(await withDb((p) => addTrunk(p, config.secretKey, o))));
trunk.command('list')
  .requiredOption('--org <id>')
  .action(async (o) => print(await withDb((p) => listTrunks(p, o.org))));
trunk.command('remove <id>').action(async (id) => print(await withDb((p) => removeTrunk(p, id))));

program.command('event-type').description('booking links').command('create')
  .requiredOption('--org <id>')
  .requiredOption('--page <slug>')
  .requiredOption('--slug <slug>')
  .requiredOption('--title <title>')
  .option('--duration <min>', 'minutes', num('--duration'))
  .option('--tz <iana>')
  .option('--hours <spec>', 'working hours, e.g. "mon-fri 09:00-12:00, mon-fri 13:00-17:00, sat 10:00-12:00"')
  .option('--lang <code>', 'the language the host speaks (default en)')
  .action(async (o) => print(await withDb((p) => createEventType(p, config.publicBaseUrl, o))));

program.command('seed').description('create a demo organization with keys').action(async () => {
  print(await withDb((p) => seed(p, config)));
});

program.command('engines').description('what each engine covers and whether it answers: a table on a terminal, else one JSON object')
  .addOption(new Option('--json', 'one JSON object (the default when stdout is not a terminal)').conflicts('table'))
  .option('--table', 'a table a person can read (the default on a terminal)')
  .addHelpText('after', `
Every engine of TOLK_TRANSLATE, TOLK_RECOGNIZE and TOLK_SPEECH_ENGINES is tried
(a phrase translated, a second of silence heard, a word said), as the server
would use it.

The table (a terminal, or --table; 100 columns at most) has a row per language:
the common ones, and every language a translation engine covers:
  speak (mic)   the recognizer that hears it from a microphone or phone line
  read aloud    the speech engine that speaks it (the first that does)
  translate     the languages it is translated to and from, and by which engine:
                ⇄ both ways, → to only, ← from only; "via es" through Spanish
then the languages only read aloud, and a line per engine: whether it answers,
in how many milliseconds, and if not, why.

The JSON object (piped, or --json): {"translate", "recognize", "speech",
"languages"}, each engine with answers, latency_ms and error, each language
with its recognizers, its speech engine and its translations to and from.`)
  .action(async (o: { json?: boolean; table?: boolean }) => {
    const report = await reportAll(config);
    if (o.table || (!o.json && process.stdout.isTTY)) process.stdout.write(enginesTable(report, process.stdout.columns || 100));
    else print(report);
  });

const mail = program.command('mail').description('the mail outbox');
mail.command('list')
  .option('--to <addr>')
  .action(async (o) => print(await withDb((p) => listMail(p, o.to))));
mail.command('show <id>')
  .description('one message as its reader gets it; its calendar file saved to a file (--ics-out, default <TOLK_DATA_DIR>/mail/<id>/invite.ics)')
  .option('--ics-out <file>', 'where to save the calendar attachment')
  .action(async (id, o) => print(await withDb((p) => showMail(p, config, id, o.icsOut))));

program.command('actors').description('persisted actors').command('show <id>').action(async (id) => {
  const actor = await withDb((p) => loadActor(p, id));
  if (!actor) throw new UsageError(`no actor with id ${id}`);
  print(actor);
});

registerListen(program, (o) => withDb((p) => listen(p, o, print)));
registerModels(program, config, print);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')) process.exit(0);
  // A group without its subcommand (or no command at all): commander prints the
  // usage (to stderr) and reports only '(outputHelp)'.
  const message = err instanceof CommanderError && err.code === 'commander.help'
    ? 'missing command; see the usage on stderr or run tolk --help'
    : err instanceof CommanderError ? err.message.replace(/^error: /, '') : err instanceof Error ? err.message : String(err);
  print({ error: message });
  process.exit(err instanceof UsageError || err instanceof CommanderError ? 2 : 1);
}
