/** Injection tokens of the ports, in one place. Use cases are bound by their own class. */
export const TOKENS = {
  TransactionBoundary: Symbol.for('time-navigation.TransactionBoundary'),
  WallClock: Symbol.for('time-navigation.WallClock'),
  IdGenerator: Symbol.for('time-navigation.IdGenerator'),
  CredentialHasher: Symbol.for('time-navigation.CredentialHasher'),
  CommonPasswords: Symbol.for('time-navigation.CommonPasswords'),
  RateCounterStore: Symbol.for('time-navigation.RateCounterStore'),
  VerifiedKeyCache: Symbol.for('time-navigation.VerifiedKeyCache'),
} as const;
