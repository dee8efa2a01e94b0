// Story routes choose the photo or the video call by `as_video`. Its default (false) cannot be told
// from an explicit false, so the content decides for a video; an explicit true on an image is a
// contradiction the caller should hear about rather than an upstream failure.
import { invalidParams } from '../../engine/service-errors.js';
import type { InputBag, RouteSpec } from '../../engine/types.js';

export function settleAsVideo(route: RouteSpec, bag: InputBag, field: string, kind: 'image' | 'video' | 'audio' | undefined): void {
  if (!route.params.some((p) => p.name === 'as_video') || (kind !== 'image' && kind !== 'video')) return;
  if (kind === 'video') {
    bag.as_video = true;
    return;
  }
  if (bag.as_video === true) throw invalidParams([{ param: field, problem: 'as_video is true but the content is an image' }]);
  bag.as_video = false;
}
