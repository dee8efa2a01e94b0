// Helpers for tests and tools that drive the sandbox directly (no HTTP).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UpstreamClient } from '../../engine/types.js';
import { sandboxFileBytes } from '../../adapters/upstream/sandbox/files.js';
import type { SandboxAdapter } from '../../adapters/upstream/sandbox/index.js';
import { PASSWORD } from '../../adapters/upstream/sandbox/world/users.js';

export async function loginAs(sandbox: SandboxAdapter, username = 'demo'): Promise<UpstreamClient> {
  const client = await sandbox.open({ settings: {} });
  await client.call('login', { username, password: PASSWORD });
  return client;
}

/** A private temp folder holding one JPEG, one MP4 and one MP3, as uploads would arrive. */
export function sampleFiles(): { dir: string; jpeg: string; mp4: string; mp3: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-test-'));
  const files = { jpeg: join(dir, 'photo.jpg'), mp4: join(dir, 'video.mp4'), mp3: join(dir, 'voice.mp3') };
  writeFileSync(files.jpeg, sandboxFileBytes('jpeg', 'upload'));
  writeFileSync(files.mp4, sandboxFileBytes('mp4', 'upload'));
  writeFileSync(files.mp3, sandboxFileBytes('mp3', 'upload'));
  return { dir, ...files };
}
