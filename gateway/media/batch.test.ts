import { expect, test } from 'vitest';
import { Batcher } from './batch.ts';

test('what is posted in one turn goes as one batch, in order, with every transfer; the next turn is another batch', async () => {
  const sent: Array<{ msgs: number[]; transfer: number }> = [];
  const b = new Batcher<number>((msgs, transfer) => sent.push({ msgs, transfer: transfer.length }));
  b.post(1);
  b.post(2, [new ArrayBuffer(8)]);
  b.post(3, [new ArrayBuffer(8), new ArrayBuffer(8)]);
  expect(sent).toEqual([]); // nothing leaves before the turn ends
  await new Promise((r) => setImmediate(r));
  b.post(4);
  await new Promise((r) => setImmediate(r));
  expect(sent).toEqual([{ msgs: [1, 2, 3], transfer: 3 }, { msgs: [4], transfer: 0 }]);
});
