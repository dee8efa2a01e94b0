// The pools module: named sets of sessions (manifest/pools.yaml), the X-Pool header that lends a
// read a healthy member's session, and the pools' errors. The Pools live beside the jobs, which
// spread their pages over a pool's members (plugins/jobs installs both on the background layer).
import type { FeatureModule, Plugin, PluginInput, SessionSource } from '../../engine/types.js';
import type { Pools } from './pools.js';
import { jobsModule } from '../jobs/module.js';
import { serviceError as jobsError } from '../jobs/errors.js';
import { POOL_ERRORS, poolReads, serviceError } from './errors.js';

type PoolsParts = Pools | undefined;
const plugin = (handle: (input: PluginInput<PoolsParts>) => Promise<unknown>): Plugin<PoolsParts> => ({ uses: [], handle });

/** The app's pools, or 503 when the instance runs no background layer (the pools' routes answer as the jobs' do). */
function present(pools: PoolsParts): Pools {
  if (!pools) throw jobsError('JobsUnavailable', 'Background work is not available on this instance');
  return pools;
}

export const poolPlugins: Readonly<Record<string, Plugin<PoolsParts>>> = Object.freeze({
  'pools.create': plugin(async (input) => present(input.parts).create(String(input.input.name), (input.input.sessions ?? []) as string[], input.caller)),
  'pools.list': plugin(async (input) => present(input.parts).list(input.caller)),
  'pools.delete': plugin(async (input) => {
    if (!(await present(input.parts).remove(String(input.input.name), input.caller))) throw serviceError('PoolNotFound', `No pool named "${input.input.name}"`);
    return true;
  }),
  'pools.add_member': plugin(async (input) => present(input.parts).addMember(String(input.input.name), String(input.input.session_id), input.caller)),
  'pools.remove_member': plugin(async (input) => present(input.parts).removeMember(String(input.input.name), String(input.input.member), input.caller)),
});

/**
 * X-Pool: a GET that reads the platform may go to a healthy member of a pool the caller is entitled
 * to (a member's session is not the caller's own: the key's account limit does not apply to it); a
 * route that acts for one account refuses the header; the rest (no session) never read it.
 */
export const xPool: SessionSource<PoolsParts> = {
  name: 'pools.x-pool',
  bind(route, _services, parts) {
    if (poolReads(route)) {
      return (request) => {
        const pool = request.header('x-pool').trim();
        if (!pool) return Promise.resolve(undefined);
        if (!parts) throw serviceError('PoolsUnavailable', 'Pools are not available on this instance');
        return parts.choose(pool, request.caller);
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

/** The pools live beside the jobs (which spread pages over them): the module works on the jobs module's. */
export const poolsModule: FeatureModule<PoolsParts> = {
  name: 'pools',
  needs: [jobsModule],
  start: (context) => context.partsOf(jobsModule)?.pools,
  plugins: poolPlugins,
  errors: POOL_ERRORS,
  sessionSources: [xPool],
};
