import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { IntentKind } from './write-intent';
import { AnyWriteKind } from './write-kind';

const WRITE_KIND = Symbol('write kind');
const KIND_NAME = /^[a-z][a-z-]{0,39}$/;
/** Every class marked as a write kind in the code this process loaded: each must be a provider of the app. */
const declared = new Set<abstract new (...args: never[]) => unknown>();

/**
 * Marks a provider as the handler of its write kind: the feature that owns a write declares it beside
 * its code, and the journal finds it at start (WriteKinds), as product events find their consumers.
 */
export const JournaledWriteKind = (): ClassDecorator => (target) => {
  Reflect.defineMetadata(WRITE_KIND, true, target);
  declared.add(target as unknown as abstract new (...args: never[]) => unknown);
};

/**
 * The write kinds wired into the app, by name. The journal and its sweep settle an open intent by its
 * kind's name, so a kind without its handler is refused at start (assertHandled), never met later.
 */
@Injectable()
export class WriteKinds implements OnModuleInit {
  private readonly byName = new Map<IntentKind, AnyWriteKind>();

  constructor(private readonly discovery?: DiscoveryService) {}

  /** A world without Nest (a unit spec) registers its kinds itself. */
  static from(kinds: readonly AnyWriteKind[]): WriteKinds {
    const registry = new WriteKinds();
    for (const kind of kinds) registry.register(kind);
    return registry;
  }

  onModuleInit(): void {
    for (const { instance, metatype } of this.discovery?.getProviders() ?? []) {
      if (instance && metatype && Reflect.getMetadata(WRITE_KIND, metatype)) this.register(instance as AnyWriteKind);
    }
  }

  register(kind: AnyWriteKind): void {
    if (!KIND_NAME.test(kind.name))
      throw new Error(`a write kind is a short lower-case name with dashes, not ${JSON.stringify(kind.name)} (${kind.constructor.name})`);
    const wired = this.byName.get(kind.name);
    if (wired && wired !== kind)
      throw new Error(`two handlers of the write kind ${kind.name}: ${wired.constructor.name}, ${kind.constructor.name}`);
    this.byName.set(kind.name, kind);
  }

  of(name: IntentKind): AnyWriteKind | undefined {
    return this.byName.get(name);
  }

  /**
   * Throws, naming them, when a write kind declared in the code this process loaded is no provider of
   * the app (its feature's module is not wired): the intents it writes could never be settled here.
   */
  assertHandled(): void {
    const wired = new Set<unknown>([...this.byName.values()].map((kind) => kind.constructor));
    const missing = [...declared].filter((kind) => !wired.has(kind)).map((kind) => kind.name);
    if (missing.length > 0)
      throw new Error(`no module provides the write kind(s) ${missing.join(', ')}: their intents could never be settled`);
  }
}
