// The statistics the hot-path bench reads its pairs with (bench/server-timing.ts).
import t from 'tap';
import { median, medianInterval, trimmedMean } from '../../bench/server-timing.js';

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

t.test("medianInterval: the bootstrap's 95% interval of the median, the same for the same list", async (t) => {
  const spreadOf = (values: readonly number[]) => {
    const [low, high] = medianInterval(values);
    return high - low;
  };
  // A noisy list: a drift-free spread of ±10 around 0.
  const noisy = (n: number) => Array.from({ length: n }, (_, i) => ((i * 7919) % 21) - 10);
  const [low, high] = medianInterval(noisy(101));
  t.ok(low <= median(noisy(101)) && median(noisy(101)) <= high, `the median ${median(noisy(101))} lies in [${low}, ${high}]`);
  t.ok(low < high, 'a spread list gives an interval, not a point');
  t.same(medianInterval(noisy(101)), [low, high], 'the same list, the same interval (seeded)');
  t.ok(spreadOf(noisy(400)) < spreadOf(noisy(25)), 'more values, a narrower interval');
  t.same(medianInterval([3, 3, 3, 3]), [3, 3], 'no spread: the value itself');
  const empty = medianInterval([]);
  t.ok(Number.isNaN(empty[0]) && Number.isNaN(empty[1]), 'none: NaN');
});
