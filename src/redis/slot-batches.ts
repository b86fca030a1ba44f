import { KeyValueStore, SlotAnswer, SlotRequest } from './key-value-store';

interface Waiting {
  request: SlotRequest;
  resolve: (answer: SlotAnswer) => void;
  reject: (error: unknown) => void;
}

/** The most slots one command takes: a burst larger than this goes out in several commands, one after another. */
const MOST_PER_COMMAND = 200;

/**
 * Slots taken one at a time, each decided as takeSlot would decide it alone, but sent together: a
 * take made while none is on its way goes out at once; those made meanwhile wait for it and go out
 * as one takeEachSlot. A burst of reads then costs the replica one Redis command, not one each.
 */
export class SlotBatches {
  private waiting: Waiting[] = [];
  private sending = false;

  constructor(private readonly store: KeyValueStore) {}

  take(request: SlotRequest): Promise<SlotAnswer> {
    return new Promise<SlotAnswer>((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      if (!this.sending) this.send();
    });
  }

  private send(): void {
    const batch = this.waiting.splice(0, MOST_PER_COMMAND);
    this.sending = batch.length > 0;
    if (!this.sending) return;
    void this.store
      .takeEachSlot(batch.map((waiting) => waiting.request))
      .then(
        (answers) => batch.forEach((waiting, index) => waiting.resolve(answers[index])),
        (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
      )
      .finally(() => this.send());
  }
}
