import { MemoryKeyValueStore } from '../redis/memory-key-value-store';
import { journalWorld, unitModule } from '../../test/utils/unit-kit';
import { KeyValueStore } from '../redis/key-value-store';
import { ThreeDsStates } from './three-ds-states';

/** A store that lets a test step in right after each of its commands answers (another replica's turn). */
class SteppingStore extends MemoryKeyValueStore {
  between: (() => Promise<void>) | null = null;

  private async turn<T>(answer: Promise<T>): Promise<T> {
    const value = await answer;
    const step = this.between;
    this.between = null;
    if (step) await step();
    return value;
  }

  override take(key: string) {
    return this.turn(super.take(key));
  }
  override get(key: string) {
    return this.turn(super.get(key));
  }
  override set(key: string, value: string, options?: { ttlMs?: number; ifAbsent?: boolean }) {
    return this.turn(super.set(key, value, options));
  }
}

describe('ThreeDsStates', () => {
  it('a second arrival of a return while the first consumes its state is told a duplicate at every moment, never a state that opens nothing', async () => {
    const store = new SteppingStore();
    const states = (await unitModule(journalWorld(), [ThreeDsStates], [[KeyValueStore, store]])).get(ThreeDsStates);
    const minted = states.mint();
    await states.keep({ sessionId: 'session-1', attemptId: 'attempt-1' }, minted, 60_000);

    // The first arrival consumes the state; the second looks at it after each of the first's commands.
    const seen: unknown[] = [];
    const look = async () => {
      seen.push(await states.peek('session-1', 'success', minted.success));
    };
    const lookAfterEveryCommand = (): void => {
      store.between = async () => {
        await look();
        if (seen.length < 4) lookAfterEveryCommand();
      };
    };
    lookAfterEveryCommand();
    await expect(states.consume('session-1', 'success', minted.success)).resolves.toEqual({ attemptId: 'attempt-1', duplicate: false });
    store.between = null;
    await look();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const state of seen) expect(state).toEqual({ attemptId: 'attempt-1', duplicate: expect.any(Boolean) });
    expect(seen[seen.length - 1]).toEqual({ attemptId: 'attempt-1', duplicate: true });
  });
});
