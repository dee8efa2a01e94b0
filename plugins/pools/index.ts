// The pools module: named sets of sessions (manifest/pools.yaml), the X-Pool header that lends a
// read a healthy member's session, and the pools' errors. The Pools live beside the jobs, which
// spread their pages over a pool's members (plugins/jobs installs both on the background layer).
import type { FeatureModule, Plugin, PluginInput, SessionSource } from '../../engine/types.js';
import { parts } from '../jobs/index.js';
import { POOL_ERRORS, poolReads, serviceError } from './errors.js';

const plugin = (handle: (input: PluginInput) => Promise<unknown>): Plugin => ({ uses: [], handle });

export const poolPlugins: Readonly<Record<string, Plugin>> = Object.freeze({
  'pools.create': plugin(async (input) => parts(input.services).pools.create(String(input.input.name), (input.input.sessions ?? []) as string[], input.caller)),
  'pools.list': plugin(async (input) => parts(input.services).pools.list(input.caller)),
  'pools.delete': plugin(async (input) => {
    if (!(await parts(input.services).pools.remove(String(input.input.name), input.caller)))
      throw serviceError('PoolNotFound', `No pool named "${input.input.name}"`);
    return true;
  }),
  'pools.add_member': plugin(async (input) => parts(input.services).pools.addMember(String(input.input.name), String(input.input.session_id), input.caller)),
  'pools.remove_member': plugin(async (input) => parts(input.services).pools.removeMember(String(input.input.name), String(input.input.member), input.caller)),
});

/**
 * X-Pool: a GET that reads the platform may go to a healthy member of a pool the caller is entitled
 * to (a member's session is not the caller's own: the key's account limit does not apply to it); a
 * route that acts for one account refuses the header; the rest (no session) never read it.
 */
export const xPool: SessionSource = {
  name: 'pools.x-pool',
  bind(route, services) {
    if (poolReads(route)) {
      return (request) => {
        const pool = request.header('x-pool').trim();
        if (!pool) return Promise.resolve(undefined);
        const pools = services.work ? parts(services).pools : undefined;
        if (!pools) throw serviceError('PoolsUnavailable', 'Pools are not available on this instance');
        return pools.choose(pool, request.caller);
      };
    }
    if (route.session !== 'required') return undefined;
    return (request) => {
      if (request.header('x-pool'))
        throw serviceError('PoolNotAllowed', 'X-Pool names a pool for reads of the platform (GET) only; this route acts for one account');
      return Promise.resolve(undefined);
    };
  },
};

export const poolsModule: FeatureModule = { name: 'pools', plugins: poolPlugins, errors: POOL_ERRORS, sessionSources: [xPool] };
