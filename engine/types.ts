// The engine's contracts, one module per concern: the normalised route record and error table
// (types/route), the upstream and session-store ports (types/ports), the registries' function
// shapes (types/registries), and what plugins get (types/plugins).
export * from './types/route.js';
export * from './types/ports.js';
export * from './types/registries.js';
export * from './types/plugins.js';
export * from './types/work.js';
export * from './types/caller.js';
export * from './types/audit.js';
export * from './types/guards.js';
export * from './types/modules.js';
