import { Metric, Registry } from 'prom-client';

/**
 * A counter and a histogram for figures recorded on every request. A label set resolves once to a
 * tally the caller may keep, so recording is a few additions, where prom-client's own metrics hash
 * the labels on every call (more CPU than a hot read's answer). Exposed through the same registry,
 * which asks `get()` at each scrape.
 */
abstract class Tallied<Name extends string, T> {
  private readonly tallies = new Map<string, { labels: Record<Name, string>; tally: T }>();
  readonly aggregator = 'sum';

  protected constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly Name[],
    registry: Registry,
  ) {
    // prom-client's registry takes any object with a name and get(), as its own metrics are.
    registry.registerMetric(this as unknown as Metric);
  }

  /** The running figures of one label set, to keep and record into. */
  tally(labels: Record<Name, string>): T {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let entry = this.tallies.get(key);
    if (entry === undefined) this.tallies.set(key, (entry = { labels: { ...labels }, tally: this.fresh() }));
    return entry.tally;
  }

  reset(): void {
    this.tallies.clear();
  }

  /** The label sets recorded into so far (one resolved but not yet recorded into is not shown, as with prom-client). */
  protected entries(): { labels: Record<Name, string>; tally: T }[] {
    return [...this.tallies.values()].filter(({ tally }) => this.recorded(tally));
  }

  protected abstract recorded(tally: T): boolean;

  protected abstract fresh(): T;
}

export interface CounterTally {
  inc(by?: number): void;
}

export class TalliedCounter<Name extends string> extends Tallied<Name, CounterTally & { value: number }> {
  readonly type = 'counter';

  constructor(options: { name: string; help: string; labelNames: readonly Name[]; registry: Registry }) {
    super(options.name, options.help, options.labelNames, options.registry);
  }

  inc(labels: Record<Name, string>, by = 1): void {
    this.tally(labels).inc(by);
  }

  get(): Promise<{
    name: string;
    help: string;
    type: 'counter';
    aggregator: 'sum';
    values: { labels: Record<Name, string>; value: number }[];
  }> {
    const values = this.entries().map(({ labels, tally }) => ({ labels, value: tally.value }));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  protected recorded(tally: { value: number }): boolean {
    return tally.value !== 0;
  }

  protected fresh(): CounterTally & { value: number } {
    return {
      value: 0,
      inc(by = 1) {
        this.value += by;
      },
    };
  }
}

export interface HistogramTally {
  observe(value: number): void;
}

interface HistogramFigures extends HistogramTally {
  counts: number[];
  sum: number;
  count: number;
}

export class TalliedHistogram<Name extends string> extends Tallied<Name, HistogramFigures> {
  readonly type = 'histogram';
  private readonly buckets: readonly number[];

  constructor(options: { name: string; help: string; labelNames: readonly Name[]; buckets: readonly number[]; registry: Registry }) {
    super(options.name, options.help, options.labelNames, options.registry);
    this.buckets = options.buckets;
  }

  observe(labels: Record<Name, string>, value: number): void {
    this.tally(labels).observe(value);
  }

  get(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: { metricName: string; labels: Record<string, string | number>; value: number }[];
  }> {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const { labels, tally } of this.entries()) {
      let below = 0;
      this.buckets.forEach((bound, index) => {
        below += tally.counts[index];
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...labels }, value: below });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: tally.count });
      values.push({ metricName: `${this.name}_sum`, labels, value: tally.sum });
      values.push({ metricName: `${this.name}_count`, labels, value: tally.count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  protected recorded(tally: HistogramFigures): boolean {
    return tally.count > 0;
  }

  protected fresh(): HistogramFigures {
    const bounds = this.buckets;
    return {
      counts: bounds.map(() => 0),
      sum: 0,
      count: 0,
      observe(value: number) {
        this.sum += value;
        this.count += 1;
        for (let index = 0; index < bounds.length; index += 1) {
          if (value <= bounds[index]) {
            this.counts[index] += 1;
            return;
          }
        }
      },
    };
  }
}
