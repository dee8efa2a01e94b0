// The adapters' rows of the settings table: what the composition root's adapters read from
// SOCIALGATE_* variables, each checked at start by the adapter's own parser. The feature modules
// declare theirs beside their code (plugins/*/module.ts); engine/config.ts holds the core flags.
import type { FeatureModule, SettingRow } from '../engine/types.js';
import { settingRow } from '../engine/modules.js';
import { storeTimeoutMs } from '../adapters/store/index.js';
import { leaseSettings } from '../adapters/store/lease.js';
import { lockMsOf } from '../adapters/work/index.js';
import { TRANSFER_DEFAULTS, transferSettingsFromEnv } from '../adapters/transfer/settings.js';
import { sandboxOptionsFromEnv } from '../adapters/upstream/sandbox/index.js';
import { aiograpiOptionsFromEnv } from '../adapters/upstream/aiograpi/options.js';

const by = settingRow;
const text = settingRow();

const store = by(storeTimeoutMs);
const lease = by(leaseSettings);
const transfer = by(transferSettingsFromEnv);
const sandbox = by(sandboxOptionsFromEnv);
const sidecar = by(aiograpiOptionsFromEnv);
const mb = (key: keyof typeof TRANSFER_DEFAULTS, what: string): SettingRow => transfer(key, String(TRANSFER_DEFAULTS[key]), what);

export const ADAPTER_MODULES: readonly FeatureModule[] = [
  {
    name: 'store',
    settings: [
      text('SESSION_KEY', 'key file', '32-byte session encryption key (hex or base64); default: `<data-dir>/session.key`, created with mode 0600'),
      text('SESSION_KEY_FILE', 'none', 'a file holding that key (a mounted secret); not together with `SOCIALGATE_SESSION_KEY`'),
      text('SESSION_IDLE_DAYS', '90', 'a session unused this long is deleted'),
      store('STORE_TIMEOUT_MS', '500', 'Redis and PostgreSQL: one store call longer than this fails as 503 `StoreUnavailable` with `Retry-After`'),
      lease('LEASE_MS', '15000', "Redis and PostgreSQL: a dead holder's lease on a session ends after this (PostgreSQL: when its connection drops)"),
      lease('LEASE_WAIT_MS', '30000', 'Redis and PostgreSQL: a call that waits longer for its session answers 503 `SessionBusy` with `Retry-After`'),
    ],
  },
  {
    name: 'work',
    settings: [
      by(lockMsOf)('WORK_LOCK_MS', '30000', "Redis / PostgreSQL: how long a dead instance's running work stays locked before another instance takes it over"),
    ],
  },
  {
    name: 'transfer',
    settings: [
      mb('UPLOAD_MAX_IMAGE_MB', 'largest image upload, in MB (413 naming the field)'),
      mb('UPLOAD_MAX_VIDEO_MB', 'largest video upload, in MB'),
      mb('UPLOAD_MAX_AUDIO_MB', 'largest audio upload, in MB'),
      mb('UPLOAD_MAX_ANY_MB', 'largest upload of any other kind, in MB'),
      mb('FETCH_TIMEOUT_MS', 'by-URL uploads: read timeout'),
      mb('FETCH_CONNECT_TIMEOUT_MS', 'by-URL uploads: connect timeout'),
      mb('FETCH_MAX_MB', 'by-URL uploads: size cap'),
      mb('FETCH_MAX_REDIRECTS', 'by-URL uploads: redirects followed (each re-checked)'),
      transfer('FETCH_ALLOW', 'none', 'comma-separated addresses, ranges or hosts the address guard lets through'),
      text('DOWNLOAD_HOSTS', "the platform's media hosts", 'hosts the by-URL download routes may name; the URL must also resolve to public addresses'),
    ],
  },
  {
    name: 'sandbox',
    settings: [
      sandbox('SANDBOX_LATENCY_MS', '0', 'latency added to every platform call, in milliseconds'),
      sandbox('SANDBOX_THROTTLE_RATE', '0', 'share of platform calls (0 to 1) that raise `PleaseWaitFewMinutes` (HTTP 429)'),
      sandbox('SANDBOX_THROTTLE_SECONDS', '3', "the wait an injected throttle asks for (the platform's hint)"),
      sandbox('SANDBOX_ERROR_RATE', '0', 'share of platform calls (0 to 1) that raise `ClientConnectionError` (HTTP 502)'),
      sandbox('SANDBOX_LIVE_SECONDS', '60', "the live sandbox's clock; `0` for a still world"),
      sandbox('SANDBOX_VERSION', '1.0.9', 'the aiograpi version the sandbox plays: `1.0.9` or `1.12.13`'),
      sandbox('SANDBOX_LOST_ANSWER_RATE', '0', 'share of writes (0 to 1) applied and then failed as a lost connection'),
      sandbox('SANDBOX_LIMIT_SCALE', '1', "multiplies the sandbox's hidden hourly limits per action class; `0` none"),
      sandbox('SANDBOX_BLOCK_SECONDS', '900', 'how long the sandbox blocks a class whose limit was passed'),
    ],
  },
  {
    name: 'sidecar',
    settings: [
      sidecar('PYTHON', 'python3', 'the interpreter that has aiograpi installed'),
      sidecar('SIDECAR_PROCESSES', '1', 'number of sidecar processes (1 to 64)'),
      sidecar('SIDECAR_TIMEOUT_MS', '60000', 'time limit of one upstream call; past it the request answers 504'),
      sidecar('PYTHONPATH', '', 'extra module folders for the sidecar, separated by `:`'),
      sidecar('SIDECAR_LOG_LEVEL', 'WARNING', 'Python log level of the sidecar'),
    ],
  },
];
