import { ApiProperty } from '@nestjs/swagger';
import { SameFields } from '../../common/http/same-fields';
import { CalendarDayView } from '../calendar.service';

class CalendarDayResponse implements CalendarDayView {
  @ApiProperty({ example: '2031-07-14' })
  date!: string;

  @ApiProperty({ description: 'free to book (neither booked nor blocked)' })
  available!: boolean;

  @ApiProperty({ example: 240, nullable: true, type: Number, description: 'the night from this date, in the listing currency' })
  price!: number | null;

  @ApiProperty({ example: 2, description: 'least nights of a stay starting this date' })
  minNights!: number;

  @ApiProperty()
  checkInAllowed!: boolean;

  @ApiProperty()
  checkOutAllowed!: boolean;
}

export class CalendarResponse {
  @ApiProperty({ example: 'lst-seaside' })
  listingId!: string;

  @ApiProperty({ example: 'USD', nullable: true, type: String })
  currency!: string | null;

  @ApiProperty({ type: [CalendarDayResponse] })
  days!: CalendarDayResponse[];
}

const _dayFields: SameFields<CalendarDayResponse, CalendarDayView> = true;
