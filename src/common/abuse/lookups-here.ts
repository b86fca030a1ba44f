import { setBounded } from '../../primitives/bounded-map';
import { Wakeups } from '../wakeups';

/** Networks one replica keeps track of; the oldest is forgotten first. */
const MOST_NETWORKS = 10_000;
/** The most places a network's found reservations add to its own (see credit). */
const MOST_CREDIT = 50;

interface Network {
  waiting: Wakeups;
  /** Distinct reservations found since foundSince: opening one's own reservation again earns nothing. */
  found: Set<string>;
  foundSince: number;
}

/**
 * What this replica knows of a network's reservation lookups: the session opens waiting for one of
 * its lookups to end, and how many reservations it found lately, which lets more of its lookups be
 * on their way at once (guests, not guesses).
 */
export class LookupsHere {
  private readonly networks = new Map<string, Network>();

  constructor(
    private readonly now: () => number,
    private readonly creditWindowMs: number,
  ) {}

  /** Distinct reservations the network found within the window here, up to MOST_CREDIT. */
  credit(network: string): number {
    const known = this.networks.get(network);
    if (!known || this.now() - known.foundSince >= this.creditWindowMs) return 0;
    return Math.min(MOST_CREDIT, known.found.size);
  }

  found(network: string, reservationId: string): void {
    const known = this.of(network);
    if (this.now() - known.foundSince >= this.creditWindowMs) {
      known.found.clear();
      known.foundSince = this.now();
    }
    if (known.found.size < MOST_CREDIT) known.found.add(reservationId);
    this.ended(network);
  }

  /** A lookup of the network ended here: every session open waiting for a place tries again. */
  ended(network: string): void {
    this.networks.get(network)?.waiting.wakeAll();
  }

  /** Until a lookup of the network ends here, or `ms` pass (a place held on another replica). */
  nextEnd(network: string, ms: number): Promise<void> {
    return this.of(network).waiting.next(ms);
  }

  private of(network: string): Network {
    let known = this.networks.get(network);
    if (!known) {
      known = { waiting: new Wakeups(), found: new Set(), foundSince: this.now() };
      setBounded(this.networks, network, known, MOST_NETWORKS);
    }
    return known;
  }
}
