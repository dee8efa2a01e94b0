// The statistics the hot-path bench reads its pairs with (bench/server-timing.ts).
import t from 'tap';
import { median, trimmedMean } from '../../bench/server-timing.js';

t.test('median: the middle value, the mean of the two middle ones for an even count', async (t) => {
  const table: [number[], number][] = [
    [[3], 3],
    [[5, 1, 3], 3],
    [[4, 1, 3, 2], 2.5],
  ];
  for (const [values, expected] of table) t.equal(median(values), expected, JSON.stringify(values));
  t.ok(Number.isNaN(median([])), 'none: NaN');
});

t.test('trimmedMean: the mean without a share of values at each end', async (t) => {
  // 2 to 99 and a stall at each end: the 1% cut takes one value off each end, the stalls.
  const values = [...Array.from({ length: 98 }, (_, i) => i + 2), 5_000, -5_000];
  t.equal(trimmedMean(values, 0.01), 50.5);
  t.equal(trimmedMean([1, 2, 3, 100], 0), 26.5, 'no share: the plain mean');
  t.equal(trimmedMean([1, 2, 3, 100], 0.25), 2.5, 'a quarter at each end');
  // A cost one value in 64 carries moves the trimmed mean and not the median: the reason the bench reports both.
  const rare = Array.from({ length: 6_400 }, (_, i) => (i % 64 === 0 ? 65 : 1));
  t.equal(median(rare), 1);
  t.equal(trimmedMean(rare, 0), 2);
  // The 1% cut takes 64 of the 100 costly values off the top (and 64 plain ones off the bottom): 36 stay.
  t.equal(trimmedMean(rare, 0.01), (36 * 65 + 6_236) / 6_272);
  t.ok(Number.isNaN(trimmedMean([], 0.01)), 'none: NaN');
});
