// Recovery helpers over any upstream, used where the library has what they need (its capabilities,
// never its version string): the state of a publish whose answer was lost (aiograpi 2.0.6's
// media_upload_status, for the writes layer's reconciliation) and fresh addresses for a video whose
// addresses expired (2.0.6's video_refresh_resources). Where the library lacks them they answer
// undefined and the caller keeps its own way (look the media up, or report the loss).
import type { UpstreamClient, UpstreamLibrary } from '../../engine/types.js';

export interface UploadOutcome {
  /** COMPLETED: published; FAILED: the platform gave up; anything else: still being processed. */
  readonly state: 'completed' | 'failed' | 'pending';
  /** The published media's ids, when completed. */
  readonly mediaIds: readonly string[];
  /** The platform's error for a failed publish. */
  readonly error?: string;
}

type Json = Record<string, unknown>;

/** The outcome of the publish with this client-chosen id (the upload id the request carried). */
export async function uploadOutcome(library: UpstreamLibrary, client: UpstreamClient, postClientId: string): Promise<UploadOutcome | undefined> {
  if (!library.capabilities?.media_upload_status) return undefined;
  const raw = (await client.call('media_upload_status', { post_client_id: postClientId })) as Json;
  const entries = [...list(raw.posts), ...list(raw.medias)];
  const entry = entries.find((e) => String(e.post_client_id ?? e.upload_id ?? postClientId) === postClientId) ?? entries[0] ?? raw;
  const status = String(entry.status ?? '').toUpperCase();
  const mediaIds = [...list<unknown>(entry.media_ids), ...list<unknown>(raw.media_ids)].map(String);
  if (status === 'COMPLETED') return { state: 'completed', mediaIds };
  if (status === 'FAILED' || status === 'ERROR') return { state: 'failed', mediaIds, error: errorOf(entry.error_info) };
  return { state: 'pending', mediaIds };
}

/** Fresh addresses of a video's files, best first, for a media whose addresses expired. */
export async function refreshedVideoUrls(library: UpstreamLibrary, client: UpstreamClient, mediaId: string): Promise<string[] | undefined> {
  if (!library.capabilities?.video_refresh_resources) return undefined;
  const raw = (await client.call('video_refresh_resources', { media_id: mediaId })) as Json;
  return list(raw.video_versions)
    .map((v) => String(v.url ?? ''))
    .filter(Boolean);
}

function list<T = Json>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

function errorOf(info: unknown): string | undefined {
  if (!info) return undefined;
  if (typeof info === 'string') return info;
  const record = info as Json;
  return String(record.message ?? record.error_message ?? JSON.stringify(info));
}
