// WriteSet folds a unit's writes of one row into one, because the CTEs of one statement share one
// snapshot and a second write of a row would not see the first: its folding rules, read from the
// statement it sends, without a database.
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';
import type { Row } from '../../../src/infrastructure/persistence/postgres/kysely';
import { WriteSet } from '../../../src/infrastructure/persistence/postgres/unit-of-work/write-set';

interface Sent {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** Applies `writes` unguarded and answers the statement sent: its text and values. */
async function sentBy(writes: WriteSet): Promise<Sent> {
  const sent: Sent[] = [];
  const recording: SqlRunner = {
    query: async <T>(text: string, values: readonly unknown[]) => {
      sent.push({ text, values });
      return [] as T[];
    },
  };
  await writes.apply(recording);
  expect(sent).toHaveLength(1);
  return sent[0]!;
}

/** Each write of the statement, in order: its kind and table. */
function writesIn(text: string): string[] {
  return [...text.matchAll(/"w\d+" as \((insert into|update|delete from) "(\w+)"/g)].map(
    ([, kind, table]) => `${kind!.split(' ')[0]} ${table}`,
  );
}

const AT = new Date('2030-01-01T12:00:00.000Z');

function anchor(id: string, description: string): Row<'anchors'> {
  return {
    account_id: 'acc_1',
    id,
    timestamp: AT,
    description,
    timeline_id: 'primary',
    location: 'home',
    created_at: AT,
  };
}

describe('WriteSet folding', () => {
  it('writes an insert and then an update of its row as one insert of the last values', async () => {
    const writes = new WriteSet();
    writes.insert('anchors', ['account_id', 'id'], anchor('anc_1', 'First'));
    writes.update('anchors', { account_id: 'acc_1', id: 'anc_1' }, { description: 'Second' });

    const { text, values } = await sentBy(writes);

    expect(writesIn(text)).toEqual(['insert anchors']);
    expect(values).toContain('Second');
    expect(values).not.toContain('First');
  });

  it('writes two updates of a row as one, the later value of a column winning', async () => {
    const writes = new WriteSet();
    writes.update('anchors', { account_id: 'acc_1', id: 'anc_1' }, { description: 'First', location: 'Moon' });
    writes.update('anchors', { account_id: 'acc_1', id: 'anc_1' }, { description: 'Second' });

    const { text, values } = await sentBy(writes);

    expect(writesIn(text)).toEqual(['update anchors']);
    expect(values).toEqual(expect.arrayContaining(['Second', 'Moon']));
    expect(values).not.toContain('First');
  });

  it('writes nothing of a row inserted and then deleted', async () => {
    const writes = new WriteSet();
    writes.insert('anchors', ['account_id', 'id'], anchor('anc_1', 'Gone'));
    writes.insert('anchors', ['account_id', 'id'], anchor('anc_2', 'Kept'));
    writes.delete('anchors', { account_id: 'acc_1', id: 'anc_1' });

    const { text, values } = await sentBy(writes);

    expect(writesIn(text)).toEqual(['insert anchors']);
    expect(values).toContain('Kept');
    expect(values).not.toContain('Gone');
  });

  it('writes the delete alone of a row updated and then deleted', async () => {
    const writes = new WriteSet();
    writes.update('anchors', { account_id: 'acc_1', id: 'anc_1' }, { description: 'Changed' });
    writes.delete('anchors', { account_id: 'acc_1', id: 'anc_1' });

    const { text, values } = await sentBy(writes);

    expect(writesIn(text)).toEqual(['delete anchors']);
    expect(values).not.toContain('Changed');
  });

  it('keeps an update after a delete of its row as a write of its own, after the delete', async () => {
    const writes = new WriteSet();
    writes.delete('anchors', { account_id: 'acc_1', id: 'anc_1' });
    writes.update('anchors', { account_id: 'acc_1', id: 'anc_1' }, { description: 'After' });

    expect(writesIn((await sentBy(writes)).text)).toEqual(['delete anchors', 'update anchors']);
  });

  it('names a row by its table and key: other rows, and one key in two tables, stay apart and in order', async () => {
    const writes = new WriteSet();
    writes.insert('anchors', ['account_id', 'id'], anchor('anc_1', 'One'));
    writes.update('timelines', { account_id: 'acc_1', id: 'anc_1' }, { name: 'Same key, other table' });
    writes.insert('anchors', ['account_id', 'id'], anchor('anc_2', 'Two'));
    writes.update('anchors', { account_id: 'acc_1', id: 'anc_1' }, { description: 'One again' });

    const { text, values } = await sentBy(writes);

    expect(writesIn(text)).toEqual(['insert anchors', 'update timelines', 'insert anchors']);
    expect(values).toEqual(expect.arrayContaining(['One again', 'Two', 'Same key, other table']));
    expect(values).not.toContain('One');
  });

  it('is empty again when its only row was inserted and then deleted: the unit wrote nothing', () => {
    const writes = new WriteSet();
    writes.insert('anchors', ['account_id', 'id'], anchor('anc_1', 'Gone'));
    expect(writes.isEmpty).toBe(false);

    writes.delete('anchors', { account_id: 'acc_1', id: 'anc_1' });

    expect(writes.isEmpty).toBe(true);
  });
});
