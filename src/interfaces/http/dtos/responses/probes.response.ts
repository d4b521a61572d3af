import { IsIn, IsString } from 'class-validator';
import { ApiField } from '../../openapi/api-field';

/** The answers of the probes a proxy or orchestrator polls (app.ts, `/healthz` and `/readyz`). */

export class HealthResponse {
  @IsIn(['ok']) @ApiField({ example: 'ok' }) status!: string;
}

export class ReadyResponse {
  @IsIn(['ready']) @ApiField({ example: 'ready' }) status!: string;
}

export class NotReadyResponse {
  @IsIn(['not ready']) @ApiField({ example: 'not ready' }) status!: string;
  @IsString()
  @ApiField({ example: 'the database does not answer', description: 'Why, in words an operator can act on.' })
  reason!: string;
}
