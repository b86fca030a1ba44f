/**
 * The query of each platform read the product sends, in one place: GuestyClient sends them, and the
 * go-live check (platform-check/) sends the very same, so a read it confirms is the product's own.
 */
/** A read's query, as UpstreamHttp sends it. */
export type ReadQuery = Record<string, string | string[]>;

export const READ_QUERIES = {
  /** An array goes as `reservationIds[]=` (UpstreamHttp), the form public integrations send. */
  reservationsV3: (reservationIds: string[]): ReadQuery => ({ reservationIds }),
  /** `fields` is required by the reference; the email comes as `email` or `guestEmail` (docs/upstream.md). */
  guest: () => ({ fields: 'email' }),
  /** The published column is `guestEmail`; the id filter's key is not published (docs/upstream.md). */
  guestListById: (guestId: string) => ({ columns: '_id guestEmail', filters: JSON.stringify({ _id: { '@in': [guestId] } }), limit: '25' }),
  /** The published names only: an unknown one is refused 400. The guest's total is `hostPayout`. */
  folioOverview: (reservationIds: string[], fields = 'hostPayout,totalTaxes,currency') => ({
    reservationIds: reservationIds.join(','),
    fields,
  }),
  folioItems: (reservationId: string) => ({ reservationIds: reservationId, fields: 'title,normalType,totalPrice,secondIdentifier' }),
  payments: (reservationId: string) => ({ reservationId }),
  /** The legacy list's `reuse` defaults to true, and the product attaches with `reuse: false`. */
  paymentMethods: (surface: 'current' | 'legacy', reservationId: string): ReadQuery =>
    surface === 'legacy' ? { reservationId, reuse: 'false' } : { reservationId },
  legacyReservation: () => ({ fields: '_id confirmationCode status reservedExpiresAt listingId guestId guest checkIn checkOut money' }),
};
