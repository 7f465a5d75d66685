import type { EngineDescriptor } from '../descriptor.ts';
import { startApy, superviseApy } from './apy.ts';
import { ApertiumEngine } from './translate.ts';

// Without a URL, the apertium-apy this process runs (apy.ts), which the
// engine asks at the address it has now (a restarted one may move).
export const apertium: EngineDescriptor = {
  name: 'apertium',
  covers: 'the pairs of the Apertium APY at its URL, or of the apertium-apy the service runs (without one); others through a pivot',
  settings: [],
  translate: {
    url: 'optional',
    create: (e, s) => new ApertiumEngine({ url: e.url ?? s.ownUrl! }),
    ownServer: {
      what: 'apertium-apy',
      supervise: (o) => superviseApy(o),
      start: async () => {
        const apy = await startApy();
        return { url: () => apy.url, stop: apy.stop };
      },
    },
  },
};
