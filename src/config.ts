/** Settings read from the environment once at start, each checked with a message that says what is wrong. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** A PostgreSQL server; when absent the service runs an embedded PostgreSQL in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
}

export class ConfigError extends Error {}

export function readConfig(env: NodeJS.ProcessEnv): Config {
  const problems: string[] = [];
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) problems.push(`PORT must be a whole number from 0 to 65535, not '${env.PORT}'.`);
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgresql:// connection string (or unset, for the embedded database).');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  return { port, host: env.HOST?.trim() || '0.0.0.0', databaseUrl, dataDir: env.DATA_DIR?.trim() || '.data' };
}
