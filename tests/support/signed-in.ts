// What a sign-in that succeeds gives, checked rather than only awaited.
import type { LoggedIn } from '../../src/core/use-cases/sessions/log-in';
import type { TestCore } from './builders/test-core';

/** Awaits a sign-in and checks what it gave: a session of `accountId` whose token opens that session. */
export async function expectSignedIn(
  core: TestCore,
  signingIn: Promise<LoggedIn>,
  accountId: string,
): Promise<LoggedIn> {
  const opened = await signingIn;
  expect(opened.session.accountId).toBe(accountId);
  expect(await core.resolveSession.execute({ sessionToken: opened.token })).toMatchObject({ session: opened.session });
  return opened;
}
