/**
 * The campaign's only source of chance: a seeded PRNG (mulberry32), split into independent streams
 * so that one operation's choices do not depend on how the others interleave. A seed replays its schedule.
 */
export class Random {
  private state: number;

  constructor(seed: number, stream = 0) {
    this.state = mix(mix(seed >>> 0) ^ mix(stream + 0x51ed27));
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** A whole number in [0, count). */
  int(count: number): number {
    return Math.floor(this.next() * count);
  }

  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** One of the entries, each as likely as its weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let left = this.next() * total;
    for (const [value, weight] of entries) {
      left -= weight;
      if (left < 0) return value;
    }
    return entries[entries.length - 1][0];
  }
}

/** splitmix32's finaliser: spreads a seed's bits so that neighbouring seeds give unrelated streams. */
function mix(value: number): number {
  let z = (value + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** A fresh seed for a campaign that was given none (printed, so the run can be replayed). */
export function newSeed(): number {
  return Math.floor(Math.random() * 2_147_483_647) + 1;
}
