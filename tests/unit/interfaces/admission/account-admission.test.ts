import { AccountAdmission } from '../../../../src/interfaces/http/admission/account-admission';

describe('AccountAdmission', () => {
  const limits = { running: 2, queued: 2 };

  it('runs the limit at once, queues the next in arrival order, refuses the rest', () => {
    const admission = new AccountAdmission<string>(limits);
    expect(['a1', 'a2', 'a3', 'a4', 'a5'].map((holder) => admission.enter('acc_a', holder))).toEqual([
      'running',
      'running',
      'queued',
      'queued',
      'refused',
    ]);
    expect(admission.loadOf('acc_a')).toEqual({ running: 2, queued: 2 });
    // The oldest waiting one takes the place of one done.
    expect(admission.leave('a2')).toBe('a3');
    expect(admission.leave('a1')).toBe('a4');
    expect(admission.leave('a3')).toBeNull();
    expect(admission.leave('a4')).toBeNull();
    expect(admission.loadOf('acc_a')).toEqual({ running: 0, queued: 0 });
  });

  it('counts each account on its own: a busy one leaves the others their share', () => {
    const admission = new AccountAdmission<string>(limits);
    for (const holder of ['a1', 'a2', 'a3', 'a4']) admission.enter('acc_a', holder);
    expect(admission.enter('acc_a', 'a5')).toBe('refused');
    expect(admission.enter('acc_b', 'b1')).toBe('running');
  });

  it('lets a waiting request leave the queue without taking anyone place', () => {
    const admission = new AccountAdmission<string>(limits);
    for (const holder of ['a1', 'a2', 'a3', 'a4']) admission.enter('acc_a', holder);
    expect(admission.leave('a3')).toBeNull();
    expect(admission.loadOf('acc_a')).toEqual({ running: 2, queued: 1 });
    expect(admission.leave('a1')).toBe('a4');
    // A holder that is not in (left already) changes nothing.
    expect(admission.leave('a3')).toBeNull();
    expect(admission.loadOf('acc_a')).toEqual({ running: 2, queued: 0 });
  });

  it("frees a gone worker's requests, running and waiting, and admits the others' in their place", () => {
    const admission = new AccountAdmission<string>(limits);
    for (const holder of ['1/a', '2/b', '1/c', '2/d']) admission.enter('acc_a', holder);
    expect(admission.leaveAll((holder) => holder.startsWith('1/'))).toEqual(['2/d']);
    expect(admission.loadOf('acc_a')).toEqual({ running: 2, queued: 0 });
  });

  it('needs at least one running and no negative queue', () => {
    expect(() => new AccountAdmission({ running: 0, queued: 1 })).toThrow(RangeError);
    expect(() => new AccountAdmission({ running: 1, queued: -1 })).toThrow(RangeError);
    expect(new AccountAdmission<string>({ running: 1, queued: 0 }).enter('acc', 'x')).toBe('running');
  });
});
