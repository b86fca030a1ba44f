import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppConfig } from '../../config/app-config';
import { GuestyClient } from '../guesty-client';
import { READ_QUERIES, ReadQuery } from '../platform-read-queries';
import { Heard, heardOf, keysOf, listOf, missingFields, plural, refusal, silenceOf, unreadable } from './answer-readings';
import { CheckedOperation, ConfiguredSurfaces, ReadCheckReport, SurfaceChoice } from './check-report';

type Wire = Record<string, unknown>;
type Judged = Pick<CheckedOperation, 'verdict' | 'found' | 'productWill'> & { note?: string };

const enc = encodeURIComponent;
const RESERVATION_FIELDS = [
  'status',
  'confirmationCode',
  'bookerId',
  'stay.0.checkInDateLocalized',
  'stay.0.checkOutDateLocalized',
  'stay.0.unitTypeId',
];
const PAYMENT_WRAPPERS = ['results', 'payments', 'data'];
const UNANSWERED_503 = 'answers 503 (upstream_unavailable or upstream_forbidden) with Retry-After while it lasts: run the check again';
const LOUD_503 = 'answers 503 platform_answer_unexpected with Retry-After and sends nothing whose safety rests on this read';

/** Each call of one run, counted: a read check spends at most 15. */
class Probe {
  calls = 0;
  constructor(private readonly guesty: GuestyClient) {}

  async ask(operation: string, path: string, query?: ReadQuery): Promise<{ heard: Heard; shown: string }> {
    // As UpstreamHttp sends it: an array as `name[]=`.
    const pairs = Object.entries(query ?? {}).flatMap(([name, value]) =>
      Array.isArray(value) ? value.map((item): [string, string] => [`${name}[]`, item]) : [[name, value] as [string, string]],
    );
    const shown = `GET ${path}${pairs.length > 0 ? `?${new URLSearchParams(pairs).toString()}` : ''}`;
    try {
      return { heard: heardOf(await this.guesty.readAsAnswered({ operation, path, query }, () => (this.calls += 1))), shown };
    } catch (error) {
      return { heard: silenceOf(error), shown };
    }
  }
}

/**
 * The go-live check's reads (docs/deploying.md, "Go-live"): every read the product makes, sent once
 * to the operator's account through the service's own client (shared token, budget), each answer
 * judged against the readings the product works with: confirmed, contradicted or unreadable.
 */
@Injectable()
export class PlatformCheck {
  constructor(
    private readonly guesty: GuestyClient,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /** The configured surface per resource (GUESTY_RESERVATIONS_SURFACE, GUESTY_PAYMENT_METHODS_SURFACE). */
  surfaces(): ConfiguredSurfaces {
    const { reservationsSurface, paymentMethodsSurface } = this.config.get('guesty', { infer: true });
    return { reservations: reservationsSurface, paymentMethods: paymentMethodsSurface };
  }

  /** Whether the platform marks the listing a test property (`isTest`, changelog 2026-05-11); why not, when not. */
  async listingIsTest(listingId: string): Promise<{ isTest: boolean; why: string }> {
    const { heard } = await new Probe(this.guesty).ask('getListing', `/listings/${enc(listingId)}`);
    const silent = unreadable(heard);
    if (silent || !heard.answered) return { isTest: false, why: `the listing could not be read (${silent})` };
    if (heard.status === 404) return { isTest: false, why: `the platform knows no listing ${listingId}` };
    if (heard.status >= 300) return { isTest: false, why: `the listing read answered ${refusal(heard)}` };
    const isTest = (heard.data as Wire).isTest;
    return isTest === true
      ? { isTest: true, why: 'the platform marks it isTest' }
      : { isTest: false, why: `the platform does not mark listing ${listingId} isTest (isTest: ${JSON.stringify(isTest ?? null)})` };
  }

  async read(reservationId: string): Promise<ReadCheckReport> {
    const probe = new Probe(this.guesty);
    const surfaces = this.surfaces();
    const operations: CheckedOperation[] = [];
    const add = (base: Omit<CheckedOperation, keyof Judged | 'configured'>, judged: Judged) =>
      operations.push({ ...base, ...judged, configured: surfaces[base.resource as keyof ConfiguredSurfaces] === base.surface });
    const onReservations = { resource: 'reservations' as const, surface: 'current' as const };

    const v3 = await probe.ask('getReservationsV3', '/reservations-v3', READ_QUERIES.reservationsV3([reservationId]));
    const reservation = this.reservationOf(v3.heard, reservationId);
    add(
      {
        operation: 'getReservationsV3',
        path: v3.shown,
        expected: `a bare array or {results} holding the item whose _id is ${reservationId}, with ${RESERVATION_FIELDS.join(', ')}`,
        ...onReservations,
      },
      reservation.judged,
    );
    const { bookerId, confirmationCode } = reservation.item ?? {};
    // The listing, as the product reads it: the item's listingId, else its first stay's unit type.
    const stay = (reservation.item?.stay as Wire[] | undefined)?.[0];
    const listingId = reservation.item?.listingId ?? stay?.unitTypeId;

    const email = await this.guestEmail(probe, typeof bookerId === 'string' ? bookerId : undefined);
    add({ operation: 'getGuestEmail', ...onReservations, ...email.shown }, email.judged);

    const overview = await probe.ask('getFolioOverview', '/guest-folio/overview', READ_QUERIES.folioOverview([reservationId]));
    const overviewJudged = this.overviewOf(overview.heard, reservationId);
    if (!reservation.item && notFoundBy(overview.heard, reservationId))
      operations[0].note = 'the folio overview lists it in notFound too: is it a reservation of this account?';
    if (overviewJudged.verdict === 'confirmed') overviewJudged.note = await this.totalsCompared(probe, reservationId);
    add(
      {
        operation: 'getFolioOverview',
        path: overview.shown,
        expected: `{results} holding the line whose reservationId is ${reservationId}, with hostPayout and totalTaxes (numbers) and currency`,
        ...onReservations,
      },
      overviewJudged,
    );

    const items = await probe.ask('getFolioInvoiceItems', '/guest-folio/invoice-items', READ_QUERIES.folioItems(reservationId));
    add(
      {
        operation: 'getFolioInvoiceItems',
        path: items.shown,
        expected: `a bare array or {results} holding the entry whose reservationId is ${reservationId}, with invoiceItems[] (title, totalPrice)`,
        ...onReservations,
      },
      this.invoiceItemsOf(items.heard, reservationId),
    );

    const payments = await probe.ask('listPayments', '/payments', READ_QUERIES.payments(reservationId));
    add(
      {
        operation: 'listPayments',
        path: payments.shown,
        expected:
          'a bare array, or an object with the list under results, payments or data (beside summary fields); each item with _id, status, amount',
        ...onReservations,
      },
      this.paymentsOf(payments.heard),
    );

    const methods = await probe.ask('listPaymentMethods', '/payment-methods', READ_QUERIES.paymentMethods('current', reservationId));
    add(
      {
        operation: 'listPaymentMethods',
        path: methods.shown,
        expected:
          'a bare array or {results}; each item names reservationId or confirmationCode; the reservationId filter honoured or ignored (the product keeps only this booking’s)',
        resource: 'paymentMethods',
        surface: 'current',
      },
      this.methodsOf(methods.heard, reservationId, typeof confirmationCode === 'string' ? confirmationCode : undefined, 'current'),
    );

    const legacy = await probe.ask('getReservation', `/reservations/${enc(reservationId)}`, READ_QUERIES.legacyReservation());
    const legacyJudged = this.legacyReservationOf(legacy.heard, reservationId, surfaces.reservations === 'legacy');
    add(
      {
        operation: 'getReservation (legacy)',
        path: legacy.shown,
        expected: `the reservation ${reservationId} with status, guestId, listingId and money (retired on 2027-03-01)`,
        resource: 'reservations',
        surface: 'legacy',
      },
      legacyJudged.judged,
    );

    const guestId = (typeof bookerId === 'string' ? bookerId : undefined) ?? legacyJudged.guestId;
    const legacyMethods = guestId
      ? await probe.ask(
          'listPaymentMethods (legacy)',
          `/guests/${enc(guestId)}/payment-methods`,
          READ_QUERIES.paymentMethods('legacy', reservationId),
        )
      : undefined;
    add(
      {
        operation: 'listPaymentMethods (legacy)',
        path: legacyMethods?.shown ?? 'GET /guests/{guestId}/payment-methods (not sent: no read named the guest)',
        expected: 'an array of the guest’s methods, each naming reservationId or confirmationCode (deprecated, no removal date)',
        resource: 'paymentMethods',
        surface: 'legacy',
      },
      legacyMethods
        ? this.methodsOf(legacyMethods.heard, reservationId, typeof confirmationCode === 'string' ? confirmationCode : undefined, 'legacy')
        : notAsked('no read named the reservation’s guest'),
    );

    const listing = (typeof listingId === 'string' ? listingId : undefined) ?? legacyJudged.listingId;
    const provider = listing
      ? await probe.ask('getPaymentProvider', '/payment-providers/provider-by-listing', { listingId: listing })
      : undefined;
    const providerOperation = {
      operation: 'getPaymentProvider',
      path: provider?.shown ?? 'GET /payment-providers/provider-by-listing (not sent: no read named the listing)',
      expected: 'the listing’s provider with paymentProviderId and status ACTIVE',
      resource: 'listing' as const,
      surface: surfaces.reservations,
    };
    add(providerOperation, provider ? this.providerOf(provider.heard, listing!) : notAsked('no read named the reservation’s listing'));
    // The listing's provider is read on either surface: it always counts.
    operations[operations.length - 1].configured = true;

    const choices = choose(operations, surfaces);
    const ok = operations.filter((operation) => operation.configured).every((operation) => operation.verdict === 'confirmed');
    return { ok, operations, choices, calls: probe.calls };
  }

  private reservationOf(heard: Heard, reservationId: string): { judged: Judged; item?: Wire } {
    const silent = unreadable(heard);
    if (silent) return { judged: { verdict: 'unreadable', found: silent, productWill: UNANSWERED_503 } };
    if (!heard.answered) return { judged: notAsked('no answer') };
    if (heard.status >= 300) {
      return {
        judged: {
          verdict: 'contradicted',
          found: refusal(heard),
          productWill: `${LOUD_503} on every session open; GUESTY_RESERVATIONS_SURFACE=legacy reads through the legacy call until 2027-03-01 if it confirms below`,
        },
      };
    }
    const list = listOf(heard.data);
    if (!list)
      return {
        judged: { verdict: 'contradicted', found: `${heard.status} without a list (keys: ${keysOf(heard.data)})`, productWill: LOUD_503 },
      };
    const item = list.items.find((candidate) => candidate?._id === reservationId);
    if (!item) {
      return {
        judged: {
          verdict: 'contradicted',
          found: `${list.wrapper} of ${plural(list.items.length, 'item')}, none with _id ${reservationId}`,
          productWill:
            'answers 404 reservation_not_found for this existing reservation (each miss logged): GUESTY_RESERVATIONS_SURFACE=legacy reads it until 2027-03-01 if the legacy read confirms',
        },
      };
    }
    const missing = missingFields(item, RESERVATION_FIELDS);
    if (missing.length > 0)
      return {
        judged: { verdict: 'contradicted', found: `${list.wrapper}; the item lacks ${missing.join(', ')}`, productWill: LOUD_503 },
        item,
      };
    return {
      judged: {
        verdict: 'confirmed',
        found: `${list.wrapper}; the item with every field`,
        productWill: 'reads reservations through Reservations V3',
      },
      item,
    };
  }

  /** The single guest read, else the guest list by id, under either field name. */
  private async guestEmail(
    probe: Probe,
    guestId: string | undefined,
  ): Promise<{ shown: { path: string; expected: string }; judged: Judged }> {
    const expected = 'the guest’s email as email or guestEmail: in the single read, else in the guest list read for that id';
    if (!guestId)
      return {
        shown: { path: 'GET /guests-crud/{id} (not sent: no bookerId)', expected },
        judged: notAsked('the reservation read named no bookerId'),
      };
    const single = await probe.ask('getGuest', `/guests-crud/${enc(guestId)}`, READ_QUERIES.guest());
    const singleSilent = unreadable(single.heard);
    if (singleSilent)
      return {
        shown: { path: single.shown, expected },
        judged: { verdict: 'unreadable', found: singleSilent, productWill: UNANSWERED_503 },
      };
    const heard = single.heard as Heard & { answered: true };
    if (heard.status < 300) {
      const field = emailField(heard.data);
      if (field)
        return {
          shown: { path: single.shown, expected },
          judged: {
            verdict: 'confirmed',
            found: `the single read carries ${field}`,
            productWill: `reads the guest’s email from the single read (${field})`,
          },
        };
    }
    const singleFound = heard.status < 300 ? 'the single read carries no email' : `the single read answered ${refusal(heard)}`;
    const list = await probe.ask('findGuestById', '/guests-crud', READ_QUERIES.guestListById(guestId));
    const path = `${single.shown}, then ${list.shown}`;
    const listSilent = unreadable(list.heard);
    if (listSilent)
      return {
        shown: { path, expected },
        judged: { verdict: 'unreadable', found: `${singleFound}; the list: ${listSilent}`, productWill: UNANSWERED_503 },
      };
    const listed = list.heard as Heard & { answered: true };
    const loud = 'answers 503 platform_answer_unexpected on every session open of an existing reservation (never reservation_not_found)';
    if (listed.status >= 300)
      return {
        shown: { path, expected },
        judged: { verdict: 'contradicted', found: `${singleFound}; the list answered ${refusal(listed)}`, productWill: loud },
      };
    const results = (listed.data as Wire).results;
    const items = (Array.isArray(results) ? results : Object.values((results as Wire | undefined) ?? {})) as Wire[];
    const guest = items.find((item) => item?._id === guestId || item?.id === guestId);
    const field = emailField(guest);
    if (!field) {
      return {
        shown: { path, expected },
        judged: {
          verdict: 'contradicted',
          found: `${singleFound}; the list ${guest ? 'names the guest without an email' : `answered ${plural(items.length, 'guest')}, none with _id ${guestId}`}`,
          productWill: loud,
        },
      };
    }
    return {
      shown: { path, expected },
      judged: {
        verdict: 'confirmed',
        found: `${singleFound}; the list read carries ${field}`,
        productWill: `reads the guest’s email from the guest list (${field})`,
      },
    };
  }

  private overviewOf(heard: Heard, reservationId: string): Judged {
    const silent = unreadable(heard);
    if (silent || !heard.answered) return { verdict: 'unreadable', found: silent ?? 'no answer', productWill: UNANSWERED_503 };
    const will = `${LOUD_503}: every session open and booking (the total cannot be read)`;
    if (heard.status >= 300) return { verdict: 'contradicted', found: refusal(heard), productWill: will };
    const list = listOf(heard.data);
    if (!list || list.wrapper === 'a bare array')
      return { verdict: 'contradicted', found: `${heard.status} without {results} (keys: ${keysOf(heard.data)})`, productWill: will };
    const line = list.items.find((item) => item?.reservationId === reservationId);
    if (!line)
      return {
        verdict: 'contradicted',
        found: `{results} without the reservation’s line${list.beside.includes('notFound') ? ' (in notFound)' : ''}`,
        productWill: will,
      };
    const wrong = ['hostPayout', 'totalTaxes'].filter((name) => typeof line[name] !== 'number');
    if (typeof line.currency !== 'string') wrong.push('currency');
    if (wrong.length > 0) return { verdict: 'contradicted', found: `the line lacks ${wrong.join(', ')}`, productWill: will };
    return {
      verdict: 'confirmed',
      found: `the line: hostPayout ${String(line.hostPayout)}, totalTaxes ${String(line.totalTaxes)} ${String(line.currency)}`,
      productWill: 'takes the guest’s total as hostPayout (docs/upstream.md)',
    };
  }

  /** One more call, beside the verdict: does subTotalPrice + totalTaxes make hostPayout on this reservation? */
  private async totalsCompared(probe: Probe, reservationId: string): Promise<string> {
    const { heard } = await probe.ask(
      'getFolioOverview (subTotalPrice)',
      '/guest-folio/overview',
      READ_QUERIES.folioOverview([reservationId], 'subTotalPrice,totalTaxes,hostPayout'),
    );
    const silent = unreadable(heard);
    if (silent || !heard.answered) return `subTotalPrice could not be compared (${silent})`;
    if (heard.status === 400) return 'subTotalPrice is not a field here (400)';
    if (heard.status >= 300) return `subTotalPrice could not be compared (${refusal(heard)})`;
    const line = listOf(heard.data)?.items.find((item) => item?.reservationId === reservationId);
    const [sub, taxes, payout] = ['subTotalPrice', 'totalTaxes', 'hostPayout'].map((name) => line?.[name]);
    if (typeof sub !== 'number' || typeof taxes !== 'number' || typeof payout !== 'number') return 'subTotalPrice is not in the answer';
    const sum = Math.round((sub + taxes) * 100) / 100;
    return sum === payout
      ? `subTotalPrice + totalTaxes = hostPayout on this reservation (${sub} + ${taxes} = ${payout})`
      : `subTotalPrice + totalTaxes ≠ hostPayout on this reservation (${sub} + ${taxes} = ${sum}, hostPayout ${payout}): a channel commission or fee makes hostPayout the host’s net, not the guest’s total`;
  }

  private invoiceItemsOf(heard: Heard, reservationId: string): Judged {
    const silent = unreadable(heard);
    if (silent || !heard.answered) return { verdict: 'unreadable', found: silent ?? 'no answer', productWill: UNANSWERED_503 };
    const will = `${LOUD_503}: the folio lines (extras, payment diagnostics) cannot be read`;
    if (heard.status >= 300) return { verdict: 'contradicted', found: refusal(heard), productWill: will };
    const list = listOf(heard.data);
    if (!list) return { verdict: 'contradicted', found: `${heard.status} without a list (keys: ${keysOf(heard.data)})`, productWill: will };
    const entry = list.items.find((item) => item?.reservationId === reservationId);
    if (!entry || !Array.isArray(entry.invoiceItems))
      return { verdict: 'contradicted', found: `${list.wrapper} without the reservation’s invoiceItems`, productWill: will };
    const lines = entry.invoiceItems as Wire[];
    const bad = lines.filter(
      (line) => typeof line?.title !== 'string' || (typeof line.totalPrice !== 'number' && typeof line.amount !== 'number'),
    );
    if (bad.length > 0)
      return { verdict: 'contradicted', found: `${plural(bad.length, 'line')} without title or totalPrice`, productWill: will };
    return { verdict: 'confirmed', found: `${list.wrapper}; ${plural(lines.length, 'line')}`, productWill: 'reads the folio’s lines' };
  }

  private paymentsOf(heard: Heard): Judged {
    const silent = unreadable(heard);
    if (silent || !heard.answered) return { verdict: 'unreadable', found: silent ?? 'no answer', productWill: UNANSWERED_503 };
    const will = `${LOUD_503}: a session open, the payment status and any attach (never "nothing paid")`;
    if (heard.status >= 300) return { verdict: 'contradicted', found: refusal(heard), productWill: will };
    const list = listOf(heard.data, PAYMENT_WRAPPERS);
    if (!list) return { verdict: 'contradicted', found: `${heard.status} without a list (keys: ${keysOf(heard.data)})`, productWill: will };
    const bad = list.items.filter((item) => missingFields(item, ['_id', 'status', 'amount']).length > 0);
    if (bad.length > 0)
      return {
        verdict: 'contradicted',
        found: `${list.wrapper}; ${plural(bad.length, 'item')} without _id, status or amount`,
        productWill: will,
      };
    const refunds = list.items.reduce((count, item) => count + (Array.isArray(item.refunds) ? item.refunds.length : 0), 0);
    const holds = list.items.filter((item) => item.isAuthorizationHold === true || item.isSecurityDeposit === true).length;
    const summary = list.beside.length > 0 ? `summary fields ${list.beside.join(', ')}` : 'no summary fields';
    return {
      verdict: 'confirmed',
      found: `${list.wrapper}; ${plural(list.items.length, 'payment')}, ${plural(refunds, 'refund')}, ${plural(holds, 'hold')}; ${summary}`,
      productWill:
        list.beside.length > 0
          ? 'counts what was paid from the summary fields where present (a disagreement with the sum is logged)'
          : 'counts what was paid: succeeded payments less their succeeded refunds, holds never',
    };
  }

  private methodsOf(heard: Heard, reservationId: string, code: string | undefined, surface: 'current' | 'legacy'): Judged {
    const configured = this.surfaces().paymentMethods === surface;
    const silent = unreadable(heard);
    const other = surface === 'current' ? 'legacy' : 'current';
    const will = configured
      ? `${LOUD_503}: no card is attached (never "no card on file"); GUESTY_PAYMENT_METHODS_SURFACE=${other} if it confirms`
      : `nothing: the product lists and attaches cards on the ${other} surface`;
    if (silent || !heard.answered)
      return { verdict: 'unreadable', found: silent ?? 'no answer', productWill: configured ? UNANSWERED_503 : will };
    if (heard.status === 404 && surface === 'legacy') return { verdict: 'contradicted', found: '404: retired', productWill: will };
    if (heard.status >= 300) return { verdict: 'contradicted', found: refusal(heard), productWill: will };
    const list = listOf(heard.data);
    if (!list) return { verdict: 'contradicted', found: `${heard.status} without a list (keys: ${keysOf(heard.data)})`, productWill: will };
    const naming = (item: Wire) =>
      [item.reservationId ? 'reservationId' : undefined, item.confirmationCode ? 'confirmationCode' : undefined].filter(Boolean);
    const nameless = list.items.filter((item) => naming(item).length === 0);
    if (nameless.length > 0) {
      return {
        verdict: 'contradicted',
        found: `${list.wrapper}; ${plural(nameless.length, 'item')} naming neither reservationId nor confirmationCode`,
        productWill: configured ? `${LOUD_503}: it cannot tell this booking’s card from the guest’s others, so it attaches none` : will,
      };
    }
    const ours = list.items.filter(
      (item) => item.reservationId === reservationId || (code !== undefined && item.confirmationCode === code),
    );
    const names = [...new Set(list.items.flatMap(naming))].join(' and ');
    const filter =
      list.items.length === 0
        ? 'no method yet, so the filter is not shown either way'
        : ours.length === list.items.length
          ? 'the filter honoured'
          : `the filter ignored (${plural(list.items.length - ours.length, 'item')} of other bookings)`;
    return {
      verdict: 'confirmed',
      found: `${list.wrapper}; ${list.items.length === 0 ? 'empty' : `${plural(list.items.length, 'item')} naming ${names}`}; ${filter}`,
      productWill: configured
        ? `counts ${plural(ours.length, 'card')} on file for this booking (only items naming it, filter honoured or not)`
        : `nothing now; on GUESTY_PAYMENT_METHODS_SURFACE=${surface} it would count ${plural(ours.length, 'card')} on file for this booking`,
    };
  }

  private legacyReservationOf(
    heard: Heard,
    reservationId: string,
    configured: boolean,
  ): { judged: Judged; guestId?: string; listingId?: string } {
    const silent = unreadable(heard);
    const will = configured
      ? `${LOUD_503} on every reservation read: set GUESTY_RESERVATIONS_SURFACE=current`
      : 'nothing: the product reads reservations on the current surface';
    if (silent || !heard.answered)
      return { judged: { verdict: 'unreadable', found: silent ?? 'no answer', productWill: configured ? UNANSWERED_503 : will } };
    if (heard.status === 404) return { judged: { verdict: 'contradicted', found: '404: retired', productWill: will } };
    if (heard.status >= 300) return { judged: { verdict: 'contradicted', found: refusal(heard), productWill: will } };
    const data = heard.data as Wire;
    const missing = missingFields(data, ['_id', 'status', 'guestId', 'listingId', 'money']);
    const ids = {
      guestId: typeof data.guestId === 'string' ? data.guestId : undefined,
      listingId: typeof data.listingId === 'string' ? data.listingId : undefined,
    };
    if (data._id !== reservationId || missing.length > 0)
      return {
        judged: { verdict: 'contradicted', found: `the reservation lacks ${missing.join(', ') || '_id'}`, productWill: will },
        ...ids,
      };
    return {
      judged: {
        verdict: 'confirmed',
        found: 'served, with every field',
        productWill: configured
          ? 'reads reservations through the legacy call (until 2027-03-01)'
          : 'nothing: still served, until 2027-03-01',
      },
      ...ids,
    };
  }

  private providerOf(heard: Heard, listingId: string): Judged {
    const silent = unreadable(heard);
    if (silent || !heard.answered) return { verdict: 'unreadable', found: silent ?? 'no answer', productWill: UNANSWERED_503 };
    const will = `answers 502 payment_account_unavailable to every card and booking on listing ${listingId}: activate its payment provider`;
    if (heard.status === 404)
      return { verdict: 'contradicted', found: `404: no active payment provider for listing ${listingId}`, productWill: will };
    if (heard.status >= 300) return { verdict: 'contradicted', found: refusal(heard), productWill: will };
    const provider = heard.data as Wire;
    if (typeof provider.paymentProviderId !== 'string' || provider.status !== 'ACTIVE')
      return {
        verdict: 'contradicted',
        found: `status ${String(provider.status)}, paymentProviderId ${typeof provider.paymentProviderId}`,
        productWill: will,
      };
    return { verdict: 'confirmed', found: `${provider.paymentProviderId}, ACTIVE`, productWill: 'tokenizes cards with this provider' };
  }
}

/** Whether the overview's 200 names the id among those it does not know (its `notFound`). */
function notFoundBy(heard: Heard, reservationId: string): boolean {
  const notFound = heard.answered && heard.status < 300 ? (heard.data as Wire | null)?.notFound : undefined;
  return Array.isArray(notFound) && notFound.includes(reservationId);
}

function notAsked(why: string): Judged {
  return { verdict: 'unreadable', found: `not asked: ${why}`, productWill: 'cannot be judged until the reads before it answer' };
}

function emailField(item: unknown): 'email' | 'guestEmail' | undefined {
  const guest = item as Wire | undefined;
  if (typeof guest?.email === 'string' && guest.email !== '') return 'email';
  if (typeof guest?.guestEmail === 'string' && guest.guestEmail !== '') return 'guestEmail';
  return undefined;
}

/** Which surface each resource should be on: the current one where every read confirms, else the legacy one where it does. */
function choose(operations: CheckedOperation[], configured: ConfiguredSurfaces): SurfaceChoice[] {
  const resources = [
    { resource: 'reservations' as const, variable: 'GUESTY_RESERVATIONS_SURFACE', legacyUntil: 'until 2027-03-01' },
    { resource: 'paymentMethods' as const, variable: 'GUESTY_PAYMENT_METHODS_SURFACE', legacyUntil: 'deprecated, no removal date' },
  ];
  return resources.map(({ resource, variable, legacyUntil }) => {
    const on = (surface: 'current' | 'legacy') =>
      operations.filter((operation) => operation.resource === resource && operation.surface === surface);
    const failing = (surface: 'current' | 'legacy') => on(surface).filter((operation) => operation.verdict !== 'confirmed');
    const now = `now ${configured[resource]}`;
    if (failing('current').length === 0) return { resource, variable, choose: 'current', why: `every current read confirmed (${now})` };
    const names = failing('current')
      .map((operation) => `${operation.operation} ${operation.verdict}`)
      .join(', ');
    if (failing('legacy').length === 0)
      return { resource, variable, choose: 'legacy', why: `${names}; the legacy reads confirm (${legacyUntil}; ${now})` };
    return {
      resource,
      variable,
      choose: undefined,
      why: `${names}; the legacy reads do not confirm either: see to the account with the platform (${now})`,
    };
  });
}
