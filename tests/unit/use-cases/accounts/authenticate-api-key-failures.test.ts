// Failed API keys are counted per client: past the limit a client's keys are refused before they
// are looked up, so guessing costs no database read; known keys and other clients go on as before.
import { InvalidApiKey, TooManyFailedAttempts } from '../../../../src/core/domain/errors';
import { DEFAULT_FAILED_API_KEYS } from '../../../../src/infrastructure/throttling/memory-failed-attempts';
import { CLIENT, createTestCore, type TestCore } from '../../../support/builders/test-core';
import { InMemoryApiKeyRepository } from '../../../support/in-memory/repositories';

const LIMIT = DEFAULT_FAILED_API_KEYS.failures;

afterEach(() => jest.restoreAllMocks());

function aWrongKey(index: number): string {
  return `tns_${String(index).padStart(43, 'W')}`;
}

async function failTimes(core: TestCore, times: number, client = CLIENT): Promise<void> {
  for (let index = 0; index < times; index += 1)
    await expect(core.authenticateApiKey.execute({ apiKey: aWrongKey(index), client })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );
}

it('refuses a client past its failures before looking its key up, and says when to retry', async () => {
  const core = createTestCore();
  const { apiKey } = await core.createAccount.execute({
    email: 'ada@example.com',
    password: 's3cret-enough-for-now',
    clientAddress: CLIENT,
  });
  await failTimes(core, LIMIT);
  const reads = jest.spyOn(InMemoryApiKeyRepository.prototype, 'findByDigest');

  const error = await core.authenticateApiKey.execute({ apiKey: aWrongKey(LIMIT), client: CLIENT }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TooManyFailedAttempts);
  const { retryAfterSeconds } = error as TooManyFailedAttempts;
  expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(retryAfterSeconds).toBeLessThanOrEqual(DEFAULT_FAILED_API_KEYS.windowSeconds);
  // A valid key this process has not verified lately is refused alike: telling it apart needs the read.
  await expect(core.authenticateApiKey.execute({ apiKey, client: CLIENT })).rejects.toBeInstanceOf(
    TooManyFailedAttempts,
  );
  expect(reads).not.toHaveBeenCalled();
});

it('lets a key verified lately through from a client past its failures, and other clients try on', async () => {
  const core = createTestCore();
  const { account, apiKey } = await core.createAccount.execute({
    email: 'ada@example.com',
    password: 's3cret-enough-for-now',
    clientAddress: CLIENT,
  });
  await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
  await failTimes(core, LIMIT);

  await expect(core.authenticateApiKey.execute({ apiKey, client: CLIENT })).resolves.toMatchObject({
    accountId: account.id,
  });
  // A minute on, its use is due to be recorded (a read): still no wait for it.
  core.clock.advanceBy(61_000);
  await expect(core.authenticateApiKey.execute({ apiKey, client: CLIENT })).resolves.toMatchObject({
    accountId: account.id,
  });
  await expect(
    core.authenticateApiKey.execute({ apiKey: aWrongKey(0), client: '198.51.100.7' }),
  ).rejects.toBeInstanceOf(InvalidApiKey);
});

it('counts only failures that cost a read: malformed keys and valid ones do not count', async () => {
  const core = createTestCore();
  const { apiKey } = await core.createAccount.execute({
    email: 'ada@example.com',
    password: 's3cret-enough-for-now',
    clientAddress: CLIENT,
  });
  for (let index = 0; index < LIMIT * 2; index += 1) {
    await expect(core.authenticateApiKey.execute({ apiKey: 'not-a-key', client: CLIENT })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
  }
  await failTimes(core, LIMIT);
  await expect(core.authenticateApiKey.execute({ apiKey: aWrongKey(0), client: CLIENT })).rejects.toBeInstanceOf(
    TooManyFailedAttempts,
  );
});
