import { ApiProperty } from '@nestjs/swagger';
import type { UnexpectedOperation } from '../upstream/unexpected-answers';

class UnexpectedOperationView implements UnexpectedOperation {
  @ApiProperty({ example: 'listPayments', description: 'the read, by the name its metrics and logs use' })
  operation!: string;

  @ApiProperty({ example: 3, description: 'how many times since this replica started' })
  count!: number;

  @ApiProperty({ format: 'date-time', description: 'the last time' })
  lastAt!: string;

  @ApiProperty({ example: 'HTTP 404', description: 'what came back: the status, the field a 400 named or a 2xx lacked' })
  found!: string;
}

/** `GET /health`: what an operator reads beside readiness, which it never changes. */
export class HealthView {
  @ApiProperty({
    enum: ['ok', 'platform_answers_unexpected'],
    description: '`platform_answers_unexpected` while any read below answered in a way the service cannot rely on',
  })
  status!: 'ok' | 'platform_answers_unexpected';

  @ApiProperty({
    type: [UnexpectedOperationView],
    description: 'each read the platform answered unexpectedly on this replica, the latest first (empty when none)',
  })
  platformAnswersUnexpected!: UnexpectedOperationView[];

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'while anonymous traffic has made ANONYMOUS_RECORDS_PER_HOUR records in Redis this hour, as this replica last heard: when the hour ends (until then new client networks are counted in its memory); null otherwise',
  })
  anonymousRecordsCeilingReachedUntil!: string | null;
}
