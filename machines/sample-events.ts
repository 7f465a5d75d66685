import type { EventFromLogic } from 'xstate';
import type { machines, MachineName } from './index.ts';

// Every event each machine accepts, with each payload variant that leads
// somewhere different (END's two reasons): what the model-based and
// persistence tests send. Typed over MachineName, so a new machine without
// its events does not compile.

type SampleEvents = { [K in MachineName]: ReadonlyArray<EventFromLogic<(typeof machines)[K]>> };

export const SAMPLE_EVENTS = {
  room: [
    { type: 'OPEN' },
    { type: 'SCHEDULE' },
    { type: 'START' },
    { type: 'END', reason: 'deleted' },
    { type: 'END', reason: 'expired' },
    { type: 'CANCEL' },
  ],
  session: [{ type: 'JOIN' }, { type: 'JOINED' }, { type: 'LEAVE' }, { type: 'ROOM_ENDED' }, { type: 'CALL_ENDED' }],
  call: [
    { type: 'PLACE' },
    { type: 'BLOCK' },
    { type: 'RINGING' },
    { type: 'ANSWERED' },
    { type: 'VOICEMAIL' },
    { type: 'BUSY' },
    { type: 'NO_ANSWER' },
    { type: 'FAILED', reason: 'failed' },
    { type: 'FAILED', reason: 'gateway_lost' },
    { type: 'FAILED', reason: 'no_media' },
    { type: 'HANGUP' },
    { type: 'REMOTE_HANGUP' },
    { type: 'MAX_DURATION' },
    { type: 'MEDIA_TIMEOUT' },
  ],
  booking: [{ type: 'BOOK' }, { type: 'RESCHEDULE' }, { type: 'CANCEL' }, { type: 'COMPLETE' }],
  voice: [{ type: 'REQUEST' }, { type: 'CONSENT' }, { type: 'READY' }, { type: 'FAIL' }, { type: 'EXPIRE' }, { type: 'REVOKE' }],
} satisfies SampleEvents;
