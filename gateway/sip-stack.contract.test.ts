import { createSipSignaling } from './sip-stack.ts';
import { signalingContract } from './signaling.contract.ts';

// The SipSignaling contract against the embedded stack (npm `sip`).
signalingContract('the embedded stack', createSipSignaling);
