// The shared adapter suite against both upstreams: the sandbox in process and the aiograpi sidecar
// over the stand-in library.
import t from 'tap';
import { createSandbox, FIXED, type SandboxAdapter } from '../../../adapters/upstream/sandbox/index.js';
import type { UpstreamAdapter } from '../../../engine/types.js';
import { adapterSuite } from '../../helpers/adapter-suite.js';
import { standInAdapter } from '../../helpers/sidecar.js';

adapterSuite(t, {
  name: 'sandbox',
  make: () => createSandbox({ seed: 1 }),
  demoPhotoPk: (adapter: UpstreamAdapter) => {
    const world = (adapter as SandboxAdapter).world;
    return world.users.get(FIXED.demo)!.media.find((pk) => world.media.get(pk)?.kind === 'photo')!;
  },
});

adapterSuite(t, {
  name: 'aiograpi sidecar',
  make: (t) => standInAdapter(t),
  demoPhotoPk: () => '3001',
});
