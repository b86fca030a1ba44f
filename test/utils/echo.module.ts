import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';

class EchoItem {
  @IsString()
  @MaxLength(10)
  code!: string;

  @IsInt()
  @Min(1)
  @Max(10)
  quantity!: number;
}

class EchoBody {
  @IsString()
  @MaxLength(20)
  name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => EchoItem)
  item?: EchoItem;
}

/** A probe route for the foundation's tests: a JSON write route with a validated body. */
@Controller('test')
class EchoController {
  @Post('echo')
  echo(@Body() body: EchoBody): EchoBody {
    return body;
  }

  @Get('crash')
  crash(): never {
    throw new Error('lost connection to db://admin:hunter2@db with card 4242 4242 4242 4242 in memory');
  }
}

@Module({ controllers: [EchoController] })
export class EchoModule {}
