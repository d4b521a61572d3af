import type { Container } from 'inversify';
import { CreateAccount } from '../../../core/use-cases/accounts/create-account';
import { CreateAccountDto } from '../dtos/account.dto';
import { presentAccount } from '../presenters/resources';
import { AccountResponse } from '../dtos/responses/resources.response';
import { definePublicRoute, type Route } from '../route';

export function accountRoutes(container: Container): Route[] {
  const createAccount = container.get(CreateAccount);
  return [
    definePublicRoute(
      {
        method: 'post',
        path: '/v1/accounts',
        operationId: 'createAccount',
        family: 'accounts',
        summary: 'Open an account; the answer carries its first API key, shown only this once.',
        body: CreateAccountDto,
        docs: {
          description:
            "Opens an account. No key needed. The answer carries the account's first API key, shown only " +
            'this once (only a digest is stored); the account dashboard creates, rolls and revokes more. ' +
            'The email is compared case-insensitively: an address already taken answers `email_taken`. ' +
            'The strength check and the hashing of the password wait their turn among the sign-ups and sign-ins ' +
            'of other client addresses; when too many wait, `503 password_checks_busy` with `Retry-After`.',
          status: 201,
          response: AccountResponse,
          errors: [
            'email_taken',
            'password_blank',
            'password_too_short',
            'password_too_common',
            'password_checks_busy',
          ],
          example: { email: 'ada@example.com', password: 'analytical engine 1843' },
        },
      },
      async ({ body }, client) => {
        const { account, apiKey } = await createAccount.execute({
          email: body.email,
          password: body.password,
          ...client,
        });
        return { status: 201, body: presentAccount(account, apiKey) };
      },
    ),
  ];
}
