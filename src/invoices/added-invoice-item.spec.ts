import { readInvoiceItemAnswer } from '../upstream/invoice-item-answer';
import { addedItem, isLike, toAdded } from './added-invoice-item';

const sent = { normalType: 'AFE', title: 'Pet fee', amount: 30, secondIdentifier: 'PET', description: 'One dog' };

describe('added invoice items', () => {
  it("answers the upstream's item with its id, and only the safe fields", () => {
    const answer = { _id: 'ii_1', ...sent, isTax: false, realizationDates: [], internal: 'x' };
    expect(addedItem(readInvoiceItemAnswer(answer), sent)).toEqual({ _id: 'ii_1', ...sent });
  });

  it("finds the added item's id in the updated folio the current endpoint answers: like it, and not there before", () => {
    const folio = {
      reservationId: 'res-1',
      invoiceItems: [
        { _id: 'ii_old', ...sent },
        { _id: 'ii_cleaning', title: 'Cleaning', amount: 50, normalType: 'CF' },
        { _id: 'ii_new', ...sent, isTax: false },
      ],
    };
    expect(addedItem(readInvoiceItemAnswer(folio), sent, ['ii_old', 'ii_cleaning'])).toEqual({ _id: 'ii_new', ...sent });
    // A folio kept under money, as a reservation shows it.
    expect(addedItem(readInvoiceItemAnswer({ money: { invoiceItems: folio.invoiceItems } }), sent, ['ii_old'])).toEqual({
      _id: 'ii_new',
      ...sent,
    });
  });

  it('answers the item as sent when the upstream answered something else (a folio)', () => {
    expect(addedItem(readInvoiceItemAnswer({ invoiceItems: [] }), sent)).toEqual(sent);
  });

  it('drops a null secondIdentifier as a reservation read shows it', () => {
    expect(
      toAdded({ id: 'ii_2', title: 'Cleaning', amount: 50, normalType: 'CF', secondIdentifier: null as unknown as undefined }),
    ).toEqual({
      _id: 'ii_2',
      title: 'Cleaning',
      amount: 50,
      normalType: 'CF',
    });
  });

  it('judges likeness by title, type and amount in cents (descriptions may not be shown by reads)', () => {
    expect(isLike({ title: 'Pet fee', amount: 30.001, normalType: 'AFE' }, sent)).toBe(true);
    expect(isLike({ title: 'Pet fee', amount: 31, normalType: 'AFE' }, sent)).toBe(false);
    expect(isLike({ title: 'Pet fee', amount: 30, normalType: 'CF' }, sent)).toBe(false);
  });
});
