import { InjectionToken, Logger, LoggerService, Provider, Type } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { ConfigService } from '@nestjs/config';
import { Clock } from '../../src/primitives/clock';
import { AppConfig } from '../../src/config/app-config';
import { parseConfiguration } from '../../src/config/parse-configuration';
import { AtRestCiphers } from '../../src/redis/at-rest-cipher';
import { BatchStep, KeyValueStore, SetOptions } from '../../src/redis/key-value-store';
import { MemoryKeyValueStore } from '../../src/redis/memory-key-value-store';
import { ProductEventBus } from '../../src/common/events/product-event-bus';
import { GuestCreateWrite } from '../../src/booking/guest-create.write-kind';
import { InvoiceItemWrite } from '../../src/invoices/invoice-item.write-kind';
import { FollowUps } from '../../src/journal/follow-ups';
import { PaymentMethodWrite } from '../../src/payments/payment-method.write-kind';
import { CardsOnFile } from '../../src/sessions/cards-on-file';
import { NewSession, SessionState } from '../../src/sessions/session-state';
import { ReservationCreateWrite } from '../../src/booking/reservation-create.write-kind';
import { ReservationStatusWrite } from '../../src/booking/reservation-status.write-kind';
import { StoreGeneration } from '../../src/journal/store-generation';
import { ReservationLeases } from '../../src/journal/reservation-leases';
import { WriteKindsByName } from '../../src/journal/write-kind';
import { WriteKinds } from '../../src/journal/write-kinds';
import { WriteJournal } from '../../src/journal/write-journal';
import { GuestyClient } from '../../src/upstream/guesty-client';
import { MetricsService } from '../../src/metrics/metrics.service';
import { RedisKeys } from '../../src/redis/redis-keys';
import { StoreOutbox } from '../../src/redis/store-outbox';

/**
 * The seams of the unit tier: a clock whose time moves only when the code under test waits (no
 * real sleeps), the in-process store made to fail on demand, and the configuration as the service
 * would read it. Services are built with these and a fake of the one seam under test.
 */

export class SteppingClock extends Clock {
  time = 1_700_000_000_000;
  readonly slept: number[] = [];

  now(): number {
    return this.time;
  }

  override sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    this.time += ms;
    return Promise.resolve();
  }
}

/** The in-process store, failing every command while `down`, as Redis does when it is gone. */
export class FailingStore extends MemoryKeyValueStore {
  down = false;

  private guard<T>(call: () => Promise<T>): Promise<T> {
    return this.down ? Promise.reject(new Error('Redis is down')) : call();
  }

  override get(key: string) {
    return this.guard(() => super.get(key));
  }
  override set(key: string, value: string, options?: SetOptions) {
    return this.guard(() => super.set(key, value, options));
  }
  override batch(steps: BatchStep[]) {
    return this.guard(() => super.batch(steps));
  }
  override replaceIfVersion(key: string, expectedVersion: number | null, value: string, ttlMs: number) {
    return this.guard(() => super.replaceIfVersion(key, expectedVersion, value, ttlMs));
  }
  override indexAdd(key: string, member: string, score: number) {
    return this.guard(() => super.indexAdd(key, member, score));
  }
}

/** The configuration of this environment (sandbox defaults), as ConfigService serves it. */
export function unitConfig(env: Record<string, string> = {}): { config: AppConfig; service: ConfigService<AppConfig, true> } {
  const config = parseConfiguration({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
  return { config, service: new ConfigService<AppConfig, true>({ ...config }) };
}

/** Unit specs test outcomes, not log lines: Nest's console logger stays quiet. */
export function quietLogs(): void {
  Logger.overrideLogger(false);
}

/** The upstream client of a spec that sends nothing upstream: any call fails, naming it. */
const NO_UPSTREAM = new Proxy({} as GuestyClient, {
  get: (_target, name) => () => Promise.reject(new Error(`this spec has no upstream (${String(name)})`)),
});

const NO_EVENTS: Pick<ProductEventBus, 'publish'> = { publish: () => Promise.resolve() };

/**
 * The write journal's floor for a unit spec: the stepping clock, the failing store, the key
 * builder, the outbox, the configuration, the at-rest ciphers, the leases, the write kinds (on
 * `seams.guesty`, the fake upstream client, and `seams.events`) and the journal itself, all real;
 * `seams.kinds` stands in for the write kinds where a spec scripts its own.
 */
export function journalWorld(
  env: Record<string, string> = {},
  seams: { guesty?: GuestyClient; events?: Pick<ProductEventBus, 'publish'>; kinds?: Partial<WriteKindsByName> } = {},
) {
  const clock = new SteppingClock();
  const store = new FailingStore(() => clock.now());
  const keys = new RedisKeys('t:');
  const metrics = new MetricsService();
  const outbox = new StoreOutbox(metrics);
  const { service: config } = unitConfig({ RESERVATION_WRITE_SPACING_MS: '0', ...env });
  const leases = new ReservationLeases(store, keys, clock, config);
  const guesty = seams.guesty ?? NO_UPSTREAM;
  const cardsOnFile = new CardsOnFile(store, keys, outbox);
  const ciphers = new AtRestCiphers('unit-secret');
  const followUps = new FollowUps(store, keys, clock, metrics);
  const kinds = {
    'reservation-create': new ReservationCreateWrite(guesty, keys, store, clock, config),
    'guest-create': new GuestCreateWrite(guesty, ciphers),
    'reservation-status': new ReservationStatusWrite(guesty),
    'payment-method': new PaymentMethodWrite(guesty, cardsOnFile, (seams.events ?? NO_EVENTS) as ProductEventBus, clock, keys, followUps),
    'invoice-item': new InvoiceItemWrite(guesty),
  } satisfies WriteKindsByName;
  const generation = new StoreGeneration(store, keys, clock, metrics, config);
  // Every kind the app declares, as the app's start checks: a kind added to the app and left out here is named.
  WriteKinds.from(Object.values(kinds)).assertHandled();
  const registered = WriteKinds.from(Object.values({ ...kinds, ...seams.kinds }));
  const journal = new WriteJournal(store, keys, leases, outbox, clock, metrics, config, registered, generation);
  return { clock, store, keys, metrics, outbox, config, ciphers, leases, journal, kinds, cardsOnFile, followUps, generation };
}

/** Nest's testing module prints errors unless told otherwise; unit specs read outcomes, not logs. */
/** A session as the checkout opens one: res-1 on lst-1 for 300 USD, an hour to live, but for `fields`. */
export function newSessionOf(sessions: SessionState, clock: Clock, fields: Partial<NewSession> = {}): NewSession {
  return {
    id: sessions.newId(),
    reservationId: 'res-1',
    listingId: 'lst-1',
    guestId: 'guest-1',
    paymentProviderId: 'pp-1',
    amount: 300,
    currency: 'USD',
    createdAt: clock.now(),
    expiresAt: clock.now() + 3_600_000,
    ...fields,
  };
}

export const SILENT_LOGGER: LoggerService = { log: () => undefined, error: () => undefined, warn: () => undefined };

/** A fake standing in for the provider of `token` (a class, usually the seam under test). */
export type Fake = [token: InjectionToken, value: unknown];

/**
 * The `classes` built by Nest's injector as the app builds them: constructor arguments resolved by
 * type from the world's floor (clock, store, keys, configuration, journal…), the other classes, the
 * `fakes` and the `modules`, lifecycle hooks run as at start. A dependency nobody provides fails
 * here, named, as it would fail the app at start.
 */
export async function unitModule(
  world: ReturnType<typeof journalWorld>,
  classes: Type[],
  fakes: Fake[] = [],
  modules: Type[] = [],
): Promise<TestingModule> {
  const floor: Provider[] = [
    { provide: Clock, useValue: world.clock },
    { provide: KeyValueStore, useValue: world.store },
    { provide: RedisKeys, useValue: world.keys },
    { provide: MetricsService, useValue: world.metrics },
    { provide: StoreOutbox, useValue: world.outbox },
    { provide: ConfigService, useValue: world.config },
    { provide: AtRestCiphers, useValue: world.ciphers },
    { provide: ReservationLeases, useValue: world.leases },
    { provide: WriteJournal, useValue: world.journal },
    { provide: CardsOnFile, useValue: world.cardsOnFile },
    { provide: FollowUps, useValue: world.followUps },
    { provide: ReservationCreateWrite, useValue: world.kinds['reservation-create'] },
    { provide: GuestCreateWrite, useValue: world.kinds['guest-create'] },
    { provide: ReservationStatusWrite, useValue: world.kinds['reservation-status'] },
    { provide: PaymentMethodWrite, useValue: world.kinds['payment-method'] },
    { provide: InvoiceItemWrite, useValue: world.kinds['invoice-item'] },
  ];
  const module = await Test.createTestingModule({
    imports: modules,
    providers: [...floor, ...classes, ...fakes.map(([provide, useValue]) => ({ provide, useValue }))],
  })
    .setLogger(SILENT_LOGGER)
    .compile();
  await module.init();
  // The world's FollowUps is no provider Nest discovers from: it is handed the services' handlers.
  for (const type of classes) world.followUps.handlersOf(module.get<object>(type));
  return module;
}
