import { CLIENT, type TestCore } from './test-core';

let signUps = 0;

/** Opens an account through the CreateAccount use case and returns its id. */
export async function anAccount(core: TestCore, email = `traveller${++signUps}@example.com`): Promise<string> {
  const { account } = await core.createAccount.execute({
    email,
    password: 'correct horse battery staple',
    clientAddress: CLIENT,
  });
  return account.id;
}
