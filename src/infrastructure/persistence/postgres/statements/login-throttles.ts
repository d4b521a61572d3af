import { sql } from 'kysely';
import { kysely, type Slots, statement } from '../kysely';

/**
 * A failed sign-in attempt counted in one upsert returning the new row: concurrent attempts at
 * several processes are all counted and each sees its own count. A window that is over (started at
 * or before `windowStartsAfter`) starts again at 1; a lock in force stays; the count going beyond
 * `threshold` in a window sets `lockUntil`.
 */
export const RECORD_ATTEMPT = statement(
  (
    p: Slots<{
      readonly key: string;
      readonly now: Date;
      readonly windowStartsAfter: Date;
      readonly threshold: number;
      readonly lockUntil: Date;
    }>,
  ) =>
    kysely
      .insertInto('login_throttles')
      .values((eb) => ({
        key: p.key,
        failures: sql.lit(1),
        window_started_at: p.now,
        // Cast: a CASE whose only branch is a parameter would be text, which the column does not
        // take (in the update's CASEs, the other branches give the type).
        locked_until: eb
          .case()
          .when(sql.lit(1), '>', p.threshold)
          .then(sql<Date>`${p.lockUntil}::timestamptz`)
          .end(),
      }))
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet((eb) => {
          // A lock in force; a window that is over. Each occurrence is a parameter of its own.
          const locked = eb('login_throttles.locked_until', '>', p.now);
          const over = eb('login_throttles.window_started_at', '<=', p.windowStartsAfter);
          return {
            failures: eb
              .case()
              .when(locked)
              .then(eb.ref('login_throttles.failures'))
              .when(over)
              .then(sql.lit(1))
              .else(eb('login_throttles.failures', '+', sql.lit(1)))
              .end(),
            window_started_at: eb
              .case()
              .when(locked)
              .then(eb.ref('login_throttles.window_started_at'))
              .when(over)
              .then(p.now)
              .else(eb.ref('login_throttles.window_started_at'))
              .end(),
            locked_until: eb
              .case()
              .when(locked)
              .then(eb.ref('login_throttles.locked_until'))
              .when(
                eb.and([
                  eb('login_throttles.window_started_at', '>', p.windowStartsAfter),
                  eb(eb('login_throttles.failures', '+', sql.lit(1)), '>', p.threshold),
                ]),
              )
              .then(p.lockUntil)
              .else(eb.ref('login_throttles.locked_until'))
              .end(),
          };
        }),
      )
      .returning(['key', 'failures', 'window_started_at as windowStartedAt', 'locked_until as lockedUntil']),
);
