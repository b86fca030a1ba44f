import { journalWorld, quietLogs } from '../../test/utils/unit-kit';
import { DomainError } from '../common/errors/domain-error';
import { StoreGeneration } from './store-generation';

const SETTLE_MS = 120_000;

beforeAll(quietLogs);

/** One replica's view of the store's generation, as its writes' prepare steps read it. */
async function admitNow(world: ReturnType<typeof journalWorld>, replica: StoreGeneration = world.generation): Promise<unknown> {
  const found = await world.store.get(world.keys.journal().generation);
  return replica.admit(found).then(
    () => 'open',
    (error: unknown) => error,
  );
}

/** Two replicas that knew the same store, which then lost its journal. */
async function twoReplicasAfterALoss(): Promise<{ world: ReturnType<typeof journalWorld>; replicas: StoreGeneration[] }> {
  const world = journalWorld({ WRITE_HOLD_ON_NEW_STORE: 'false' });
  const replicas = [0, 1].map(() => new StoreGeneration(world.store, world.keys, world.clock, world.metrics, world.config));
  for (const replica of replicas) await replica.onModuleInit();
  await world.store.delete(world.keys.journal().generation);
  return { world, replicas };
}

describe('StoreGeneration: writes wait for the settle horizon after Redis lost the journal', () => {
  it('a new store with WRITE_HOLD_ON_NEW_STORE=false (the sandbox, the tests) takes writes at once', async () => {
    const world = journalWorld({ WRITE_HOLD_ON_NEW_STORE: 'false' });
    await world.generation.onModuleInit();
    await expect(admitNow(world)).resolves.toBe('open');
  });

  it('a new store in production holds writes for the horizon since it was first seen, with Retry-After', async () => {
    const world = journalWorld({ WRITE_HOLD_ON_NEW_STORE: 'true' });
    await world.generation.onModuleInit();
    const held = (await admitNow(world)) as DomainError;
    expect(held).toBeInstanceOf(DomainError);
    expect(held.code).toBe('step_in_progress');
    expect(held.retryAfterSeconds).toBe(SETTLE_MS / 1000);
    world.clock.time += SETTLE_MS;
    await expect(admitNow(world)).resolves.toBe('open');
    expect(await world.metrics.registry.getSingleMetricAsString('journal_store_losses_total')).toMatch(/ 1$/m);
  });

  it('a store emptied under a running replica holds writes even when it may take a new store at once', async () => {
    const world = journalWorld({ WRITE_HOLD_ON_NEW_STORE: 'false' });
    await world.generation.onModuleInit();
    await expect(admitNow(world)).resolves.toBe('open');
    await world.store.delete(world.keys.journal().generation);
    await expect(admitNow(world)).resolves.toMatchObject({ code: 'step_in_progress' });
    world.clock.time += SETTLE_MS - 1;
    await expect(admitNow(world)).resolves.toMatchObject({ code: 'step_in_progress' });
    world.clock.time += 1;
    await expect(admitNow(world)).resolves.toBe('open');
  });

  it('a generation another replica started on the emptied store is raised to the horizon this replica knows', async () => {
    const world = journalWorld({ WRITE_HOLD_ON_NEW_STORE: 'false' });
    await world.generation.onModuleInit();
    // A replica started after the loss found nothing and, as a new store's, opened writes at once.
    await world.store.set(world.keys.journal().generation, JSON.stringify({ id: 'started-after-the-loss', writesFrom: 0 }));
    await expect(admitNow(world)).resolves.toMatchObject({ code: 'step_in_progress' });
    const raised = JSON.parse((await world.store.get(world.keys.journal().generation))!) as { id: string; writesFrom: number };
    expect(raised).toEqual({ id: 'started-after-the-loss', writesFrom: world.clock.now() + SETTLE_MS });
  });

  it('holds once per loss: a replica that comes to write after the horizon moves it for nobody', async () => {
    const {
      world,
      replicas: [first, stale],
    } = await twoReplicasAfterALoss();
    // The first replica to write finds the loss and holds writes for one horizon from then.
    await expect(admitNow(world, first)).resolves.toMatchObject({ code: 'step_in_progress', retryAfterSeconds: SETTLE_MS / 1000 });
    world.clock.time += SETTLE_MS;
    await expect(admitNow(world, first)).resolves.toBe('open');
    // Days later, a replica that wrote nothing since finds the new generation: nothing of it can still land.
    world.clock.time += 3 * 86_400_000;
    await expect(admitNow(world, stale)).resolves.toBe('open');
    await expect(admitNow(world, first)).resolves.toBe('open');
  });

  it("a replica finding the loss within the first finder's horizon holds to that same horizon, not its own", async () => {
    const {
      world,
      replicas: [first, second],
    } = await twoReplicasAfterALoss();
    await admitNow(world, first);
    world.clock.time += SETTLE_MS / 2;
    await expect(admitNow(world, second)).resolves.toMatchObject({ code: 'step_in_progress', retryAfterSeconds: SETTLE_MS / 2000 });
    world.clock.time += SETTLE_MS / 2;
    await expect(admitNow(world, second)).resolves.toBe('open');
  });
});
