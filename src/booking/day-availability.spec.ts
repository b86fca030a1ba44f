import { isDayAvailable } from './day-availability';

describe('a calendar day is available', () => {
  it('by its status, for a single-unit listing (no allotment)', () => {
    expect(isDayAvailable({ status: 'available' })).toBe(true);
    expect(isDayAvailable({ status: 'booked' })).toBe(false);
    expect(isDayAvailable({ status: 'unavailable' })).toBe(false);
  });

  it('by its allotment, for a multi-unit listing, whatever its status says', () => {
    expect(isDayAvailable({ status: 'booked', allotment: 2 })).toBe(true);
    expect(isDayAvailable({ status: 'available', allotment: 0 })).toBe(false);
    expect(isDayAvailable({ status: 'unavailable', allotment: 1 })).toBe(true);
  });
});
