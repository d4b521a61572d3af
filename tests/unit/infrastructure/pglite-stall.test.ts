// When the supervisor ends the embedded database's thread: a silence is a statement at work until
// the disk shows it cannot be, or until it has lasted longer than any statement of the service.
import {
  DISK_FULL_SILENCE_MS,
  STALL_MS,
  stallOf,
  WAL_SEGMENT_BYTES,
} from '../../../src/infrastructure/database/embedded/pglite-supervisor';

const ROOMY = 10 * WAL_SEGMENT_BYTES;

it('lets a thread be silent while a statement runs, however full the disk', () => {
  expect(stallOf(DISK_FULL_SILENCE_MS - 1, 0)).toBeNull();
  expect(stallOf(STALL_MS - 1, ROOMY)).toBeNull();
  expect(stallOf(STALL_MS - 1, null)).toBeNull();
});

it('ends a thread silent on a disk without room for another WAL segment', () => {
  expect(stallOf(DISK_FULL_SILENCE_MS, WAL_SEGMENT_BYTES - 1024 * 1024)).toBe(
    'its disk is full (15.0 MiB free; its write-ahead log needs 16.0 MiB to grow)',
  );
  expect(stallOf(DISK_FULL_SILENCE_MS, 2 * 1024 * 1024)).toBe(
    'its disk is full (2.0 MiB free; its write-ahead log needs 16.0 MiB to grow)',
  );
  expect(stallOf(DISK_FULL_SILENCE_MS, WAL_SEGMENT_BYTES)).toBeNull();
});

it('ends a thread silent for longer than any statement, whatever its disk', () => {
  expect(stallOf(STALL_MS, ROOMY)).toBe('it has not answered for 60 s');
  expect(stallOf(STALL_MS + 400, null)).toBe('it has not answered for 60 s');
});
