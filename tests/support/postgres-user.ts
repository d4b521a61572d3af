// The `postgres` user, for programs that refuse root (PostgreSQL, PgBouncer) when the tests run as root.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface Owner {
  readonly uid: number;
  readonly gid: number;
}

/** The postgres user's ids, to spawn a program as it and give it its folders. */
export async function postgresUser(): Promise<Owner> {
  const id = async (flag: string) => Number((await promisify(execFile)('id', [flag, 'postgres'])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}
