import { SlotAnswer } from '../../redis/key-value-store';
import { setBounded } from '../../primitives/bounded-map';

/** The most reads of one network a replica takes at once. */
const LARGEST_BLOCK = 64;
/** Networks whose reads one replica keeps track of; the oldest is forgotten first. */
const MOST_NETWORKS = 10_000;

/** What a take of a block answered, and how to give back its slots from the `from`-th (1-based) on. */
export interface BlockTaken {
  answer: SlotAnswer;
  giveBack(from: number): Promise<void>;
}

/** Takes `slots` of a network's reads from the shared limit at once, counted from `countsFromMs` after now. */
export type TakeBlock = (network: string, slots: number, countsFromMs: number) => Promise<BlockTaken>;

interface Block {
  slots: number;
  used: number;
  /** This replica hands the block's reads out until then; the store counts them from then on. */
  until: number;
  giveBack(from: number): Promise<void>;
}

interface Hand {
  blocks: Block[];
  /** A take on its way for this network: spends that find nothing in hand wait for it. */
  taking?: Promise<void>;
  handedOut: number;
  handedOutAtTake: number;
  lastTakeAt: number;
  /** A quarter of the reads the limit had left at the last take: other replicas may need the rest. */
  fair: number;
  /** The limit's last refusal, answered again without a take until then (at most a holding time). */
  refused?: { answer: SlotAnswer; at: number; until: number };
}

const GRANTED: SlotAnswer = { granted: true, retryAfterMs: 0 };

/**
 * A network's reads taken from its shared limit in blocks sized to its pace and handed out here:
 * one store round trip per block, not per read. Never past the limit: a block is taken whole or
 * not at all, counted from the end of its holding time; near the limit, single reads.
 */
export class ReadsInHand {
  private readonly hands = new Map<string, Hand>();

  constructor(
    private readonly take: TakeBlock,
    private readonly now: () => number,
    private readonly heldMs: number,
  ) {}

  /** One read of `network`: granted from a block in hand or a block taken now, else the limit's denial. */
  async spend(network: string): Promise<SlotAnswer> {
    for (;;) {
      const decided = this.spendInHand(network);
      if (decided) return decided;
      const hand = this.handOf(network);
      if (!hand.taking) return this.takeNow(network, hand);
      // A take that failed leaves nothing in hand: the next turn takes for itself and meets the failure.
      await hand.taking.catch(() => undefined);
    }
  }

  /**
   * spend() when this replica can answer alone, without a promise: a read from a block in hand, or
   * the limit's refusal it still holds. Undefined when the store must be asked.
   */
  spendInHand(network: string): SlotAnswer | undefined {
    const hand = this.handOf(network);
    this.dropSpent(hand);
    const block = hand.blocks[0];
    if (block) {
      block.used += 1;
      hand.handedOut += 1;
      this.takeAhead(network, hand);
      return GRANTED;
    }
    const refused = hand.refused;
    const now = this.now();
    if (refused && now < refused.until)
      return { granted: false, retryAfterMs: Math.max(1, refused.answer.retryAfterMs - (now - refused.at)) };
    return undefined;
  }

  private handOf(network: string): Hand {
    let hand = this.hands.get(network);
    if (!hand) {
      hand = { blocks: [], handedOut: 0, handedOutAtTake: 0, lastTakeAt: 0, fair: LARGEST_BLOCK };
      setBounded(this.hands, network, hand, MOST_NETWORKS);
    }
    return hand;
  }

  private async takeNow(network: string, hand: Hand): Promise<SlotAnswer> {
    let answer!: SlotAnswer;
    await this.onItsWay(
      hand,
      (async () => {
        const sentAt = this.now();
        const size = this.nextSize(hand, sentAt);
        let taken = await this.take(network, size, size > 1 ? this.heldMs : 0);
        // Near the limit a block may not fit where one read still does.
        if (!taken.answer.granted && size > 1) {
          hand.fair = 1;
          taken = await this.take(network, 1, 0);
        } else if (taken.answer.granted && size > 1) this.keep(hand, size, 1, taken, sentAt);
        if (taken.answer.granted) this.judgeFair(hand, taken.answer);
        answer = taken.answer;
      })(),
    );
    if (!answer.granted) {
      // Reads arriving meanwhile are refused with it: a flood near the limit costs no store round trip each.
      const at = this.now();
      hand.refused = { answer, at, until: at + Math.min(answer.retryAfterMs, this.heldMs) };
      return answer;
    }
    hand.refused = undefined;
    hand.handedOut += 1;
    return GRANTED;
  }

  /** The next block is taken while half of the last one is still in hand, so a busy network never waits. */
  private takeAhead(network: string, hand: Hand): void {
    const block = hand.blocks[0];
    if (hand.taking || hand.blocks.length > 1 || block.used * 2 < block.slots) return;
    const sentAt = this.now();
    const size = this.nextSize(hand, sentAt);
    if (size === 1) return;
    void this.onItsWay(
      hand,
      this.take(network, size, this.heldMs).then((taken) => {
        if (!taken.answer.granted) return;
        this.keep(hand, size, 0, taken, sentAt);
        this.judgeFair(hand, taken.answer);
      }),
    ).catch(() => undefined);
  }

  /** `take` as the network's take on its way: spends finding nothing in hand wait for it, which ends it either way. */
  private onItsWay(hand: Hand, take: Promise<void>): Promise<void> {
    const taking = take.finally(() => {
      if (hand.taking === taking) hand.taking = undefined;
    });
    hand.taking = taking;
    return taking;
  }

  /** Half a holding time's worth of reads at the rate since the last take, within the network's fair share. */
  private nextSize(hand: Hand, now: number): number {
    const rate = (hand.handedOut - hand.handedOutAtTake) / Math.max(1, now - hand.lastTakeAt);
    hand.lastTakeAt = now;
    hand.handedOutAtTake = hand.handedOut;
    return Math.max(1, Math.min(LARGEST_BLOCK, hand.fair, Math.ceil((rate * this.heldMs) / 2)));
  }

  private judgeFair(hand: Hand, answer: SlotAnswer): void {
    hand.fair = Math.max(1, Math.floor((answer.left ?? 0) / 4));
  }

  /** Held from when the take was sent: the store counts the block from no earlier than that plus the holding time. */
  private keep(hand: Hand, slots: number, used: number, taken: BlockTaken, sentAt: number): void {
    const block: Block = { slots, used, until: sentAt + this.heldMs, giveBack: taken.giveBack };
    hand.blocks.push(block);
    setTimeout(() => this.expire(hand, block), Math.max(0, block.until - this.now())).unref();
  }

  private dropSpent(hand: Hand): void {
    const now = this.now();
    // Backwards, as blocks leave: no copy of the list on every read.
    for (let at = hand.blocks.length - 1; at >= 0; at -= 1) {
      const block = hand.blocks[at];
      if (block.used >= block.slots) hand.blocks.splice(at, 1);
      else if (now >= block.until) this.expire(hand, block);
    }
  }

  /** The block's holding time is over: its unused reads go back to the network's limit. */
  private expire(hand: Hand, block: Block): void {
    const at = hand.blocks.indexOf(block);
    if (at < 0) return;
    hand.blocks.splice(at, 1);
    if (block.used < block.slots) void block.giveBack(block.used + 1).catch(() => undefined);
  }
}
