import type { PhoneRooms, Services } from '../../services.ts';
import type { Gateway } from '../../../gateway/gateway.ts';
import type { InboundDecision, InboundInvite } from '../../../gateway/signaling.ts';
import { newId } from '../../ids.ts';
import { destinationOf, maskNumber } from '../../../policies/evaluate.ts';
import { POLICIES } from '../../../policies/index.ts';
import { PageSpeech } from '../read-aloud.ts';
import { PhoneLine } from './phone-line.ts';
import { RoomMixes } from './voices-mix.ts';

// Dialing into rooms (operator.md, Phone participants): this process's gateway takes the calls its
// trunks send to an inbound number (`tolk number add ... --trunk T --inbound`). An INVITE is
// answered when the number dialed takes calls and the INVITE comes from that number's own trunk;
// else 404 (a number of ours that takes no calls, or another trunk's address: it never says which).
// Each answered call is a PhoneLine (phone-line.ts), keyed by the participant id it will have in
// the room; its dialog's events and its media plane's go to it.

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

export type DialInBinding = PhoneRooms & {
  /** The lines this process holds now, by key (tests, bench). */
  readonly lines: ReadonlyMap<string, PhoneLine>;
  /** Every line hung up, its participant gone. */
  stop(): Promise<void>;
};

/** Lines one process holds at most; more are answered 503 (another process, or later). */
export const MAX_PHONE_LINES = 500;

/** The minute factor of a number's country and kind (policies/), 1 where the policies have none. */
function minuteFactorOf(e164: string): number {
  const dest = destinationOf(e164);
  const f = dest ? POLICIES[dest.country]?.minuteFactor[dest.kind] : undefined;
  return typeof f === 'number' && f > 0 ? f : 1;
}

export function bindDialIn(s: Services, gw: Gateway, log: Log): DialInBinding {
  const lines = new Map<string, PhoneLine>();
  const speech = new PageSpeech(s, gw.speech);
  const mixes = s.media ? new RoomMixes(s.media, gw.media, log) : undefined;
  let stopping = false;

  const decide = async (inv: InboundInvite): Promise<InboundDecision> => {
    if (stopping) return { status: 503, reason: 'Service Unavailable' };
    const number = await s.reactions.inboundNumber(s.pool, inv.to, inv.source.address);
    if (!number) return { status: 404, reason: 'Not Found' };
    if (lines.size >= MAX_PHONE_LINES) return { status: 503, reason: 'Service Unavailable' };
    const key = newId('par');
    // The caller's number as E.164 where From has one (the PIN quotas count per caller: else per address).
    const e164 = /^\d{4,15}$/.test(inv.from) ? `+${inv.from}` : null;
    const caller = e164 ?? inv.source.address;
    const masked = e164 ? maskNumber(e164) : 'anonymous';
    const line = new PhoneLine(key, {
      dialIn: { numberId: number.id, orgId: number.org_id, caller, masked, minuteFactor: minuteFactorOf(number.e164) },
    }, { s, gw, speech, log, mixes });
    line.onGone = () => { if (lines.get(key) === line) lines.delete(key); };
    lines.set(key, line);
    log.info({ key, number: number.id, caller: masked }, 'a call to a dial-in number');
    return { key };
  };

  gw.onInbound({
    decide,
    onEvent: (key, e) => {
      const line = lines.get(key);
      if (!line) return;
      if (e.type === 'answered') void line.answered();
      else if (e.type === 'remote_hangup' || e.type === 'media_timeout') void line.ended();
    },
  });
  const { media } = gw;
  media.on('dtmf', (key, digit) => lines.get(key)?.digit(digit));
  media.on('speech', (key, kind) => lines.get(key)?.speech(kind));
  media.on('audio', (key, pcm, start) => lines.get(key)?.listen(pcm, start));
  media.on('unheard', (key) => lines.get(key)?.unheard());
  media.on('heard', (key, u) => lines.get(key)?.hear(u));
  media.on('finished', (key, u) => lines.get(key)?.spoken(u));
  media.on('interrupted', (key, u) => lines.get(key)?.spoken(u));

  return {
    lines,
    bring(callId, o) {
      const line = new PhoneLine(callId, { pid: newId('par'), recognizer: o.recognizer, endCall: o.end }, { s, gw, speech, log, mixes });
      line.onGone = () => { if (lines.get(callId) === line) lines.delete(callId); };
      lines.set(callId, line);
      void line.enter({ roomId: o.roomId, name: o.phone, speak: o.lang, hear: o.lang, phone: o.phone, minuteFactor: null });
    },
    ended(callId) {
      void lines.get(callId)?.ended();
    },
    async stop() {
      stopping = true;
      await Promise.all([...lines.values()].map(async (line) => {
        await gw.signaling.hangup(line.key).catch(() => {});
        await line.ended();
      }));
      mixes?.stop();
    },
  };
}
