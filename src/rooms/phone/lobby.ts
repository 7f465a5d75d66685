import { ApiError } from '../../errors.ts';
import type { Services } from '../../services.ts';
import type { Gateway } from '../../../gateway/gateway.ts';
import { phoneTexts, type PhoneTexts } from '../../i18n/phone.ts';
import { pinAt, type PinHolder } from '../phone-pins.ts';

// The lobby of a dial-in (phone-line.ts owns one): the caller is greeted in
// the languages of the organization's rooms (the most used that an engine
// speaks, at most three) and types their PIN: digits, `#` to end, `*` to start
// again, taken by itself after a pause. A key pressed over a prompt cuts it.
// Three PINs that let nobody in, or the PIN budget spent, end with a goodbye,
// then our BYE; silence gets the prompt again, then the goodbye. A PIN that
// lets nobody in never says why.

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

/** What the lobby asks of its line. */
export type LobbyLine = {
  readonly key: string;
  /** Whether the caller is still in the lobby (not joining, in the room, or gone). */
  readonly inLobby: boolean;
  /** Says `text` in `lang` after what is playing; `untilSaid`: resolves once heard. */
  say(utterance: string, text: string, lang: string, untilSaid?: boolean, interruptible?: boolean): Promise<void>;
  /** The PIN let them in. */
  join(h: PinHolder): Promise<void>;
  /** The lobby says goodbye: the caller is gone from now on. */
  leave(): void;
  /** Our BYE, once the goodbye was said. */
  hangup(): Promise<void>;
};

export type Where = {
  /** The dial-in number's id (PIN quotas per number) and the organization whose rooms it takes callers into. */
  numberId: string;
  orgId: string;
  /** The caller's number (or address), as the PIN quotas count it, and masked for the log. */
  caller: string;
  masked: string;
};

/** Wrong PINs before the goodbye. */
export const PIN_ATTEMPTS = 3;
/** A PIN typed without `#` is taken after this pause. */
const DIGIT_PAUSE_MS = 8_000;
/** Nothing typed after a prompt: it is said again, at most twice, then the goodbye. */
const SILENT_PROMPT_MS = 20_000;
const SILENT_PROMPTS = 3;
/** The languages a caller is greeted in, at most. */
const GREETING_LANGS = 3;

export class PhoneLobby {
  private digits = '';
  private tries = 0;
  private silentPrompts = 0;
  private timer: NodeJS.Timeout | undefined;
  private greeting: Array<{ lang: string; texts: PhoneTexts }> = [];
  private n = 0;
  private readonly line: LobbyLine;
  private readonly where: Where;
  private readonly d: { s: Services; gw: Gateway; log: Log };

  constructor(line: LobbyLine, where: Where, d: { s: Services; gw: Gateway; log: Log }) {
    this.line = line;
    this.where = where;
    this.d = d;
  }

  /** The caller's ACK came: they are greeted, and their PIN awaited. */
  async greet(): Promise<void> {
    this.greeting = await this.greetingLanguages().catch(() => [{ lang: 'en', texts: phoneTexts('en').texts }]);
    this.prompt('welcome');
  }

  /** A key pressed in the lobby. */
  digit(digit: string): void {
    clearTimeout(this.timer);
    // A key pressed over a prompt stops it.
    void this.d.gw.media.hush(this.line.key).catch(() => {});
    if (digit === '#') return void this.submit();
    if (digit === '*') {
      this.digits = '';
    } else if (/^[0-9]$/.test(digit) && this.digits.length < 16) {
      this.digits += digit;
    }
    this.timer = setTimeout(() => void this.submit(), DIGIT_PAUSE_MS);
    this.timer.unref();
  }

  /** The line is over (or left the lobby): no prompt comes again. */
  stop(): void {
    clearTimeout(this.timer);
  }

  /** The goodbye (in the greeting's languages), then our BYE. */
  goodbye(which: 'goodbye' | 'full'): void {
    if (!this.line.inLobby) return;
    this.line.leave();
    clearTimeout(this.timer);
    const said = this.greeting.map((g) => this.line.say(`${which}-${this.n++}`, g.texts[which], g.lang, true));
    void Promise.all(said).then(() => this.line.hangup());
  }

  /** The PIN typed so far is tried. */
  private async submit(): Promise<void> {
    clearTimeout(this.timer);
    if (!this.line.inLobby) return;
    const pin = this.digits;
    this.digits = '';
    if (pin === '') return this.prompt('welcome');
    this.tries++;
    let holder: PinHolder | null;
    const { key } = this.line;
    try {
      holder = await pinAt(this.d.s, this.where.numberId, this.where.caller, pin);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'rate_limited')) this.d.log.error({ key, err: String(err) }, 'a PIN could not be checked');
      else this.d.log.warn({ key, caller: this.where.masked }, 'too many PIN tries: goodbye');
      return this.goodbye('goodbye');
    }
    if (!this.line.inLobby) return;
    if (!holder || holder.status !== 'live' || holder.org_id !== this.where.orgId) {
      this.d.log.info({ key, tries: this.tries }, 'a PIN let nobody in');
      if (this.tries >= PIN_ATTEMPTS) return this.goodbye('goodbye');
      return this.prompt('wrongPin');
    }
    await this.line.join(holder);
  }

  /** A lobby prompt in each greeting language, interruptible by a key; after it, the wait for digits. */
  private prompt(which: 'welcome' | 'wrongPin'): void {
    for (const g of this.greeting) void this.line.say(`${which}-${this.n++}`, g.texts[which], g.lang, false, true);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.line.inLobby || this.digits !== '') return;
      if (++this.silentPrompts >= SILENT_PROMPTS) return this.goodbye('goodbye');
      this.prompt('welcome');
    }, SILENT_PROMPT_MS);
    this.timer.unref();
  }

  /** The languages of the organization's live and scheduled rooms, the most used first (at most GREETING_LANGS that an engine speaks); English without any. */
  private async greetingLanguages(): Promise<Array<{ lang: string; texts: PhoneTexts }>> {
    const { rows } = await this.d.s.pool.query<{ lang: string }>(
      `SELECT l AS lang FROM rooms, unnest(langs) AS l WHERE org_id = $1 AND status IN ('live', 'scheduled')
        GROUP BY l ORDER BY count(*) DESC, l LIMIT 20`, [this.where.orgId]);
    const out: Array<{ lang: string; texts: PhoneTexts }> = [];
    for (const { lang } of rows) {
      const t = phoneTexts(lang);
      if (out.some((o) => o.lang === t.lang) || !this.d.gw.speech.speaks(t.lang)) continue;
      out.push({ lang: t.lang, texts: t.texts });
      if (out.length === GREETING_LANGS) break;
    }
    return out.length > 0 ? out : [{ lang: 'en', texts: phoneTexts('en').texts }];
  }
}
