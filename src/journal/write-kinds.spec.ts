import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { IntentKind } from './write-intent';
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
    const kinds = await kindsWired(['invoice-item', 'payment-method']);
    expect(kinds.of('invoice-item')?.name).toBe('invoice-item');
    expect(kinds.of('payment-method')?.name).toBe('payment-method');
  });

  it('refuses to start, naming it, when a write kind the code declares is no provider of the app (its module is not wired)', async () => {
    const Unwired = handlerOf('unwired-write');
    const kinds = await kindsWired(['invoice-item']);
    expect(() => kinds.assertHandled()).toThrow(/no module provides the write kind\(s\) .*unwired-write-handler/);
    const wired = await kindsWired([], [Unwired]);
    expect(wired.of('unwired-write')).toBeDefined();
  });

  it('refuses a kind whose name could not be read back from an intent', async () => {
    await expect(kindsWired(['Payment Method'])).rejects.toThrow(/a write kind is a short lower-case name with dashes/);
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
