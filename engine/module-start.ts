// Starts the feature modules for one app: each after the modules it needs (and a module that renders
// session views after every module that declares some), then binds each module's parts to what it
// brings: its plugins (by name, for the route table), its route guards (all modules' in one order),
// its session sources and its session views. Resolved once at boot; nothing is looked up per request.
import type { BoundSessionSource, BoundSessionView, FeatureModule, ModuleStart, OrderedGuard, RouteGuard, Services, SessionSource } from './types.js';

export interface StartedModules {
  /** The parts of the module that owns each plugin, by the plugin's name. */
  readonly pluginParts: ReadonlyMap<string, unknown>;
  /** Every module's route guards, outermost first. */
  readonly guards: readonly RouteGuard[];
  readonly sessionSources: readonly BoundSessionSource[];
  readonly sessionViews: readonly BoundSessionView[];
  /** What a module's start made for this app (tests and tools read a module's state; routes get theirs bound). */
  partsOf<Q>(module: FeatureModule<Q>): Q | undefined;
  /** Stops the modules, last started first, then closes their guards. */
  stop(): Promise<void>;
}

export function startModules(modules: readonly FeatureModule[], services: Services, clock: () => number = Date.now): StartedModules {
  const started = new Map<FeatureModule, unknown>();
  const views: BoundSessionView[] = [];
  for (const module of startOrder(modules)) {
    const parts = module.start?.(startContext(module, services, started, views, clock));
    started.set(module, parts);
    views.push(...(module.sessionViews ?? []).map((view) => ({ name: view.name, empty: view.empty, read: view.read.bind(view, parts) })));
  }
  const guards = orderedGuards(modules, services, started);
  return {
    pluginParts: new Map(modules.flatMap((m) => Object.keys(m.plugins ?? {}).map((name) => [name, started.get(m)] as const))),
    guards,
    sessionSources: modules.flatMap((m) => (m.sessionSources ?? []).map((source) => boundSource(source, started.get(m)))),
    sessionViews: views,
    partsOf: <Q>(module: FeatureModule<Q>) => started.get(module as FeatureModule) as Q | undefined,
    stop: async () => {
      for (const module of [...started.keys()].reverse()) await module.stop?.(started.get(module));
      for (const guard of guards) await guard.close?.();
    },
  };
}

/** Every module's guards for this app, outermost (lowest order) first; two of one name stop the boot, naming both modules. */
function orderedGuards(modules: readonly FeatureModule[], services: Services, started: ReadonlyMap<FeatureModule, unknown>): RouteGuard[] {
  const owners = new Map<string, string>();
  const ordered: OrderedGuard[] = [];
  for (const module of modules) {
    for (const entry of module.guards?.(services.config, started.get(module)) ?? []) {
      const first = owners.get(entry.guard.name);
      if (first) throw new Error(`feature modules: route guard "${entry.guard.name}" is declared by module ${first} and again by module ${module.name}`);
      owners.set(entry.guard.name, module.name);
      ordered.push(entry);
    }
  }
  return ordered.sort((a, b) => a.order - b.order).map((entry) => entry.guard);
}

function startContext(
  module: FeatureModule,
  services: Services,
  started: ReadonlyMap<FeatureModule, unknown>,
  views: readonly BoundSessionView[],
  clock: () => number,
): ModuleStart {
  return {
    services,
    clock,
    sessionViews: module.readsSessionViews ? [...views] : [],
    partsOf<Q>(needed: FeatureModule<Q>): Q {
      if (!module.needs?.includes(needed as FeatureModule))
        throw new Error(`feature modules: ${module.name} reads ${needed.name}'s parts without naming it in needs`);
      return started.get(needed as FeatureModule) as Q;
    },
  };
}

const boundSource = (source: SessionSource, parts: unknown): BoundSessionSource => ({
  name: source.name,
  bind: (route, services) => source.bind(route, services, parts),
});

/**
 * The listed order, except that a module comes after those it needs and a module that reads session
 * views after every module that declares some. A need that is not listed, or a cycle, stops the boot.
 */
export function startOrder(modules: readonly FeatureModule[]): FeatureModule[] {
  const order: FeatureModule[] = [];
  const visiting = new Set<FeatureModule>();
  const withViews = modules.filter((m) => m.sessionViews?.length);
  const visit = (module: FeatureModule, path: readonly string[]): void => {
    if (order.includes(module)) return;
    if (!modules.includes(module)) throw new Error(`feature modules: ${path.at(-1)} needs ${module.name}, which is not listed`);
    if (visiting.has(module)) throw new Error(`feature modules: a cycle of needs (${[...path, module.name].join(' -> ')})`);
    visiting.add(module);
    const before = [...(module.needs ?? []), ...(module.readsSessionViews ? withViews.filter((m) => m !== module) : [])];
    for (const need of before) visit(need, [...path, module.name]);
    visiting.delete(module);
    order.push(module);
  };
  for (const module of modules) visit(module, []);
  return order;
}
