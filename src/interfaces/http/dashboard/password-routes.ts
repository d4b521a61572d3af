import type { Router } from 'express';
import type { Container } from 'inversify';
import { PasswordChecksBusy, UnacceptablePassword, WrongCurrentPassword } from '../../../core/domain/errors';
import { MAX_PASSWORD_LENGTH } from '../../../core/domain/password';
import { ChangePassword } from '../../../core/use-cases/sessions/change-password';
import { passwordClientOf } from '../password-client';
import { busyStatus, formField, statusOf } from './forms';
import type { KnownDevices } from './known-device';
import type { SignedInPages } from './signed-in';

/** The dashboard's password change: the current password, then a new one held to today's rule. */
export function addPasswordRoutes(
  router: Router,
  container: Container,
  pages: SignedInPages,
  devices: KnownDevices,
): void {
  const changePassword = container.get(ChangePassword);

  router.post(
    '/dashboard/password',
    ...pages.formPost(async (req, res, signedIn) => {
      const currentPassword = formField(req, 'current_password') ?? '';
      const newPassword = formField(req, 'new_password') ?? '';
      if (
        !currentPassword ||
        !newPassword ||
        [currentPassword, newPassword].some((p) => [...p].length > MAX_PASSWORD_LENGTH)
      )
        return pages.render(res, 400, signedIn, { error: 'Enter your current password and a new one.' });
      try {
        const { session, email } = signedIn.signedIn;
        const { deviceStamp } = await changePassword.execute({
          accountId: session.accountId,
          sessionId: session.id,
          currentPassword,
          newPassword,
          ...passwordClientOf(req, res),
          deviceStamp: devices.stampFor(req, email),
        });
        // This browser stays known to the account; every other one's cookie ended with the change.
        devices.remember(req, res, email, deviceStamp);
        const changed = await pages.resolve(signedIn.sessionToken);
        await pages.render(res, 200, changed, {
          message: 'Password changed. Your other sessions are signed out.',
        });
      } catch (error) {
        if (error instanceof PasswordChecksBusy)
          return pages.render(res, busyStatus(res, error), signedIn, { error: error.message });
        if (!(error instanceof WrongCurrentPassword || error instanceof UnacceptablePassword)) throw error;
        await pages.render(res, statusOf(error), signedIn, { error: error.message });
      }
    }),
  );
}
