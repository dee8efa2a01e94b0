// The steps both upload plugins share: check the uploaded files, then finish the bag (story kind,
// centred decorations) before the route's declared calls run.
import { rm } from 'node:fs/promises';
import type { InputBag, ParamSpec, PluginInput } from '../../engine/types.js';
import type { TransferSettings } from '../../adapters/transfer/index.js';
import { centreDecorations } from './decorations.js';
import { checkFile, kindOf, type CheckedFile } from './limits.js';
import { settleAsVideo } from './story-kind.js';

/** Checked media of one parameter, in the order sent. */
export type Prepared = ReadonlyMap<ParamSpec, readonly CheckedFile[]>;

export async function prepareUploads(input: PluginInput, settings: TransferSettings): Promise<Prepared> {
  const prepared = new Map<ParamSpec, CheckedFile[]>();
  for (const param of input.route.request.files) {
    const files = input.files.filter((f) => f.field === param.name);
    const checked: CheckedFile[] = [];
    for (const file of files) checked.push(await checkFile(param.name, file, kindOf(param), settings, removeLater(input)));
    if (checked.length) prepared.set(param, checked);
  }
  return prepared;
}

/** Put the checked paths in the bag in place of what the client sent, and settle story options. */
export function finishBag(input: PluginInput, prepared: Prepared): InputBag {
  const bag: InputBag = { ...input.input };
  for (const [param, files] of prepared) bag[param.name] = param.repeated ? files.map((f) => f.path) : files[0].path;
  const media = [...prepared].find(([param]) => kindOf(param) === 'image_or_video' && !param.repeated);
  if (media) settleAsVideo(input.route, bag, media[0].name, media[1][0].sniffed.kind);
  return centreDecorations(input.route, bag);
}

export function removeLater(input: PluginInput): (path: string) => void {
  return (path) => input.defer(() => rm(path, { force: true }));
}
