import { addedItem, isLike, toAdded } from './added-invoice-item';

const sent = { normalType: 'AFE', title: 'Pet fee', amount: 30, secondIdentifier: 'PET', description: 'One dog' };

describe('added invoice items', () => {
  it("answers the upstream's item with its id, and only the safe fields", () => {
    const answer = { _id: 'ii_1', ...sent, isTax: false, realizationDates: [], internal: 'x' };
    expect(addedItem(answer, sent)).toEqual({ _id: 'ii_1', ...sent });
  });

  it('answers the item as sent when the upstream answered something else (a folio)', () => {
    expect(addedItem({ invoiceItems: [] }, sent)).toEqual(sent);
  });

  it('drops a null secondIdentifier as a reservation read shows it', () => {
    expect(toAdded({ _id: 'ii_2', title: 'Cleaning', amount: 50, normalType: 'CF', secondIdentifier: null as unknown as undefined })).toEqual({
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
