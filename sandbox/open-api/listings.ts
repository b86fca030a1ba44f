/** GET /v1/listings, GET /v1/listings/:id and the listing's payment provider. */
import { jsonAnswer, type SandboxAnswer } from '../http/answer';
import { invalidParameters, notFound, type FieldProblem } from '../http/errors';
import type { RequestContext } from '../http/host-server';
import { projectFields } from '../state/projection';
import type { ListingRecord } from '../state/records';

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;

function listingDocument(listing: ListingRecord): Record<string, unknown> {
  return structuredClone(listing) as unknown as Record<string, unknown>;
}

function integerParam(
  query: URLSearchParams,
  name: string,
  fallback: number,
  bounds: { min: number; max: number },
  problems: FieldProblem[],
): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < bounds.min || value > bounds.max) {
    problems.push({ field: name, message: `must be an integer from ${bounds.min} to ${bounds.max}` });
  }
  return value;
}

export function listListings(ctx: RequestContext): SandboxAnswer {
  const query = ctx.url.searchParams;
  const problems: FieldProblem[] = [];
  const limit = integerParam(query, 'limit', DEFAULT_LIMIT, { min: 1, max: MAX_LIMIT }, problems);
  const skip = integerParam(query, 'skip', 0, { min: 0, max: Number.MAX_SAFE_INTEGER }, problems);
  if (problems.length > 0) throw invalidParameters(problems);
  const all = [...ctx.runtime.store.listings.values()];
  const fields = query.get('fields');
  const results = all.slice(skip, skip + limit).map((listing) => projectFields(listingDocument(listing), fields));
  return jsonAnswer(200, { results, count: all.length, limit, skip });
}

export function getListing(ctx: RequestContext): SandboxAnswer {
  const listing = ctx.runtime.store.listings.get(ctx.params.id);
  if (!listing) throw notFound(`Listing ${ctx.params.id} not found`);
  return jsonAnswer(200, projectFields(listingDocument(listing), ctx.url.searchParams.get('fields')));
}

export function providerByListing(ctx: RequestContext): SandboxAnswer {
  const query = ctx.url.searchParams;
  const listingId = query.get('listingId');
  if (listingId === null || listingId === '') throw invalidParameters([{ field: 'listingId', message: 'is required' }]);
  const { store } = ctx.runtime;
  if (!store.listings.has(listingId)) throw notFound(`Listing ${listingId} not found`);
  const provider = store.currentProviderOf(listingId);
  const includeInactive = query.get('includeInactiveProviders') === 'true';
  if (!provider || (provider.status !== 'ACTIVE' && !includeInactive)) {
    throw notFound(`No active payment provider for listing ${listingId}`);
  }
  const document = { ...provider } as unknown as Record<string, unknown>;
  return jsonAnswer(200, projectFields(document, query.get('fields')));
}
