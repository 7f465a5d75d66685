import { emit, setup } from 'xstate';
import type { Emits } from './event-types.ts';

// The lifecycle of a cloned voice (api.md: Voice, the voice state table,
// voice.* events). Pure: no I/O; the emitted events go to the outbox in the
// same transaction as the snapshot (src/actors/store.ts), and carry the
// voice without its person (never the e-mail).
//
// POST /v1/voices sends REQUEST: `awaiting_consent`, the consent link mailed
// to the person. The person completes the consent on the consent page (the
// one-time code, then the recording) or a test key's helper does it for them
// (CONSENT: `processing`). Processing makes the voice (READY: `ready`, usable
// in say) or cannot (FAIL: `failed`). An unused link lapses after 7 days
// (EXPIRE, a pg-boss timer: `expired`). The person (the link in the
// confirmation mail) or the organization (DELETE /v1/voices/{id}) withdraws
// it (REVOKE: `revoked`): before the consent, while processing or once ready.
// failed, expired and revoked are final.
export type VoiceEvent =
  | { type: 'REQUEST' }
  | { type: 'CONSENT' }
  | { type: 'READY' }
  | { type: 'FAIL' }
  | { type: 'EXPIRE' }
  | { type: 'REVOKE' };

export type VoiceEmitted = Emits<'voice.consent_completed' | 'voice.ready' | 'voice.failed' | 'voice.expired' | 'voice.revoked'>;

export const voiceMachine = setup({
  types: {
    events: {} as VoiceEvent,
    emitted: {} as VoiceEmitted,
  },
  actions: {
    consentCompleted: emit({ type: 'voice.consent_completed' }),
    ready: emit({ type: 'voice.ready' }),
    failed: emit({ type: 'voice.failed' }),
    expired: emit({ type: 'voice.expired' }),
    revoked: emit({ type: 'voice.revoked' }),
  },
}).createMachine({
  id: 'voice',
  initial: 'created',
  states: {
    created: {
      on: { REQUEST: { target: 'awaiting_consent' } },
    },
    awaiting_consent: {
      on: {
        CONSENT: { target: 'processing', actions: 'consentCompleted' },
        EXPIRE: { target: 'expired', actions: 'expired' },
        REVOKE: { target: 'revoked', actions: 'revoked' },
      },
    },
    processing: {
      on: {
        READY: { target: 'ready', actions: 'ready' },
        FAIL: { target: 'failed', actions: 'failed' },
        REVOKE: { target: 'revoked', actions: 'revoked' },
      },
    },
    ready: {
      on: { REVOKE: { target: 'revoked', actions: 'revoked' } },
    },
    failed: { type: 'final' },
    expired: { type: 'final' },
    revoked: { type: 'final' },
  },
});
