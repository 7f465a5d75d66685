import { describe, expect, it } from 'vitest';
import { createTestModel } from 'xstate/graph';
import { dialogMachine, startDialog, stepDialog, type DialogEffect, type DialogMachineEvent, type DialogSnapshot } from './dialog.ts';
import { cancelAwaitsProvisional, dialogSettled, dialogStateName, heldByFarEnd, holdEvent } from './dialog-state.ts';

// The SIP dialog machine (machines/dialog.ts) on its own, through XState's
// pure transition() (stepDialog): every simple path the model (xstate/graph)
// finds is replayed step by step, each step checked against the table below,
// written from RFC 3261 and operator.md rather than read from the machine,
// and each whole path against the rules a signaling adapter relies on: the
// end reported once and nothing after it, no CANCEL before a provisional
// answer, every 2xx ACKed first, the dialog released from the active ones
// once.

const ok = (tag: string, usableMedia = true): DialogMachineEvent => ({ type: 'FINAL_2XX', tag, status: 200, reason: 'OK', usableMedia, voicemail: false });

const EVENTS: DialogMachineEvent[] = [
  { type: 'PROVISIONAL', status: 100 },
  { type: 'PROVISIONAL', status: 180 },
  ok('a'),
  ok('a', false),
  ok('b'),
  { type: 'FINAL_ERROR', status: 486, reason: 'Busy Here' },
  { type: 'FINAL_ERROR', status: 487, reason: 'Request Terminated' },
  { type: 'FINAL_ERROR', status: 302, reason: 'Moved Temporarily', redirect: true },
  { type: 'NO_RESPONSE' },
  { type: 'GAVE_UP' },
  { type: 'HANGUP' },
  { type: 'RING_TIMEOUT' },
  { type: 'CANCEL_GUARD' },
  { type: 'REMOTE_BYE' },
  { type: 'BYE_ANSWERED' },
  { type: 'MEDIA_SILENT' },
  { type: 'HOLD' },
  { type: 'RESUME' },
  { type: 'OFFER_SENT' },
  { type: 'OFFER_DONE' },
  { type: 'REMOTE_OFFER' },
  { type: 'CLOSE' },
];

function label(e: DialogMachineEvent): string {
  switch (e.type) {
    case 'PROVISIONAL': return `${e.status}`;
    case 'FINAL_2XX': return `200(${e.tag}${e.usableMedia ? '' : ', no media'})`;
    case 'FINAL_ERROR': return `${e.status}`;
    default: return e.type;
  }
}

/** An effect as a short string: `report:rejected 486`, `sendAck:a`. */
function fx(e: DialogEffect): string {
  if (e.type === 'report') {
    const ev = e.event;
    return `report:${ev.type}${'status' in ev ? ` ${ev.status}` : ''}`;
  }
  if (e.type === 'sendAck' || e.type === 'sendBye') return `${e.type}:${e.tag}`;
  return e.type;
}

function run(snap: DialogSnapshot, e: DialogMachineEvent): { next: DialogSnapshot; effects: string[] } {
  const [next, effects] = stepDialog(snap, e);
  return { next, effects: effects.map(fx) };
}

/** The state without the `live.` prefixes; answered as one (its regions are checked apart). */
function nameOf(s: DialogSnapshot): string {
  const n = dialogStateName(s).replace(/^live\.(inviting\.)?/, '');
  return n.startsWith('answered') ? 'answered' : n;
}

type Expect = { to: string; effects: string[] };
const NO_CHANGE = undefined;

/**
 * What each event does in each state, from RFC 3261 and operator.md:
 * undefined means nothing changes and nothing is done.
 */
function expected(s: DialogSnapshot, e: DialogMachineEvent): Expect | undefined {
  const from = nameOf(s);
  const { peerTag, cancel, redirected } = s.context;
  const ended = (...fx: string[]) => ({ to: 'ended', effects: ['inviteOver', 'release', ...fx] });
  // After our CANCEL: the far end's final answer, else as if the 487 had come; the ring timeout says so whatever came.
  const outcome = (status?: number) => cancel === 'ring_timeout' ? 'report:ring_timeout' : `report:rejected ${status ?? 487}`;
  // A 2xx once the INVITE has its outcome: the dialog's own again gets its ACK again; any other is ACKed and hung up.
  if (e.type === 'FINAL_2XX' && !['calling', 'proceeding', 'ringing', 'rerouted'].includes(from) && !from.startsWith('cancelling') && !from.startsWith('abandoning')) {
    return e.tag === peerTag ? { to: from, effects: [`sendAck:${e.tag}`] } : { to: from, effects: [`sendAck:${e.tag}`, `sendBye:${e.tag}`] };
  }
  const inviting = ['calling', 'proceeding', 'ringing', 'rerouted'].includes(from);
  if (inviting) {
    if (e.type === 'FINAL_2XX') {
      return e.usableMedia
        ? { to: 'answered', effects: ['inviteOver', `sendAck:${e.tag}`, 'connectMedia', 'report:answered 200'] }
        : { to: 'terminating', effects: ['inviteOver', 'release', `sendAck:${e.tag}`, `sendBye:${e.tag}`, 'report:no_media 200'] };
    }
    if (e.type === 'FINAL_ERROR') {
      if (e.redirect && !redirected) return { to: from === 'ringing' ? 'rerouted' : 'calling', effects: ['followRedirect'] };
      return ended(`report:rejected ${e.status}`);
    }
    if (e.type === 'GAVE_UP') return ended('report:no_response');
  }
  // No answer at all yet (a redirect's new target counts as a new INVITE).
  if (from === 'calling' || from === 'rerouted') {
    switch (e.type) {
      case 'PROVISIONAL': return from === 'rerouted' ? { to: 'ringing', effects: [] } : e.status > 100 ? { to: 'ringing', effects: ['report:ringing 180'] } : { to: 'proceeding', effects: [] };
      // No CANCEL before a provisional answer (RFC 3261 9.1): it waits, and so does a guard.
      case 'HANGUP': return { to: 'cancelling.awaitingProvisional', effects: ['armCancelGuard'] };
      case 'RING_TIMEOUT':
      case 'NO_RESPONSE': return { to: 'abandoning.awaitingProvisional', effects: ['inviteOver', 'release', 'report:no_response'] };
      case 'CLOSE': return { to: 'abandoning.awaitingProvisional', effects: ['inviteOver', 'release'] };
      default: return NO_CHANGE;
    }
  }
  if (from === 'proceeding' || from === 'ringing') {
    switch (e.type) {
      case 'PROVISIONAL': return from === 'proceeding' && e.status > 100 ? { to: 'ringing', effects: ['report:ringing 180'] } : NO_CHANGE;
      case 'HANGUP':
      case 'RING_TIMEOUT': return { to: 'cancelling.sent', effects: ['sendCancel', 'armCancelGuard'] };
      case 'CLOSE': return { to: 'abandoning.cancelSent', effects: ['inviteOver', 'release', 'sendCancel', 'armCancelGuard'] };
      default: return NO_CHANGE;
    }
  }
  if (from.startsWith('cancelling')) {
    const waiting = from === 'cancelling.awaitingProvisional';
    switch (e.type) {
      case 'PROVISIONAL': return waiting ? { to: 'cancelling.sent', effects: ['sendCancel', 'armCancelGuard'] } : NO_CHANGE;
      // RFC 3261 15: a 2xx that crossed the CANCEL is ACKed, then hung up.
      case 'FINAL_2XX': return { to: 'terminating', effects: ['inviteOver', 'release', `sendAck:${e.tag}`, `sendBye:${e.tag}`, outcome()] };
      case 'FINAL_ERROR': return ended(outcome(e.status));
      case 'NO_RESPONSE': return waiting ? ended(outcome()) : NO_CHANGE;
      case 'GAVE_UP':
      case 'CANCEL_GUARD': return ended(outcome());
      case 'CLOSE': return { to: waiting ? 'abandoning.awaitingProvisional' : 'abandoning.cancelSent', effects: ['inviteOver', 'release'] };
      default: return NO_CHANGE;
    }
  }
  if (from === 'answered') {
    const held = s.matches({ live: { answered: { media: 'held' } } });
    const offered = s.matches({ live: { answered: { offer: 'sent' } } });
    switch (e.type) {
      case 'HANGUP':
      case 'CLOSE': return { to: 'terminating', effects: ['release', `sendBye:${peerTag}`] };
      case 'MEDIA_SILENT': return { to: 'terminating', effects: ['release', `sendBye:${peerTag}`, 'report:media_timeout'] };
      case 'REMOTE_BYE': return { to: 'ended', effects: ['release', 'report:remote_hangup'] };
      case 'HOLD': return held ? NO_CHANGE : { to: 'answered', effects: [] };
      case 'RESUME': return held ? { to: 'answered', effects: [] } : NO_CHANGE;
      case 'OFFER_SENT': return offered ? NO_CHANGE : { to: 'answered', effects: [] };
      case 'OFFER_DONE': return offered ? { to: 'answered', effects: [] } : NO_CHANGE;
      case 'REMOTE_OFFER': return offered ? NO_CHANGE : { to: 'answered', effects: [] };
      default: return NO_CHANGE;
    }
  }
  if (from.startsWith('abandoning')) {
    const waiting = from === 'abandoning.awaitingProvisional';
    switch (e.type) {
      case 'PROVISIONAL': return waiting ? { to: 'abandoning.cancelSent', effects: ['sendCancel', 'armCancelGuard'] } : NO_CHANGE;
      case 'FINAL_2XX': return { to: 'terminating', effects: [`sendAck:${e.tag}`, `sendBye:${e.tag}`] };
      case 'NO_RESPONSE': return waiting ? { to: 'ended', effects: [] } : NO_CHANGE;
      case 'FINAL_ERROR':
      case 'GAVE_UP':
      case 'CANCEL_GUARD': return { to: 'ended', effects: [] };
      default: return NO_CHANGE;
    }
  }
  if (from === 'terminating' && (e.type === 'BYE_ANSWERED' || e.type === 'REMOTE_BYE')) return { to: 'ended', effects: [] };
  return NO_CHANGE;
}

const TERMINAL = new Set(['rejected', 'ring_timeout', 'no_response', 'no_media', 'remote_hangup', 'media_timeout']);

/** The rules over a whole path, whatever the table says. */
function checkPath(steps: { event: DialogMachineEvent; effects: string[] }[]): void {
  const all = steps.flatMap((s) => s.effects);
  const reports = all.filter((f) => f.startsWith('report:'));
  const ends = reports.filter((f) => TERMINAL.has(f.slice(7).split(' ')[0]!));
  expect(ends.length, 'one end reported at most').toBeLessThanOrEqual(1);
  if (ends.length === 1) expect(reports.at(-1), 'nothing reported after the end').toBe(ends[0]);
  expect(reports.filter((f) => f.startsWith('report:ringing')).length).toBeLessThanOrEqual(1);
  expect(reports.filter((f) => f.startsWith('report:answered')).length).toBeLessThanOrEqual(1);
  expect(all.filter((f) => f === 'release').length, 'released once at most').toBeLessThanOrEqual(1);
  if (ends.length === 1) expect(all.indexOf('release'), 'released by the time the end is reported').toBeLessThan(all.indexOf(ends[0]!));
  // RFC 3261 9.1: a CANCEL only once a provisional answer to the INVITE now out (a redirect sends a new one) came; once per INVITE.
  let provisional = false;
  let cancels = 0;
  for (const s of steps) {
    if (s.effects.includes('followRedirect')) {
      provisional = false;
      cancels = 0;
    }
    if (s.event.type === 'PROVISIONAL') provisional = true;
    if (s.effects.includes('sendCancel')) {
      expect(provisional, 'a CANCEL after a provisional answer').toBe(true);
      cancels++;
    }
    expect(cancels).toBeLessThanOrEqual(1);
    // Every 2xx is ACKed, first thing (RFC 3261 13.2.2.4).
    if (s.event.type === 'FINAL_2XX') expect(s.effects.filter((f) => f.startsWith('send'))[0]).toBe(`sendAck:${s.event.tag}`);
  }
  // A BYE goes only to a fork that answered, once.
  const byes = all.filter((f) => f.startsWith('sendBye:'));
  for (const bye of byes) expect(all.indexOf(`sendAck:${bye.slice(8)}`)).toBeLessThan(all.indexOf(bye));
}

// A state is its value and context: by default the model also tells states
// apart by the transition that led to them, and the simple paths then run
// into the millions.
const model = createTestModel(dialogMachine, { events: EVENTS, serializeTransition: () => '' });
const paths = model.getSimplePaths();

describe('dialog machine, every simple path', () => {
  it('reaches every state', () => {
    const reached = new Set(paths.flatMap((p) => p.steps.map((s) => nameOf(s.state as DialogSnapshot))));
    expect([...reached].sort()).toEqual([
      'abandoning.awaitingProvisional', 'abandoning.cancelSent', 'answered', 'calling', 'cancelling.awaitingProvisional',
      'cancelling.sent', 'ended', 'proceeding', 'rerouted', 'ringing', 'terminating',
    ]);
  });

  it(`every step as the table says, every path by the rules (${paths.length} paths)`, () => {
    // Paths share most of their steps: each (state, event) is worked out and checked against the table once.
    const steps = new Map<string, { next: DialogSnapshot; effects: string[] }>();
    const stepFrom = (snap: DialogSnapshot, event: DialogMachineEvent, name: string) => {
      const key = `${JSON.stringify([snap.value, snap.context])} ${JSON.stringify(event)}`;
      let r = steps.get(key);
      if (!r) {
        r = run(snap, event);
        const rule = expected(snap, event);
        const at = `${name}: ${nameOf(snap)} + ${label(event)}`;
        expect({ to: nameOf(r.next), effects: r.effects }, at).toEqual(rule ?? { to: nameOf(snap), effects: [] });
        if (!rule) expect(r.next.value, at).toEqual(snap.value);
        steps.set(key, r);
      }
      return r;
    };
    for (const path of paths) {
      const name = path.steps.slice(1).map((s) => label(s.event as DialogMachineEvent)).join(' → ');
      let snap = startDialog();
      const done: { event: DialogMachineEvent; effects: string[] }[] = [];
      for (const step of path.steps.slice(1)) {
        const event = step.event as DialogMachineEvent;
        const { next, effects } = stepFrom(snap, event, name);
        done.push({ event, effects });
        snap = next;
      }
      checkPath(done);
    }
  });

  it('events a state does not take change nothing, in every state reached', () => {
    for (const path of model.getShortestPaths()) {
      const s = path.state as DialogSnapshot;
      for (const e of EVENTS.filter((x) => expected(s, x) === undefined)) {
        const { next, effects } = run(s, e);
        expect(next.value, `${dialogStateName(s)} + ${label(e)}`).toEqual(s.value);
        expect(next.context).toEqual(s.context);
        expect(effects).toEqual([]);
      }
    }
  });
});

describe('dialog machine, one transition at a time', () => {
  /** Replays events from the start; answers the last snapshot and every effect, in order. */
  function replay(...events: DialogMachineEvent[]) {
    let snap = startDialog();
    const effects: string[] = [];
    for (const e of events) {
      const r = run(snap, e);
      snap = r.next;
      effects.push(...r.effects);
    }
    return { snap, effects };
  }

  it('a 2xx without usable media: ACK, BYE, no_media with its status, never answered', () => {
    const { snap, effects } = replay({ type: 'PROVISIONAL', status: 180 }, ok('a', false));
    expect(nameOf(snap)).toBe('terminating');
    expect(effects).toEqual(['report:ringing 180', 'inviteOver', 'release', 'sendAck:a', 'sendBye:a', 'report:no_media 200']);
    expect(replay({ type: 'PROVISIONAL', status: 180 }, ok('a', false), { type: 'BYE_ANSWERED' }).snap.value).toBe('ended');
  });

  it('the far end silent: BYE, media_timeout; its BYE crossing ours reports nothing more', () => {
    const { snap, effects } = replay(ok('a'), { type: 'MEDIA_SILENT' }, { type: 'REMOTE_BYE' }, { type: 'MEDIA_SILENT' });
    expect(snap.value).toBe('ended');
    expect(effects).toEqual(['inviteOver', 'sendAck:a', 'connectMedia', 'report:answered 200', 'release', 'sendBye:a', 'report:media_timeout']);
  });

  it('held, the dialog still times out (RTCP is what the media watch hears then); resumed, it goes on', () => {
    const held = replay(ok('a'), { type: 'HOLD' });
    expect(held.snap.matches({ live: { answered: { media: 'held' } } })).toBe(true);
    expect(run(held.snap, { type: 'MEDIA_SILENT' }).effects).toEqual(['release', 'sendBye:a', 'report:media_timeout']);
    expect(replay(ok('a'), { type: 'HOLD' }, { type: 'RESUME' }).snap.matches({ live: { answered: { media: 'sending' } } })).toBe(true);
  });

  it('hangup before any answer: no CANCEL until the 1xx; then CANCEL, and the 487 is the end', () => {
    const { snap, effects } = replay({ type: 'HANGUP' }, { type: 'HANGUP' }, { type: 'PROVISIONAL', status: 100 }, { type: 'FINAL_ERROR', status: 487, reason: 'Request Terminated' });
    expect(snap.value).toBe('ended');
    expect(effects).toEqual(['armCancelGuard', 'sendCancel', 'armCancelGuard', 'inviteOver', 'release', 'report:rejected 487']);
  });

  it('ring timeout while ringing: CANCEL; a 2xx crossing it is ACKed and hung up, reported as ring_timeout', () => {
    const { effects } = replay({ type: 'PROVISIONAL', status: 183 }, { type: 'RING_TIMEOUT' }, ok('a'));
    expect(effects).toEqual(['report:ringing 183', 'sendCancel', 'armCancelGuard', 'inviteOver', 'release', 'sendAck:a', 'sendBye:a', 'report:ring_timeout']);
  });

  it('no answer at all: no_response; a late 1xx is CANCELed, a late 2xx ACKed and hung up, nothing reported', () => {
    const late1xx = replay({ type: 'NO_RESPONSE' }, { type: 'PROVISIONAL', status: 180 }, { type: 'FINAL_ERROR', status: 487, reason: 'Request Terminated' });
    expect(late1xx.effects).toEqual(['inviteOver', 'release', 'report:no_response', 'sendCancel', 'armCancelGuard']);
    expect(late1xx.snap.value).toBe('ended');
    const late2xx = replay({ type: 'NO_RESPONSE' }, ok('a'), { type: 'BYE_ANSWERED' });
    expect(late2xx.effects).toEqual(['inviteOver', 'release', 'report:no_response', 'sendAck:a', 'sendBye:a']);
  });

  it('a redirect is followed once; ringing is not said again for the new target', () => {
    const moved = { type: 'FINAL_ERROR', status: 302, reason: 'Moved Temporarily', redirect: true } as const;
    const { snap, effects } = replay({ type: 'PROVISIONAL', status: 180 }, moved, { type: 'PROVISIONAL', status: 180 }, moved);
    expect(effects).toEqual(['report:ringing 180', 'followRedirect', 'inviteOver', 'release', 'report:rejected 302']);
    expect(snap.context.redirected).toBe(true);
    // A redirect the adapter will not follow (another number) ends the call at once.
    expect(replay({ ...moved, redirect: false }).effects).toEqual(['inviteOver', 'release', 'report:rejected 302']);
  });

  it('a second fork answering: ACKed and hung up, the dialog goes on; its retransmission gets the ACK and the BYE is the adapter\'s to send once', () => {
    const { snap, effects } = replay(ok('a'), ok('b'), ok('a'));
    expect(nameOf(snap)).toBe('answered');
    expect(effects.slice(4)).toEqual(['sendAck:b', 'sendBye:b', 'sendAck:a']);
  });

  it('our offer out in a 2xx: a new offer is refused (491) until its ACK', () => {
    const offered = replay(ok('a'), { type: 'OFFER_SENT' }).snap;
    expect(offered.can({ type: 'REMOTE_OFFER' })).toBe(false);
    expect(run(offered, { type: 'OFFER_DONE' }).next.can({ type: 'REMOTE_OFFER' })).toBe(true);
  });

  it('close: the answered BYE, the ringing CANCEL, the unanswered left; nothing reported', () => {
    expect(replay(ok('a'), { type: 'CLOSE' }).effects.slice(4)).toEqual(['release', 'sendBye:a']);
    expect(replay({ type: 'PROVISIONAL', status: 180 }, { type: 'CLOSE' }).effects.slice(1)).toEqual(['inviteOver', 'release', 'sendCancel', 'armCancelGuard']);
    expect(replay({ type: 'CLOSE' }).effects).toEqual(['inviteOver', 'release']);
  });

  it('what an adapter asks of a snapshot: the hold to tell, a CANCEL waiting for its 1xx, nothing more to hear', () => {
    const up = replay(ok('a')).snap;
    expect(holdEvent(up, false)).toBeUndefined();
    expect(holdEvent(up, true)).toEqual({ type: 'HOLD' });
    const held = run(up, { type: 'HOLD' }).next;
    expect(heldByFarEnd(held)).toBe(true);
    expect(holdEvent(held, true)).toBeUndefined();
    expect(holdEvent(held, false)).toEqual({ type: 'RESUME' });

    expect(cancelAwaitsProvisional(replay({ type: 'HANGUP' }).snap)).toBe(true);
    expect(cancelAwaitsProvisional(replay({ type: 'CLOSE' }).snap)).toBe(true);
    expect(cancelAwaitsProvisional(replay({ type: 'HANGUP' }, { type: 'PROVISIONAL', status: 180 }).snap)).toBe(false);

    expect(dialogSettled(replay({ type: 'CLOSE' }).snap)).toBe(true);
    expect(dialogSettled(replay({ type: 'PROVISIONAL', status: 180 }, { type: 'CLOSE' }).snap)).toBe(false);
    expect(dialogSettled(replay(ok('a'), { type: 'HANGUP' }).snap)).toBe(false);
    expect(dialogSettled(replay(ok('a'), { type: 'HANGUP' }, { type: 'BYE_ANSWERED' }).snap)).toBe(true);
  });
});
