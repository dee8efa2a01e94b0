// What the console works on for one app, made by its module's start: the events and jobs modules'
// parts (undefined on an app without the background layer), every module's session views (the
// panels of a session row), and the changes its own actions tell the live streams.
import type { BoundSessionView, ModuleStart } from '../../engine/types.js';
import type { EventsParts } from '../events/index.js';
import type { JobsParts } from '../jobs/index.js';
import { ConsoleChanges } from './changes.js';

export interface ConsoleParts {
  readonly events: EventsParts | undefined;
  readonly jobs: JobsParts;
  readonly views: readonly BoundSessionView[];
  readonly changes: ConsoleChanges;
}

export function consoleParts(context: ModuleStart, events: EventsParts | undefined, jobs: JobsParts): ConsoleParts {
  return { events, jobs, views: context.sessionViews, changes: new ConsoleChanges() };
}
