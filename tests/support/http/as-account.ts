import request from 'supertest';
import type { TestAccount, TestApp } from './test-app';

/** The spec's date-time form: `YYYY-MM-DDThh:mm:ssZ`. */
export const SPEC_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** All the time the service can represent, as a `time_range`. */
export const ALL_TIME = '0001-01-01T00:00:00Z/9999-12-31T23:59:59Z';

/** Requests made with one account's key: POST with a JSON body, GET with a query string or a JSON body. */
export function asAccount(t: TestApp, account: TestAccount) {
  return {
    account,
    post: (path: string, body: object = {}) => request(t.app).post(path).set('Authorization', account.auth).send(body),
    get: (path: string, query: Record<string, string | number> = {}) =>
      request(t.app).get(path).set('Authorization', account.auth).query(query),
    getWithBody: (path: string, body: object) => request(t.app).get(path).set('Authorization', account.auth).send(body),
    /** The stored traveller (clock and position), to check what a request changed or left alone. */
    traveller: () => t.prisma.traveller.findUniqueOrThrow({ where: { accountId: account.id } }),
  };
}

export type AccountClient = ReturnType<typeof asAccount>;

/** Field names of a validation problem's `errors`, each once (a field breaking several rules is listed per rule). */
export function fieldsAtFault(body: { errors?: ReadonlyArray<{ field: string }> }): string[] {
  return [...new Set((body.errors ?? []).map((error) => error.field))];
}

export function plusMs(dateTime: string, ms: number): string {
  return new Date(Date.parse(dateTime) + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
