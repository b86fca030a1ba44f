import { SlotRequest } from '../../redis/key-value-store';
import { MemoryKeyValueStore } from '../../redis/memory-key-value-store';
import { AnonymousRecords, RECORDS_WINDOW_MS } from './anonymous-records';

describe('AnonymousRecords (the records anonymous traffic makes in Redis, within a ceiling)', () => {
  let now = 0;
  let shared: MemoryKeyValueStore;
  let reports: string[];
  const replica = (ceiling: number) =>
    new AnonymousRecords(
      shared,
      'anonymous-records',
      ceiling,
      {
        made: (where, count) => reports.push(`${where} ${count}`),
        reached: (endsInMs) => reports.push(`reached for ${endsInMs}`),
      },
      () => now,
    );
  let members = 0;
  const slot = (network: string, limit = 3): SlotRequest => ({
    windowKeys: [`{limit:${network}}:w`],
    pauseKey: `{limit:${network}}:pause`,
    windows: [{ limit, windowMs: 60_000, reserve: 0 }],
    member: `m${(members += 1)}`,
  });
  const take = (records: AnonymousRecords, network: string) =>
    records.take(
      [slot(network)],
      (by, [request]) => by.takeSlot(request),
      (answer) => [answer],
    );
  const where = async (records: AnonymousRecords, network: string) => {
    const { sent, by } = await take(records, network);
    return `${sent.granted ? 'granted' : 'denied'} ${by === shared ? 'store' : 'here'}`;
  };

  beforeEach(() => {
    now = 0;
    shared = new MemoryKeyValueStore(() => now);
    reports = [];
  });

  it('makes records in the store up to the ceiling, then counts fresh networks here, where their limits hold', async () => {
    const records = replica(2);
    expect(await where(records, 'a')).toBe('granted store');
    expect(await where(records, 'b')).toBe('granted store');
    expect(await where(records, 'c')).toBe('granted here');
    expect(records.reached).toBe(true);
    // A network with a record in the store goes on there; one counted here stays here.
    expect(await where(records, 'a')).toBe('granted store');
    expect(await where(records, 'c')).toBe('granted here');
    expect(await where(records, 'c')).toBe('granted here');
    expect(await where(records, 'c')).toBe('denied here');
    expect(reports).toEqual(['store 1', 'store 1', `reached for ${RECORDS_WINDOW_MS}`, 'here 1']);
    await expect(shared.get('anonymous-records')).resolves.toBe('2');
  });

  it('spends nothing of the ceiling on a take from a record that exists', async () => {
    const records = replica(1);
    for (let i = 0; i < 3; i += 1) expect(await where(records, 'a')).toBe('granted store');
    expect(await where(records, 'b')).toBe('granted here');
    expect(reports.filter((report) => report.startsWith('store'))).toEqual(['store 1']);
  });

  it('shares the ceiling between replicas: together they make no more records than it allows', async () => {
    const replicas = [replica(5), replica(5)];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => where(replicas[i % 2], `n${i}`)));
    expect(answers.filter((answer) => answer === 'granted store')).toHaveLength(5);
    expect(answers.filter((answer) => answer === 'granted here')).toHaveLength(15);
  });

  it('takes its right to make records from the shared count in blocks of a hundredth of the ceiling', async () => {
    const records = replica(1_000);
    for (let i = 0; i < 15; i += 1) await take(records, `n${i}`);
    // Two blocks of 10 for 15 records: one round trip to the count for every ten made.
    await expect(shared.get('anonymous-records')).resolves.toBe('20');
  });

  it('makes records in the store again once the hour of the ceiling has ended', async () => {
    const records = replica(1);
    await take(records, 'a');
    expect(await where(records, 'b')).toBe('granted here');
    now += RECORDS_WINDOW_MS;
    expect(records.reached).toBe(false);
    expect(await where(records, 'c')).toBe('granted store');
  });

  it('makes nothing and counts nothing where the store fails', async () => {
    const failing = new MemoryKeyValueStore(() => now);
    jest.spyOn(failing, 'takeSlot').mockRejectedValue(new Error('Redis down'));
    const records = new AnonymousRecords(
      failing,
      'anonymous-records',
      5,
      {
        made: (where, count) => reports.push(`${where} ${count}`),
        reached: () => reports.push('reached'),
      },
      () => now,
    );
    await expect(take(records, 'a')).rejects.toThrow('Redis down');
    expect(reports).toEqual([]);
  });
});
