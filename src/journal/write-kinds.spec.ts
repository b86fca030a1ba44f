import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { INTENT_KINDS, IntentKind } from './write-intent';
import { JournaledWriteKind, WriteKinds } from './write-kinds';

/** A provider standing for the handler of one write kind, found as the app finds the real ones. */
function handlerOf(name: IntentKind) {
  @Injectable()
  @JournaledWriteKind()
  class Handler {
    readonly name = name;
  }
  Object.defineProperty(Handler, 'name', { value: `${name}-handler` });
  return Handler;
}

async function kindsWired(names: readonly IntentKind[], extra: (new () => unknown)[] = []): Promise<WriteKinds> {
  const module = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [WriteKinds, ...names.map(handlerOf), ...extra],
  }).compile();
  await module.init();
  return module.get(WriteKinds);
}

describe('WriteKinds (each feature registers its write kinds)', () => {
  it('finds every marked provider of the app by its kind name', async () => {
    const kinds = await kindsWired(INTENT_KINDS);
    expect(() => kinds.assertHandled()).not.toThrow();
    expect(kinds.of('invoice-item')?.name).toBe('invoice-item');
  });

  it('refuses to start, naming them, when intent kinds have no handler (their module is not wired)', async () => {
    const kinds = await kindsWired(INTENT_KINDS.filter((name) => name !== 'payment-method' && name !== 'guest-create'));
    expect(() => kinds.assertHandled()).toThrow(/no room handles the write kind\(s\) payment-method, guest-create/);
    expect(kinds.of('payment-method')).toBeUndefined();
  });

  it('ignores providers that are not marked, and refuses two handlers of one kind', async () => {
    @Injectable()
    class NotAKind {
      readonly name = 'payment-method';
    }
    const kinds = await kindsWired(['invoice-item'], [NotAKind]);
    expect(kinds.of('payment-method')).toBeUndefined();
    await expect(kindsWired(['invoice-item'], [handlerOf('invoice-item')])).rejects.toThrow(/two handlers of the write kind invoice-item/);
  });
});
