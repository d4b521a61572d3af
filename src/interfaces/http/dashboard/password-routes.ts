import type { Router } from 'express';
import type { Container } from 'inversify';
import { UnacceptablePassword, WrongCurrentPassword } from '../../../core/domain/errors';
import { MAX_PASSWORD_LENGTH } from '../../../core/domain/password';
import { ChangePassword } from '../../../core/use-cases/sessions/change-password';
import { clientOf } from '../client-address';
import { formField, statusOf } from './forms';
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
        const { session } = signedIn.signedIn;
        await changePassword.execute({
          accountId: session.accountId,
          sessionId: session.id,
          currentPassword,
          newPassword,
          clientAddress: clientOf(req.ip),
          knownDevice: devices.isKnown(req, signedIn.signedIn.email),
        });
        const changed = await pages.resolve(signedIn.sessionToken);
        await pages.render(res, 200, changed, {
          message: 'Password changed. Your other sessions are signed out.',
        });
      } catch (error) {
        if (!(error instanceof WrongCurrentPassword || error instanceof UnacceptablePassword)) throw error;
        await pages.render(res, statusOf(error), signedIn, { error: error.message });
      }
    }),
  );
}
