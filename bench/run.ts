// `npm run bench`: prints figures, asserts nothing. Boot time, the hot path (bench/hotpath.ts, the
// method bench/hotpath.md describes), what its request allocates (bench/allocations.ts) and memory
// while transferring (BENCH_SKIP_TRANSFER=1 skips it).
import { allocationFigures } from './allocations.js';
import { benchBoot } from './boot.js';
import { benchHotPath, formatHotPath } from './hotpath.js';
import { benchTransfer, formatFigures } from './transfer.js';

process.stdout.write(`boot: ${JSON.stringify(await benchBoot())}\n`);
process.stdout.write(`hot path:\n${formatHotPath(await benchHotPath())}\n`);
process.stdout.write(`the hot path's request, counted exactly:\n${allocationFigures()}\n`);
if (process.env.BENCH_SKIP_TRANSFER !== '1') process.stdout.write(`transfer (200 MB each):\n${formatFigures(await benchTransfer())}\n`);
